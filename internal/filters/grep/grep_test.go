package grep

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/evtools/evtools/pkg/jsonscan"
)

const (
	prompt   = `{"seq":1,"ts":1772371521.15,"run_id":"s1/1","agent_id":"","kind":"user_message","payload":{"text":"fix the Login bug\nin the handler"},"session":"s1","project":"/home/ana/src/shop","source":"claude"}`
	call     = `{"seq":2,"ts":1772371522,"run_id":"s1/1","agent_id":"main","kind":"tool_call","payload":{"id":"toolu_1","tool":"Bash","args":{"command":"grep -rn session internal","timeout":5}},"session":"s1","project":"/p","source":"claude"}`
	result   = `{"seq":3,"ts":1772371523,"run_id":"s1/1","agent_id":"main","kind":"tool_result","payload":{"id":"toolu_1","tool":"Bash","ok":true,"output":"a \"quoted\" caf\u00e9 and a tab\there"},"session":"s1","project":"/p","source":"claude"}`
	thinking = `{"seq":4,"ts":1772371524,"run_id":"s1/1","agent_id":"main","kind":"model_result","payload":{"model":"claude-x","stop":"end","thinking":"The KELVIN sign \u212a is a k"},"session":"s1","project":"/p","source":"claude"}`
	merror   = `{"seq":5,"ts":1772371525,"run_id":"s1/1","agent_id":"main","kind":"model_error","payload":{"message":"overloaded_error: try later"},"session":"s1","project":"/p","source":"claude"}`
	zotMsg   = `{"type":"assistant_message","content":[{"type":"text","text":"All tests pass"},{"type":"tool_call","id":"c1","name":"bash"}]}`
	compact  = `{"seq":6,"ts":1772371526,"run_id":"s1/1","agent_id":"main","kind":"compaction","payload":{"trigger":"auto","summary":"we fixed the cache"},"session":"s1","project":"/p","source":"claude"}`
	finished = `{"seq":7,"ts":1772371527,"run_id":"s1/1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok","wall_seconds":6},"session":"s1","project":"/p","source":"claude"}`
)

