package expr

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/evtools/evtools/filters"
	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/itchyny/gojq"
)

func (p *pathSet) String() string {
	if p.full {
		return "*"
	}
	var parts []string
	for name, sub := range p.kids {
		parts = append(parts, name+":"+sub.String())
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

func TestNeeds(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`payload.args.command | test("rm")`, `{payload:{args:{command:*}}}`},
		{`content | arrays | length > 1`, `{content:*}`},
		{`payload | type == "object"`, `{payload:*}`},
		{`kind == "a" and (payload.tool | test("b"))`, `{kind:*,payload:{tool:*}}`},
		{`payload.a and payload.a.b`, `{payload:{a:*}}`},
		{`select(kind == "x") | payload.y | length`, `{kind:*,payload:{y:*}}`},
		{`if kind == "x" then payload.a else seq end | tostring | test("1")`, `{kind:*,payload:{a:*},seq:*}`},
		{`{kind, t: payload.tool} | tojson | test("x")`, `{kind:*,payload:{tool:*}}`},
		{`"\(kind)-\(seq)" == "a-1"`, `{kind:*,seq:*}`},
		{`payload.content[0].text | test("x")`, `{payload:{content:*}}`},
		{`payload[.k] == 1`, `{k:*,payload:*}`},
		{`kind as $k | payload.x == $k`, `{kind:*,payload:{x:*}}`},
		{`first(payload.a, payload.b) == 1`, `{payload:{a:*,b:*}}`},
		// the whole event
		{`keys | length > 3`, `whole`},
		{`. == {}`, `whole`},
		{`tojson | test("x")`, `whole`},
		{`select(kind == "x") | keys`, `whole`},
		{`if kind == "x" then . else empty end | length > 2`, `whole`},
		{`. as $e | $e.kind == "x"`, `whole`},
		{`.[] | strings`, `whole`},
		{`..|numbers`, `whole`},
		{`def f: .kind; f == "x"`, `whole`},
		{`failed or length > 1`, `whole`},
		{`try error("x") catch test("x")`, `whole`},
		{`reduce payload.a[] as $x (0; . + $x) > 1`, `whole`},
		{`.kind = 1 | .kind == 1`, `whole`},
		{`@json | test("x")`, `whole`},
		{`[.] | .[0].kind == "x"`, `whole`},
		{`select(true) + {} | keys`, `whole`},
		{`payload[select(kind == "x")] == 1`, `whole`}, // the event is the key
		{`payload[.k:select(true)] == 1`, `whole`},
	}
	for _, tt := range tests {
		f := mustCompile(t, tt.expr, nil)
		q := mustParse(t, tt.expr)
		p := needs(q, builtinLib(t))
		got := "whole"
		if p != nil {
			got = p.String()
		}
		if got != tt.want {
			t.Errorf("needs(%s) = %s, want %s", tt.expr, got, tt.want)
		}
		if f.Partial() != (tt.want != "whole") {
			t.Errorf("%s: Partial() = %v", tt.expr, f.Partial())
		}
	}
}

// partialExprs read events through paths; Match decodes them partially and
// must agree with the full decode, error messages included.
var partialExprs = []string{
	`payload.args.command | strings | test("r" + "m")`, `content | arrays | length > 1`,
	`payload.args.command | test("r" + "m")`, `payload | type == "object"`, `payload.model.provider | ascii_downcase == "openai"`,
	`payload.agents[0].id == "code-reviewer"`, `(payload.tokens // 0) > 10000`, `args.path | strings | endswith("." + "go")`,
	`{kind, t: payload.tool} | tojson | test("bash")`, `"\(type)/\(name)" == "tool_call/bash"`, `payload.text | length > 20`,
	`cumulative | .output > 100`, `delta | test("^" + "\\{")`, `payload.x.y | tostring | test("a")`, `data.started | tostring == "true"`,
}

func checkPartial(t testing.TB, f *Filter, expr string, line []byte) {
	a, aerr := f.Match(line)
	b, berr := f.matchGojq(line)
	if a != b || fmt.Sprint(aerr) != fmt.Sprint(berr) {
		t.Fatalf("%s on %s: partial %v %v, whole %v %v", expr, line, a, aerr, b, berr)
	}
}

// An index whose key may be the event itself gets the event whole, so that
// gojq's error shows all of it, as it does without partial decoding.
func TestPartialComputedKey(t *testing.T) {
	line := []byte(`{"kind":"x","a":{"b":1},"z":2}`)
	for _, expr := range []string{`.a[select(.kind == "x")]`, `.a[first(select(.kind == "x"))] == 1`} {
		f := mustCompile(t, expr, nil)
		checkPartial(t, f, expr, line)
		if _, err := f.Match(line); err == nil || !strings.Contains(err.Error(), `"z":2`) {
			t.Errorf("%s: error %v, want one showing the whole event", expr, err)
		}
	}
}

