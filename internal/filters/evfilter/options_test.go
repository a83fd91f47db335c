package evfilter

import (
	"io"
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/google/go-cmp/cmp"
)

// --arg and --argjson bind the names jq accepts after a $ (a letter or _,
// then letters, digits and _), and refuse the others with a usage error
// instead of binding a variable no expression can name.
func TestVarNames(t *testing.T) {
	valid := []string{"a", "z", "A", "Z", "_", "tool", "Tool_2", "x0", "x9", "_9"}
	invalid := []string{"", "0", "9", "1a", "@", "[", "`", "{", "a/", "a:", "a-b", "é", "a b"}
	for _, n := range valid {
		rest, vars, err := takeVars([]string{"--arg", n, "v", "--argjson", n + "j", `["x"]`, "$" + n, "f"})
		if err != nil {
			t.Errorf("--arg %q: %v", n, err)
			continue
		}
		want := map[string]any{n: "v", n + "j": []any{"x"}}
		if diff := cmp.Diff(want, vars); diff != "" || !cmp.Equal(rest, []string{"$" + n, "f"}) {
			t.Errorf("--arg %q: vars (-want +got):\n%s\nrest %q", n, diff, rest)
		}
	}
	for _, n := range invalid {
		for _, flag := range []string{"--arg", "--argjson"} {
			_, _, err := takeVars([]string{flag, n, "1", "true"})
			if err == nil || !strings.Contains(err.Error(), "not a variable name") {
				t.Errorf("%s %q: err %v, want not a variable name", flag, n, err)
			}
		}
	}
}

// Memory stays flat: evfilter sets a soft memory limit of 16 MB and a GC
// percent of 200 under it (docs/evfilter.md), unless GOMEMLIMIT is set; a
// GOGC the user sets is kept.
func TestMemorySettings(t *testing.T) {
	const userLimit, userGC = math.MaxInt64 - 1, 77
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tt := range []struct {
		gomemlimit, gogc string
		limit            int64
		gc               int
	}{
		{"", "", mem.Limit, 200},
		{"", "50", mem.Limit, userGC},
		{"1GiB", "", userLimit, userGC},
		{"1GiB", "50", userLimit, userGC},
	} {
		t.Setenv("GOMEMLIMIT", tt.gomemlimit)
		t.Setenv("GOGC", tt.gogc)
		// What the runtime took from the environment at start.
		debug.SetMemoryLimit(userLimit)
		debug.SetGCPercent(userGC)
		in := strings.NewReader(`{"kind":"tool_call"}` + "\n")
		if code := Main([]string{`kind=="tool_call"`}, cli.Stdio{In: in, Out: io.Discard, Err: io.Discard}); code != 0 {
			t.Fatalf("exit %d", code)
		}
		limit := debug.SetMemoryLimit(-1)
		gc := debug.SetGCPercent(userGC)
		if limit != tt.limit || gc != tt.gc {
			t.Errorf("GOMEMLIMIT=%q GOGC=%q: memory limit %d, GC percent %d; want %d, %d",
				tt.gomemlimit, tt.gogc, limit, gc, tt.limit, tt.gc)
		}
	}
}

// A bad --argjson value is quoted only as far as a line allows, with where
// the JSON goes wrong: a 120 KB argument is not echoed back (#22).
func TestArgJSONErrorShort(t *testing.T) {
	big := "[" + strings.Repeat("1,", 60000) + "x]"
	for _, tt := range []struct{ v, want string }{
		{`{bad`, "--argjson x: not valid JSON at byte 2 (invalid character 'b' looking for beginning of object key string): {bad"},
		{`[1,`, "--argjson x: not valid JSON at byte 3 (unexpected end of JSON input): [1,"},
		// Up to 40 bytes a value is shown whole; past it, its first 32.
		{`["a","bb","cc","dd","ee","ff","gg","hh",`, "--argjson x: not valid JSON at byte 40 (unexpected end of JSON input): [\"a\",\"bb\",\"cc\",\"dd\",\"ee\",\"ff\",\"gg\",\"hh\","},
		{big, "--argjson x: not valid JSON at byte 120002 (invalid character 'x' looking for beginning of value): [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1... (120003 bytes)"},
	} {
		_, _, err := takeVars([]string{"--argjson", "x", tt.v, "true"})
		if err == nil || err.Error() != tt.want {
			t.Errorf("--argjson x %.20s: %v\nwant %s", tt.v, err, tt.want)
		}
	}
}
