package expr

import (
	"slices"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

func TestRewrite(t *testing.T) {
	lib := &Library{}
	if err := lib.Add("test", "def failed: .kind == \"error\";\ndef agent($id): .agent_id == $id;\n"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{`kind=="tool_call"`, `.kind == "tool_call"`},
		{`payload.tool=="bash"`, `.payload.tool == "bash"`},
		{`payload.args.command | test("rm -rf")`, `.payload.args.command | test("rm -rf")`},
		{`.kind=="x"`, `.kind == "x"`},
		{`select(.kind=="x")`, `select(.kind == "x")`},
		// type and error are fields where the input is the event...
		{`type=="tool_result" and is_error`, `.type == "tool_result" and .is_error`},
		{`select(type=="x")`, `select(.type == "x")`},
		{`error | test("401")`, `.error | test("401")`},
		{`(type)`, `(.type)`},
		{`if type == "x" then true else false end`, `if .type == "x" then true else false end`},
		{`kind as $k | type`, `.kind as $k | .type`},
		// ...and builtins where it is not.
		{`payload | type == "object"`, `.payload | type == "object"`},
		{`. | type`, `. | type`},
		{`map(type)`, `map(type)`},
		{`error("boom")`, `error("boom")`},
		{`try error catch type`, `try .error catch type`},
		// other builtins stay builtins
		{`kind == "x" | not`, `.kind == "x" | not`},
		{`payload.content | length > 1`, `.payload.content | length > 1`},
		{`if kind == "x" then . else empty end`, `if .kind == "x" then . else empty end`},
		{`payload | keys`, `.payload | keys`},
		{`.length`, `.length`},
		// after a pipe a bare name reads the field of what came through
		{`payload | tool == "bash"`, `.payload | .tool == "bash"`},
		// named filters and the expression's own defs are calls
		{`failed and agent_id == "parent"`, `failed and .agent_id == "parent"`},
		{`agent("x")`, `agent("x")`},
		{`def bash: payload.tool == "bash"; bash`, `def bash: .payload.tool == "bash"; bash`},
		{`def f(g): g | x; f(y)`, `def f(g): g | .x; f(.y)`},
		{`def f($v): v == x; f(kind)`, `def f($v): v == .x; f(.kind)`},
		// variables, object shorthand, string interpolation, reduce
		{`$x == kind`, `$x == .kind`},
		{`{kind, a: seq}`, `{ kind, a: .seq }`},
		{`"\(kind)/\(type)" == "a/b"`, `"\(.kind)/\(.type)" == "a/b"`},
		{`reduce payload[] as $x (0; . + $x)`, `reduce .payload[] as $x (0; . + $x)`},
		{`kind | IN("a", "b")`, `.kind | IN("a", "b")`},
		{`seq > 10 and ts <= 1.5`, `.seq > 10 and .ts <= 1.5`},
		{`payload["x-y"] == 1`, `.payload["x-y"] == 1`},
		{`true and null == false`, `true and null == false`},
		// destructuring: key expressions read the event; $name keys bind
		{`. as {(kind): $v} | $v`, `. as {(.kind): $v} | $v`},
		{`payload as {$tool, args: [$a]} | $tool == x`, `.payload as {$tool, args: [$a]} | $tool == .x`},
	}
	for _, tt := range tests {
		q, err := gojq.Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		rewrite(q, lib)
		if got := q.String(); got != tt.want {
			t.Errorf("rewrite(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// jq builtins that gojq lacks are an error, not a field read: a jq user
// asking for input_line_number must not silently get .input_line_number,
// always null, and no event.
func TestJqOnlyBuiltins(t *testing.T) {
	for _, src := range []string{`input_line_number > 3`, `get_search_list`, `have_decnum`, `payload | input_line_number`,
		`debug`, `stderr`, `input_filename`, `kind == "x" | debug`, `input_filename == "a.jsonl"`, `inputs`} {
		if _, err := Compile(src, Options{Library: builtinLib(t)}); err == nil {
			t.Errorf("%s: compiled, want an error", src)
		} else {
			t.Logf("%s: %v", src, err)
		}
	}
	// input is a field of zot's usage lines: evfilter has no input builtin.
	f := mustCompile(t, `type == "usage" and input > 100`, nil)
	if ok, err := f.Match([]byte(`{"type":"usage","input":3218}`)); !ok || err != nil {
		t.Errorf("input as a field: %v %v", ok, err)
	}
}

// The shorthand's list of jq builtins is the one list: every builtin gojq
// has is on it, and every name on it that gojq lacks is refused by gojq
// ("function not defined"), never read as a field.
func TestBuiltinList(t *testing.T) {
	q, err := gojq.Parse(`builtins`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gojq.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := c.Run(nil).Next()
	for _, b := range v.([]any) {
		name, ok := strings.CutSuffix(b.(string), "/0")
		if ok && !jqBuiltins[name] {
			t.Errorf("gojq's builtin %s/0 is not on the list", name)
		}
	}
	for name := range jqBuiltins {
		q, err := gojq.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		rewrite(q, nil)
		if name == "input" || slices.Contains(EventFields, name) {
			continue
		}
		if got := q.String(); got != name {
			t.Errorf("%s rewritten to %s", name, got)
		}
	}
}
