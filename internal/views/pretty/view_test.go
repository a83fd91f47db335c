package pretty

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/pkg/event"
	"github.com/mattn/go-runewidth"
)

// showWith renders lines (one event each) with the options, in UTC.
func showWith(t *testing.T, o Options, lines ...string) string {
	t.Helper()
	return string(renderWith(t, []byte(strings.Join(lines, "\n")+"\n"), o))
}

// The uname transcript in the order zot really sends a reply: its pieces,
// then the usage, then the whole message.
var zotReply = []string{
	`{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`,
	`{"content":[{"text":"which kernel?","type":"text"}],"time":"2026-06-21T23:14:52.309Z","type":"user_message"}`,
	`{"step":1,"type":"turn_start"}`,
	`{"type":"assistant_start"}`,
	`{"delta":"The kernel","type":"text_delta"}`,
	`{"delta":" is FreeBSD 15.0","type":"text_delta"}`,
	`{"delta":", release p10.","type":"text_delta"}`,
	`{"input":10,"output":5,"type":"usage"}`,
	`{"content":[{"text":"The kernel is FreeBSD 15.0, release p10.","type":"text"}],"type":"assistant_message"}`,
	`{"stop":"end","type":"turn_end"}`,
	`{"type":"done"}`,
}

// 20.1: what one event says is not said again by the next.
func TestNothingTwice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		once  string // shown on exactly one line
	}{
		{"a reply in pieces, then the usage, then the whole reply", zotReply, "The kernel is"},
		{"a failed turn, then its error", []string{
			`{"step":1,"type":"turn_start"}`,
			`{"error":"deepseek: http 401: bad key","stop":"error","type":"turn_end"}`,
			`{"message":"deepseek: http 401: bad key","type":"error"}`,
			`{"type":"done"}`,
		}, "http 401"},
		{"a tool's progress, then its end with the same output", []string{
			`{"id":"c1","name":"bash","type":"tool_use_start"}`,
			`{"args":{"command":"uname"},"id":"c1","name":"bash","type":"tool_call"}`,
			`{"id":"c1","text":"FreeBSD osa 15.0\n","type":"tool_progress"}`,
			`{"content":[{"text":"$ uname\nFreeBSD osa 15.0\n","type":"text"}],"id":"c1","is_error":false,"type":"tool_result"}`,
		}, "FreeBSD osa 15.0"},
		{"a model call, then its result", []string{
			env("1793524443", "", "user_message", `{"text":"hi"}`),
			env("1793524444", "a", "model_call", `{"step":1,"model":"deepseek-v4-pro"}`),
			env("1793524446", "a", "model_result", `{"step":1,"model":"deepseek-v4-pro","input":10,"output":2}`),
		}, "deepseek-v4-pro"},
	} {
		for _, all := range []bool{false, true} {
			got := showWith(t, Options{Width: 100, All: all}, tc.lines...)
			if n := strings.Count(got, tc.once); n != 1 && !(all && tc.name == "a model call, then its result") {
				t.Errorf("%s (all=%v): %q shown %d times:\n%s", tc.name, all, tc.once, n, got)
			}
		}
	}
	// One error line for the failed turn, and the model call on one line
	// with its result.
	got := show(t, 100, `{"error":"boom","stop":"error","type":"turn_end"}`, `{"message":"boom","type":"error"}`)
	if n := strings.Count(got, "ERROR"); n != 1 {
		t.Errorf("a failed turn: %d ERROR lines, want one:\n%s", n, got)
	}
	got = show(t, 100, env("1793524443", "", "user_message", `{"text":"hi"}`),
		env("1793524444", "a", "model_call", `{"step":1,"model":"m"}`),
		env("1793524446", "a", "model_result", `{"input":10,"output":2}`))
	if lines := bodyLines(got); len(lines) != 2 || !strings.Contains(lines[1], "in 10 out 2  2.00s") {
		t.Errorf("a model call and its result: want the user's line and one model line with the latency:\n%s", got)
	}
	// The same failure again (a retry loop) is news each time.
	got = show(t, 100, env("1", "a", "error", `{"message":"429"}`), env("2", "a", "error", `{"message":"429"}`))
	if n := strings.Count(got, "ERROR  429"); n != 2 {
		t.Errorf("an error repeated is shown %d times, want 2:\n%s", n, got)
	}
}

