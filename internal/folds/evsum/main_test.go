package evsum_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"
	"testing"

	"github.com/evtools/evtools/internal/devtools/scripttest"
	"github.com/evtools/evtools/internal/shell/cli"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{"addsup": addsUp})
}

func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }

// addsUp is the scripts' check that a report adds up: it reads evsum's
// JSON Lines (the files named, or stdin) and checks that the event-level
// fields of the group records (events, model calls and errors, tokens,
// cost, tool calls and failures per tool, errors, guardrails, kills) sum
// to the total record's, and that each record's "models" sum to it; with
// -runs, the groups' runs too (true by run, where each group is one
// run). It says how many records it added, or what differs (exit 1).
func addsUp(args []string, stdio cli.Stdio) int {
	runs := len(args) > 0 && args[0] == "-runs"
	if runs {
		args = args[1:]
	}
	var in io.Reader = stdio.In
	if len(args) > 0 {
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintln(stdio.Err, err)
			return 2
		}
		defer f.Close()
		in = f
	}
	dec := json.NewDecoder(in)
	dec.UseNumber()
	var groups []map[string]any
	var total map[string]any
	for {
		var r map[string]any
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintln(stdio.Err, err)
			return 2
		}
		if g, _ := r["group"].(map[string]any); len(g) == 0 {
			total = r
		} else {
			groups = append(groups, r)
		}
	}
	if total == nil {
		fmt.Fprintln(stdio.Err, "no total record")
		return 1
	}
	bad := false
	check := func(what string, parts []map[string]any, whole map[string]any, withRuns bool) {
		sums := map[string]*big.Rat{}
		for _, p := range parts {
			for k, v := range flatten(p, withRuns) {
				if sums[k] == nil {
					sums[k] = new(big.Rat)
				}
				sums[k].Add(sums[k], v)
			}
		}
		want := flatten(whole, withRuns)
		var keys []string
		for k := range want {
			keys = append(keys, k)
		}
		for k := range sums {
			if want[k] == nil {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			got, w := sums[k], want[k]
			if got == nil {
				got = new(big.Rat)
			}
			if w == nil {
				w = new(big.Rat)
			}
			if got.Cmp(w) != 0 {
				fmt.Fprintf(stdio.Out, "%s: %s adds up to %s, not %s\n", what, k, got.FloatString(9), w.FloatString(9))
				bad = true
			}
		}
	}
	check("groups", groups, total, runs)
	models := 0
	for _, r := range append(groups, total) {
		ms, ok := r["models"].([]any)
		if !ok {
			continue
		}
		var parts []map[string]any
		for _, m := range ms {
			parts = append(parts, m.(map[string]any))
		}
		g, _ := json.Marshal(r["group"])
		check("models of "+string(g), parts, r, false)
		models += len(parts)
	}
	if bad {
		return 1
	}
	fmt.Fprintf(stdio.Out, "%d groups add up to the total", len(groups))
	if runs {
		fmt.Fprint(stdio.Out, ", runs too")
	}
	if models > 0 {
		fmt.Fprintf(stdio.Out, "; %d models add up to their records", models)
	}
	fmt.Fprintln(stdio.Out)
	return 0
}

// flatten is a record's event-level numbers by their flat names.
func flatten(r map[string]any, runs bool) map[string]*big.Rat {
	out := map[string]*big.Rat{}
	num := func(name string, v any) {
		if n, ok := v.(json.Number); ok {
			x, ok := new(big.Rat).SetString(string(n))
			if ok {
				out[name] = x
			}
		}
	}
	for _, k := range []string{"events", "model_calls", "model_errors", "cost_usd", "tool_calls", "tool_failures", "errors", "guardrails", "kills"} {
		num(k, r[k])
	}
	if runs {
		num("runs", r["runs"])
	}
	if t, ok := r["tokens"].(map[string]any); ok {
		for k, v := range t {
			num("tokens."+k, v)
		}
	}
	if t, ok := r["tools"].(map[string]any); ok {
		for name, c := range t {
			for k, v := range c.(map[string]any) {
				num("tools."+name+"."+k, v)
			}
		}
	}
	return out
}