func TestPartialAgreesOnCorpora(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 256<<10, 3); err != nil {
		t.Fatal(err)
	}
	if err := corpus.Zot(&buf, 256<<10, 3); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	for _, s := range partialExprs {
		f := mustCompile(t, s, nil)
		if !f.Partial() || f.Fast() {
			t.Errorf("%s: partial %v, fast %v", s, f.Partial(), f.Fast())
			continue
		}
		for _, line := range lines {
			checkPartial(t, f, s, line)
		}
	}
}

// FuzzPartial: on any line, partial decoding gives the answer and the error
// of the full decode.
func FuzzPartial(f *testing.F) {
	for _, s := range sample {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"payload":{"args":"x","args":{"command":"rm"}}}`), uint8(2))
	f.Add([]byte(`{"payload":{"args":[1]}}`), uint8(2))
	lib, err := LoadLibrary(filters.FS, nil)
	if err != nil {
		f.Fatal(err)
	}
	var fs []*Filter
	for _, s := range partialExprs {
		x, err := Compile(s, Options{Library: lib})
		if err != nil || !x.Partial() {
			f.Fatalf("%s: %v", s, err)
		}
		fs = append(fs, x)
	}
	f.Fuzz(func(t *testing.T, line []byte, which uint8) {
		i := int(which) % len(fs)
		checkPartial(t, fs[i], partialExprs[i], line)
	})
}

func mustParse(t testing.TB, s string) *gojq.Query {
	t.Helper()
	q, err := gojq.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	rewrite(q, builtinLib(t))
	return q
}

func TestVerdictCache(t *testing.T) {
	f := mustCompile(t, `kind | test("to" + "ol")`, nil) // not on the fast path
	if !f.pure {
		t.Fatal("a pure expression is not cached")
	}
	for _, s := range []string{`now - ts > 10`, `kind == "x" and (input | .a)`, `payload.x // halt`} {
		if f := mustCompile(t, s, nil); f.pure {
			t.Errorf("%s: cached", s)
		}
	}
	// The same member bytes give the same verdict; other bytes are looked
	// at afresh; errors come back for every event.
	lines := []string{`{"kind":"tool_call","n":1}`, `{"kind":"tool_call","n":2}`, `{"kind":"other"}`, `{"n":3}`, `{"kind":"tool_call"}`, `{"kind":7}`, `{"kind":7,"x":1}`}
	want := []bool{true, true, false, false, true, false, false}
	for i, l := range lines {
		ok, err := f.Match([]byte(l))
		if ok != want[i] {
			t.Errorf("%s: %v, want %v", l, ok, want[i])
		}
		if (err != nil) != (i >= 3 && i != 4) {
			t.Errorf("%s: err %v", l, err)
		}
	}
	if f.part.hits != 3 {
		t.Errorf("%d cache hits, want 3", f.part.hits)
	}
}

// Expressions whose partial decoding is easy to get wrong: what comes out
// of select, first, last and limit is the event itself when the argument
// yields it, and a named filter may hide a builtin the analysis knows
// (a user's def first(f) or def not reads what it likes).
func TestPartialAgreesOnTrickyExpressions(t *testing.T) {
	mine := builtinLib(t)
	if err := mine.Add("mine.jq", "def first(f): .kind;\ndef not: .agent_id == \"parent\";\n"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		expr string
		mine bool  // compiled with mine.jq
		want []int // indexes of sample that pass
	}{
		{`first(select(kind == "tool_call")) | keys | length > 6`, false, nil},
		{`first(select(kind == "tool_call")) | keys | length == 6`, false, []int{7, 8}},
		{`limit(1; select(kind == "tool_result")) | has("seq")`, false, []int{9}},
		{`first(payload.tool) == "tool_call"`, true, []int{7, 8}},
		{`not and (kind | test("_"))`, true, []int{10, 11, 12, 14}},
	}
	for _, tt := range tests {
		lib := builtinLib(t)
		if tt.mine {
			lib = mine
		}
		f, err := Compile(tt.expr, Options{Library: lib})
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		var got []int
		for i, line := range sample {
			checkPartial(t, f, tt.expr, []byte(line))
			if ok, _ := f.Match([]byte(line)); ok {
				got = append(got, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: selects %v, want %v", tt.expr, got, tt.want)
		}
	}
}

// A Filter compiled without a library decodes partially all the same.
func TestPartialWithoutLibrary(t *testing.T) {
	f, err := Compile(`payload.args.command | strings | test("rm")`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Partial() {
		t.Error("not decoded partially")
	}
	for i, line := range sample {
		ok, err := f.Match([]byte(line))
		if ok != (i == 7) || err != nil {
			t.Errorf("sample %d: %v %v", i, ok, err)
		}
	}
}