var all = []string{prompt, call, result, thinking, merror, zotMsg, compact, finished}

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern string
		o       Options
		want    []string // the lines that match
	}{
		{"Login bug", Options{}, []string{prompt}},
		{"login bug", Options{}, nil},
		{"login bug", Options{IgnoreCase: true}, []string{prompt}},
		{"session", Options{}, []string{call}}, // the args' command; never the "session" key
		{"toolu_1", Options{}, nil},            // an id
		{"claude", Options{}, nil},             // the source and the model
		{"Bash", Options{}, nil},               // a tool's name is no text
		{"5", Options{Fixed: true}, nil},       // numbers are not searched
		{`"quoted"`, Options{Fixed: true}, []string{result}},
		{"café", Options{}, []string{result}},
		{"CAFÉ", Options{IgnoreCase: true}, []string{result}},
		{"tab\there", Options{Fixed: true}, []string{result}},
		{"kelvin sign k", Options{IgnoreCase: true}, []string{thinking}},
		{"\u212a is", Options{}, []string{thinking}},
		{"K is", Options{IgnoreCase: true}, []string{thinking}},
		{"overloaded", Options{}, []string{merror}},
		{"tests pass", Options{}, []string{zotMsg}},
		{"tool_call", Options{}, nil}, // a block's type
		{"cache", Options{}, []string{compact}},
		{"ok", Options{}, nil},
		{`^in the`, Options{}, []string{prompt}}, // ^ at a line of the text
		{`L.gin`, Options{}, []string{prompt}},
		{`l[o0]gin\s+BUG`, Options{IgnoreCase: true}, []string{prompt}},
		{`grep -rn (session|cache)`, Options{}, []string{call}},
		{`a.b`, Options{Fixed: true}, nil},
	}
	for _, c := range cases {
		m, err := Compile(c.pattern, c.o)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		var got []string
		for _, l := range all {
			fast := m.Match([]byte(l))
			if slow := m.decoded([]byte(l)); fast != slow {
				t.Errorf("%q %+v on %s: fast %v, decoded %v", c.pattern, c.o, l, fast, slow)
			}
			if fast {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%q %+v matches\n%s\nwant\n%s", c.pattern, c.o, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

func TestBadPattern(t *testing.T) {
	if _, err := Compile("fix(", Options{}); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("fix( compiled: %v", err)
	}
	if _, err := Compile("fix(", Options{Fixed: true}); err != nil {
		t.Errorf("fix( as a literal: %v", err)
	}
	if _, err := Compile("", Options{}); err == nil {
		t.Error("an empty pattern compiled")
	}
}

// The folded literal search agrees with regexp's (?i).
func TestFoldAgreesWithRegexp(t *testing.T) {
	for _, c := range []struct{ text, needle string }{
		{"Kelvin \u212a", "k"}, {"ſtop", "STOP"}, {"Straße", "STRASSE"}, {"ǅemal", "ǆ"}, {"İstanbul", "istanbul"}, {"abc", "B"},
	} {
		m, _ := Compile(c.needle, Options{Fixed: true, IgnoreCase: true})
		got := m.Find([]byte(c.text)) != nil
		want := regexp.MustCompile("(?i)" + regexp.QuoteMeta(c.needle)).MatchString(c.text)
		if got != want {
			t.Errorf("%q in %q: %v, regexp says %v", c.needle, c.text, got, want)
		}
	}
}

// FuzzMatch: the prefilter never loses a line that decoding every line
// and searching its texts finds.
func FuzzMatch(f *testing.F) {
	for _, l := range all {
		f.Add(l, "login", false, false)
		f.Add(l, "café", true, true)
		f.Add(l, `"quoted"`, true, false)
		f.Add(l, "k", false, true)
	}
	f.Add(`{"kind":"user_message","payload":{"text":"log\u0069n"}}`, "login", true, false)
	f.Add(`{"kind":"user_message","payload":{"text":"a\/b"}}`, "a/b", true, false)
	f.Add(`{"kind":"user_message","payload":{"text":"\u001b[1mlog\u0049n"}}`, "login", false, true)
	f.Add(`{"kind":"user_message","payload":{"text":"\u212a"}}`, "k", true, true)
	f.Add(`{"kind":"user_message","payload":{"text":"login"}`, "login", true, false)
	f.Fuzz(func(t *testing.T, line, pattern string, fixed, fold bool) {
		m, err := Compile(pattern, Options{Fixed: fixed, IgnoreCase: fold})
		if err != nil {
			return
		}
		if fast, slow := m.Match([]byte(line)), m.decoded([]byte(line)); fast != slow {
			t.Fatalf("%q (fixed %v, fold %v) on %s: fast %v, decoded %v", pattern, fixed, fold, line, fast, slow)
		}
		testAgrees(t, m, []string{line})
		testAgrees(t, m, append([]string{line}, all...))
		testAgrees(t, m, append(all[:len(all):len(all)], line, line))
	})
}

// testAgrees checks Test, and TestIn over lines in a block, against
// decoding each line (decoded) and validating it (jsonscan.Check).
func testAgrees(t *testing.T, m *Matcher, lines []string) {
	t.Helper()
	block := []byte(strings.Join(lines, "\n"))
	m.Block(block)
	from := 0
	for _, l := range lines {
		line := block[from : from+len(l)]
		from += len(l) + 1
		want, wantErr := m.decoded(line), jsonscan.Check(line)
		if wantErr != nil {
			want = false
		}
		for _, how := range []string{"Test", "TestIn"} {
			var got bool
			var err error
			if how == "Test" {
				got, err = m.Test(line)
			} else {
				got, err = m.TestIn(line)
			}
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%s %q on %s: %v, %v; want %v, %v", how, m, line, got, err, want, wantErr)
			}
		}
	}
}

func TestTestAgrees(t *testing.T) {
	bad := []string{`{"kind":"user_message","payload":{"text":"login"}`, `{"kind":"user_message","payload":{"text":"log\u0069n"}} x`,
		`[1]`, `{"payload":{"text":"login"}}`, `{"kind":"user_message","payload":{"text":"login\u00"}}`, `{"kind":"user_message","payload":{"text":"\u001b[1mlogin"}}`,
		`{"kind":"user_message","payload":{"text":"\u001b[1mlog\u0049n"}}`, `{"kind":"user_message","payload":{"text":"\ud83d\ude00 ok"}}`}
	// raw bytes that are an escape's, not the text's (searchRaw)
	tricky := []string{`{"kind":"user_message","payload":{"text":"\nthe \\\nt \\nope \u00e9x1 \\u00e9y \tab"}}`,
		`{"kind":"tool_call","payload":{"tool":"t","args":{"a":["\\\\nq", "\u006ein"]}}}`}
	bad = append(bad, tricky...)
	for _, p := range []string{"login", "LOGIN", "log", "😀 ok", "k", `l.gin`, "nthe", "nt", "nope", "e9x", "u00e9y", "ab", "nq", "nin", "in", "NIN"} {
		for _, o := range []Options{{}, {IgnoreCase: true}, {Fixed: true}} {
			m, err := Compile(p, o)
			if err != nil {
				t.Fatal(err)
			}
			testAgrees(t, m, append(all[:len(all):len(all)], bad...))
			testAgrees(t, m, append(bad[:len(bad):len(bad)], all...))
		}
	}
}