// bodyLines are the lines of a rendering but the headings.
func bodyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if !strings.HasPrefix(l, "── ") {
			out = append(out, l)
		}
	}
	return out
}

// 20.2: a kind a vocabulary names, or one evimport writes, is never shown
// as its raw payload: each has a line of its own, or none on purpose. The
// test walks the vocabularies' rows, and every event of evimport's
// expected outputs, each with a marker member in its payload that only a
// dump of the payload would show.
func TestNoKindShownAsJSON(t *testing.T) {
	const marker = `"zz_marker":1`
	for _, v := range event.Vocabularies() {
		for _, e := range v.Entries {
			payload := marker
			if e.Type != "" {
				payload += `,"type":"` + e.Type + `"`
			}
			if e.Needs != 0 {
				payload += `,"id":"c1","args":{"command":"ls"}`
			}
			line := `{"seq":1,"ts":1793524443,"run_id":"r_1","agent_id":"a","kind":"` + e.Kind + `","payload":{` + payload + `}}`
			if v.Raw {
				line = `{` + payload + `,"type":"` + e.Kind + `"}`
				if e.Type != "" {
					continue // a raw row is keyed by its type alone
				}
			}
			for _, all := range []bool{false, true} {
				if got := showWith(t, Options{Width: 200, All: all}, line); strings.Contains(got, "zz_marker") {
					t.Errorf("%s %s (type %q, all=%v) is shown as JSON:\n%s", v.Name, e.Kind, e.Type, all, got)
				}
			}
		}
	}
	for _, in := range inputs {
		if in.section == "" {
			continue
		}
		for _, line := range strings.Split(string(readInput(t, in.path, in.section)), "\n") {
			if line == "" {
				continue
			}
			marked := strings.Replace(line, `"payload":{`, `"payload":{`+marker+`,`, 1)
			for _, all := range []bool{false, true} {
				if got := showWith(t, Options{Width: 200, All: all}, marked); strings.Contains(got, "zz_marker") {
					t.Errorf("evimport's %s (all=%v) is shown as JSON:\n%s", line, all, got)
				}
			}
		}
	}
	// An event no vocabulary knows is still shown whole: never dropped.
	if got := show(t, 100, env("1", "a", "custom_metric", `{"depth":3}`)); !strings.Contains(got, `custom_metric {"depth":3}`) {
		t.Errorf("an unknown kind:\n%s", got)
	}
}

