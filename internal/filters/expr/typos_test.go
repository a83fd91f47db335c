package expr

import (
	"errors"
	"fmt"
	"testing"
)

// A bare name read as a field that no event has is reported by Nulls,
// whichever engine runs the expression; once an event has it, it is not
// (#6).
func TestNulls(t *testing.T) {
	for _, tt := range []struct {
		src      string
		fast     bool
		partial  bool
		compared bool
	}{
		{`kind == "x" or foo == 1`, true, true, false},
		{`kind == foo`, false, true, true},
		{`(keys | length > 9) or foo`, false, false, false},
	} {
		f := mustCompile(t, tt.src, nil)
		if f.Fast() != tt.fast || f.Partial() != tt.partial {
			t.Errorf("%s: fast %v partial %v", tt.src, f.Fast(), f.Partial())
		}
		g := f.Clone()
		for _, l := range []string{`{"kind":"a"}`, `{"kind":"x","foo":null}`, `{"kind":"a"}`} {
			f.Match([]byte(l))
			g.Match([]byte(l))
		}
		if got := f.Nulls(g); len(got) != 1 || got[0] != (Field{Name: "foo", Compared: tt.compared}) {
			t.Errorf("%s: Nulls %v", tt.src, got)
		}
		g.Match([]byte(`{"kind":"a","foo":2}`))
		if got := f.Nulls(g); len(got) != 0 {
			t.Errorf("%s: Nulls %v after foo:2", tt.src, got)
		}
	}
	// Not for names in defs, after pipes, or the named filters' fields.
	f := mustCompile(t, `def g: bar; (payload | baz) or g or failed`, nil)
	f.Match([]byte(`{"kind":"a","payload":{}}`))
	if got := f.Nulls(); len(got) != 0 {
		t.Errorf("Nulls %v", got)
	}
}

func TestMisuse(t *testing.T) {
	for _, src := range []string{`kind = "x"`, `.a |= 1`, `{kind}`, `select(kind = "x")`, `true and {a: 1}`, `tool`, `costly > 1`, `agent and true`} {
		_, err := Compile(src, Options{Library: builtinLib(t)})
		var me *MisuseError
		if !errors.As(err, &me) {
			t.Errorf("%s: %v, want a MisuseError", src, err)
		}
	}
	for _, src := range []string{`payload.model`, `{a: 1} | .a == 1`, `kind == "x" | not`, `if kind == "a" then {} else null end`, `def tool: 1; tool`, `payload | tool == "x"`, `.tool == "x"`} {
		if _, err := Compile(src, Options{Library: builtinLib(t)}); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// A bare name that is the whole argument of a named filter carries the
// call, as written and with the name quoted, for evfilter to refuse it.
func TestNullArgument(t *testing.T) {
	for src, want := range map[string]Field{
		`tool(Bash)`:                        {Name: "Bash", Call: `tool(Bash)`, Quoted: `tool("Bash")`},
		`def f($a; $b): .x == $b; f(1; ok)`: {Name: "ok", Call: `f(1; ok)`, Quoted: `f(1; "ok")`},
		`tool(payload.x | Bash) or Bash`:    {Name: "Bash"},
	} {
		f := mustCompile(t, src, nil)
		f.Match([]byte(`{"kind":"tool_call","payload":{"tool":"Bash"}}`))
		if got := f.Nulls(); len(got) != 1 || got[0] != want {
			t.Errorf("%s: Nulls %+v, want %+v", src, got, want)
		}
	}
}

// A string where a named filter orders its parameter against numbers is
// refused, with the number meant when there is one.
func TestStringForNumber(t *testing.T) {
	for src, want := range map[string]string{
		`slow("10s")`:   `bad expression: slow("10s"): $ms is compared as a number, not a string; did you mean slow(10000)?`,
		`slow("1.5m")`:  `bad expression: slow("1.5m"): $ms is compared as a number, not a string; did you mean slow(90000)?`,
		`costly("0.5")`: `bad expression: costly("0.5"): $usd is compared as a number, not a string; did you mean costly(0.5)?`,
		`costly("$1")`:  `bad expression: costly("$1"): $usd is compared as a number, not a string`,
		`slow(10000)`:   ``,
		`tool("10s")`:   ``,
	} {
		_, err := Compile(src, Options{Library: builtinLib(t)})
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}
