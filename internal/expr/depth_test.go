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