var timeAt = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d{3}| {12}) `)

// tagColumns gives, for each agent's lines of a rendering of the run log,
// the columns its tags start at. Lines of text (no tag) are left out.
func tagColumns(s string) map[string]map[int]bool {
	// A tag is padded to 6 columns: "4 tool calls", a run footer's line
	// of its own, names no tag.
	tags := regexp.MustCompile(`(?:^|  |[^ ] )(user   |run    |model  |tool   |ok     |FAILED |ERROR  |KILLED |GUARDRAIL |agent  |decide )`)
	cols := map[string]map[int]bool{}
	for _, l := range bodyLines(s) {
		if !timeAt.MatchString(l) {
			continue
		}
		rest := l[13:]
		who := ""
		if strings.HasPrefix(rest, "  ") {
			who = strings.TrimSpace(rest[:strings.Index(rest[2:], " ")+2])
		}
		m := tags.FindStringSubmatchIndex(l[13:])
		if m == nil {
			continue
		}
		if cols[who] == nil {
			cols[who] = map[int]bool{}
		}
		cols[who][runewidth.StringWidth(l[:13+m[2]])] = true
	}
	return cols
}

// 20.3: whose line it is, said from the first line, in columns that do
// not move.
func TestWhoseLine(t *testing.T) {
	data := readInput(t, "../../../examples/events/multiagent.jsonl", "")
	got := string(render(t, data, 80, false))
	cols := tagColumns(got)
	for who, at := range cols {
		if len(at) != 1 {
			t.Errorf("the lines of %q have their tags at columns %v: they move", who, at)
		}
	}
	// The run's own agent and the session's events line up: the
	// parent's lines carry no label, a sub-agent's are indented under it.
	if !cols[""][13] || len(cols) < 4 {
		t.Errorf("the parent and the session at column 13, each sub-agent apart: %v\n%s", cols, got)
	}

	// zot2gp's run ids share their start: each run is named whole once,
	// then by its number.
	two := []string{
		`{"seq":1,"ts":1782081366,"run_id":"r_ac9ab955_1","agent_id":"","kind":"message_update","payload":{"type":"user_message","content":"one"}}`,
		`{"seq":2,"ts":1782081367,"run_id":"r_ac9ab955_2","agent_id":"","kind":"message_update","payload":{"type":"user_message","content":"two"}}`,
		`{"seq":3,"ts":1782081368,"run_id":"r_ac9ab955_1","agent_id":"zot","kind":"error","payload":{"message":"late"}}`,
	}
	got = show(t, 80, two...)
	for _, want := range []string{"run 1 · r_ac9ab955_1", "run 2 · r_ac9ab955_2", "── run 1 ──"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}

	// One agent over several runs gets no column: zot is every line's.
	got = show(t, 80, append(append([]string{}, zotRun("r_1")...), zotRun("r_2")...)...)
	if c := tagColumns(got); len(c) != 1 || len(c[""]) != 1 || !c[""][13] {
		t.Errorf("one agent, two runs: tags at %v, want all at 13:\n%s", c, got)
	}

	// A stream read from the middle of a run (evfilter failed) says
	// whose its first line is.
	var failed []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"kind":"model_error"`) || strings.Contains(l, `"kind":"run_error"`) {
			failed = append(failed, l)
		}
	}
	got = show(t, 80, failed...)
	if first := strings.SplitN(got, "\n", 2)[0]; !strings.Contains(first, "doc-writer") {
		t.Errorf("the owner of the first failure is not said before it:\n%s", got)
	}
}

func zotRun(run string) []string {
	return []string{
		`{"seq":1,"ts":1782081366,"run_id":"` + run + `","agent_id":"","kind":"message_update","payload":{"type":"user_message","content":"go"}}`,
		`{"seq":2,"ts":1782081367,"run_id":"` + run + `","agent_id":"zot","kind":"tool_execution_start","payload":{"type":"tool_use_start","id":"c1","name":"bash"}}`,
		`{"seq":3,"ts":1782081368,"run_id":"` + run + `","agent_id":"zot","kind":"usage","payload":{"type":"usage","input":1,"output":1}}`,
		`{"seq":4,"ts":1782081369,"run_id":"` + run + `","agent_id":"","kind":"agent_end","payload":{"type":"done"}}`,
	}
}

