package expr

import (
	"errors"
	"strings"
	"testing"
)

// Endless recursion in a def is an evaluation error on that event, not a
// process that grows until it dies (#22); recursion that ends, and names
// that are not the expression's defs, work as before.
func TestDepthBound(t *testing.T) {
	line := []byte(`{"kind":"tool_call","n":3,"payload":{"tool":"read"}}`)
	for _, src := range []string{`def f: 1+f; f`, `def f: [f]; f | length > 0`, `def g: def h: g; h; g`} {
		f := mustCompile(t, src, nil)
		ok, err := f.Match(line)
		var ee *EvalError
		if ok || !errors.As(err, &ee) || !strings.Contains(err.Error(), "deeper than 10000") {
			t.Errorf("%s: %v %v, want a depth error", src, ok, err)
		}
	}
	for _, src := range []string{
		`def fact: if . <= 1 then 1 else . * (. - 1 | fact) end; (n | fact) == 6`,
		`def down: if . > 0 then . - 1 | down else . end; (9000 | down) == 0`,
		`def tool: 1; tool("read") and tool == 1`,
		`def f(g): g; def h($x): $x + 1; f(h(n)) == 4`,
		`def f: def f: 3; f; f == 3`,
		`kind == "tool_call"`,
	} {
		f := mustCompile(t, src, nil)
		if ok, err := f.Match(line); !ok || err != nil {
			t.Errorf("%s: %v %v, want a pass", src, ok, err)
		}
	}
}

// An expression nested past maxNesting is refused with a message, not a
// stack overflow of the process (gojq's compiler recurses once a level);
// one nested a few thousand levels deep still compiles and runs.
func TestNestedTooDeeply(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("[", 500000) + "." + strings.Repeat("]", 500000),
		strings.Repeat("(", 500000) + `kind=="x"` + strings.Repeat(")", 500000),
		strings.Repeat("{a:", 200000) + "." + strings.Repeat("}", 200000),
		strings.Repeat(".a|", 300000) + ".",
	} {
		_, err := Compile(src, Options{})
		if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("Compile(%.20q...): %v; want an error saying it is nested too deeply", src, err)
		}
	}
	f, err := Compile(strings.Repeat("[", 2000)+"kind"+strings.Repeat("]", 2000)+` | flatten[0]=="x"`, Options{})
	if err != nil {
		t.Fatalf("2,000 levels: %v", err)
	}
	if ok, err := f.Match([]byte(`{"kind":"x"}`)); !ok || err != nil {
		t.Errorf("2,000 levels: match %v, %v; want true", ok, err)
	}
	var lib Library
	if err := lib.Add("deep.jq", "def f: "+strings.Repeat("[", 500000)+"."+strings.Repeat("]", 500000)+";"); err == nil || !strings.Contains(err.Error(), "deep.jq: expression nested too deeply") {
		t.Errorf("a filters file nested too deeply: %v", err)
	}
}