// 20.4: text as people write it.
func TestTextAsWritten(t *testing.T) {
	// Words are placed whole, however the pieces cut them: no line
	// starts with the comma of the word before, no word is broken.
	t.Run("words whole", func(t *testing.T) {
		data := readInput(t, "../../../examples/zot/uname.jsonl", "")
		const reply = "This system is running FreeBSD 15.0-RELEASE-p10, the security patch level 10 build of the FreeBSD 15.0 kernel with the GENERIC configuration, on the amd64 architecture."
		for width := 40; width <= 130; width++ {
			got := string(render(t, data, width, false))
			i := strings.Index(got, "This system")
			j := strings.Index(got, "architecture.")
			if i < 0 || j < 0 {
				t.Fatalf("width %d: no reply:\n%s", width, got)
			}
			if words := strings.Fields(got[i : j+len("architecture.")]); strings.Join(words, " ") != reply {
				t.Errorf("width %d: the reply's words are not whole:\n%s", width, got[i:j+13])
			}
		}

	})
	// A tab is the spaces to the next tab stop, in text and in a field;
	// a line's own indentation is kept.
	t.Run("tabs and indentation", func(t *testing.T) {
		got := show(t, 80,
			env("1", "", "user_message", `{"text":"name\tsize\nmain.go\t12\n    indented"}`),
			env("2", "a", "tool_result", `{"tool":"ls","ok":true,"output":"a.go\t3"}`))
		for _, want := range []string{"user   name    size", "       main.go 12", "           indented", "ok     ls  a.go    3"} {
			if !strings.Contains(got, want) {
				t.Errorf("no %q in:\n%s", want, got)
			}
		}
		if strings.Contains(got, `\t`) {
			t.Errorf("a tab shown as \\t:\n%s", got)
		}

	})
	// The date heads the view, above the acknowledgement that came
	// without a time.
	t.Run("date first", func(t *testing.T) {
		for _, all := range []bool{false, true} {
			got := showWith(t, Options{Width: 80, All: all}, zotReply...)
			if !strings.HasPrefix(got, "── 2026-06-21 Sun") {
				t.Errorf("all=%v: the view does not start with the date:\n%s", all, got)
			}
			if all && !strings.Contains(got, "ack    prompt") {
				t.Errorf("in full, the acknowledgement is shown:\n%s", got)
			}
		}

	})
	// An agent's start and end do not say again the name its label says.
	t.Run("agent named once", func(t *testing.T) {
		got := string(render(t, readInput(t, "../../../examples/events/multiagent.jsonl", ""), 120, false))
		for _, l := range strings.Split(got, "\n") {
			if strings.Contains(l, "agent  ") && strings.Count(l, "code-reviewer") > 1 {
				t.Errorf("the agent named twice: %q", l)
			}
		}
		if !strings.Contains(got, "  code-reviewer    agent  started  deepseek-v4-pro") {
			t.Errorf("no start line of code-reviewer:\n%s", got)
		}
	})
}

// 20.5: the lines that carry no news are left out by default, folded into
// the line they belong to; Options.All shows them, dim.
func TestQuietByDefault(t *testing.T) {
	data := readInput(t, "../../../examples/zot/uname.jsonl", "")
	quiet := string(render(t, data, 80, false))
	full := string(renderWith(t, data, Options{Width: 80, All: true}))
	noise := []string{"ack    prompt", "turn   step", "turn   end", "assistant_start", "…      bash", "reply  calls bash"}
	for _, n := range noise {
		if strings.Contains(quiet, n) {
			t.Errorf("by default, %q is shown:\n%s", n, quiet)
		}
		if !strings.Contains(full, n) {
			t.Errorf("in full, %q is not shown:\n%s", n, full)
		}
	}
	if q, f := len(bodyLines(quiet)), len(bodyLines(full)); q*3 > f*2 {
		t.Errorf("%d lines by default, %d in full: want a third fewer", q, f)
	}
	// What a folded line said is still there: the output, the step's
	// latency, and a failed turn.
	for _, want := range []string{"ok     bash  FreeBSD", "in 1,262 out 41", "run    ok"} {
		if !strings.Contains(quiet, want) {
			t.Errorf("by default, no %q:\n%s", want, quiet)
		}
	}
	// Dim in colour: the quiet lines do not compete with the others.
	color := string(renderWith(t, data, Options{Width: 80, All: true, Color: true}))
	if !strings.Contains(color, "\x1b[2mturn\x1b[0m") {
		t.Errorf("in full, a turn's line is not dim:\n%q", color)
	}
	var out bytes.Buffer
	r := New(&out, Options{Width: 80, Loc: time.UTC})
	r.Write([]byte(`{"error":"boom","stop":"error","type":"turn_end"}` + "\n"))
	r.Close()
	if !strings.Contains(out.String(), "ERROR  turn failed  boom") {
		t.Errorf("a failed turn is not quiet: %q", out.String())
	}
}
