package summary

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/evtools/evtools/internal/folds/record"
	"github.com/itchyny/gojq"
)

// jqTotals runs a jq program over the events of data, independently of
// this package (gojq over encoding/json), and returns its single result.
func jqTotals(t *testing.T, data []byte, program string) map[string]any {
	t.Helper()
	q, err := gojq.Parse(program)
	if err != nil {
		t.Fatal(err)
	}
	var events []any
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var e any
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	code, err := gojq.Compile(q, gojq.WithInputIter(gojq.NewIter(events...)))
	if err != nil {
		t.Fatal(err)
	}
	v, ok := code.Run(nil).Next()
	if !ok {
		t.Fatal("jq gave no result")
	}
	if err, ok := v.(error); ok {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

func num(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// check compares the evsum total with jq's numbers; cost to the 1e-8 the
// corpora write.
func check(t *testing.T, total record.Record, jq map[string]any) {
	t.Helper()
	outcomes := map[string]any{}
	for _, o := range total.Outcomes {
		outcomes[o.Name] = float64(o.N)
	}
	got := map[string]float64{
		"events": float64(total.Counts[record.Events]), "runs": float64(total.Runs), "model_calls": float64(total.Counts[record.ModelCalls]),
		"model_errors": float64(total.Counts[record.ModelErrors]), "input": float64(total.Counts[record.TokInput+0]), "output": float64(total.Counts[record.TokInput+1]),
		"cache_read": float64(total.Counts[record.TokInput+2]), "total": float64(total.Counts[record.TokInput+4]), "tool_calls": float64(total.Counts[record.ToolCalls]),
		"tool_failures": float64(total.Counts[record.ToolFailures]), "errors": float64(total.Counts[record.Errors]), "guardrails": float64(total.Counts[record.Guardrails]),
		"kills": float64(total.Counts[record.Kills]),
	}
	for k, g := range got {
		if w := num(jq[k]); g != w {
			t.Errorf("%s: evsum %v, jq %v", k, g, w)
		}
	}
	if g, w := math.Round(float64(total.Counts[record.CostNano])/1e9*1e8), math.Round(num(jq["cost"])*1e8); g != w {
		t.Errorf("cost: evsum %v, jq %v", float64(total.Counts[record.CostNano])/1e9, jq["cost"])
	}
	for name, w := range jq["outcomes"].(map[string]any) {
		if num(outcomes[name]) != num(w) {
			t.Errorf("outcome %s: evsum %v, jq %v", name, outcomes[name], w)
		}
	}
	if total.Runs == 0 || total.Counts[record.ToolCalls] == 0 || total.Counts[record.ToolFailures] == 0 || total.Counts[record.Errors] == 0 {
		t.Errorf("corpus too small to check anything: %+v", total)
	}
}

const jqRunLog = `reduce inputs as $e ({events: 0, ids: {}, model_calls: 0, model_errors: 0, input: 0, output: 0,
  cache_read: 0, total: 0, cost: 0, tool_calls: 0, tool_failures: 0, errors: 0, guardrails: 0, kills: 0, outcomes: {}};
  .events += 1 | .ids[$e.run_id] = true | $e.payload as $p |
  if $e.kind == "model_call" then .model_calls += 1
  elif $e.kind == "model_result" then .input += $p.prompt_tokens | .output += $p.completion_tokens | .total += $p.tokens | .cost += $p.cost_usd
  elif $e.kind == "model_error" then .model_errors += 1 | .errors += 1
  elif $e.kind == "run_error" then .errors += 1
  elif $e.kind == "killed" then .errors += 1 | .kills += 1
  elif $e.kind == "guardrail" then .guardrails += 1
  elif $e.kind == "tool_call" then .tool_calls += 1
  elif $e.kind == "tool_result" and $p.ok == false then .tool_failures += 1
  elif $e.kind == "run_finished" then .outcomes[$p.outcome] += 1
  else . end) | .runs = (.ids | length)`

// The glasspane vocabulary: a call is an id seen in tool_execution_start
// or tool_call; tokens and cost from usage only.
const jqGlasspane = `reduce inputs as $e ({events: 0, ids: {}, model_calls: 0, model_errors: 0, input: 0, output: 0,
  cache_read: 0, total: 0, cost: 0, calls: {}, tool_failures: 0, errors: 0, guardrails: 0, kills: 0, ends: {}, errs: {}};
  .events += 1 | .ids[$e.run_id] = true | $e.payload as $p |
  if $e.kind == "turn_start" then .model_calls += 1
  elif $e.kind == "turn_end" and $p.stop == "error" then .model_errors += 1
  elif $e.kind == "usage" then .input += ($p.input // 0) | .output += ($p.output // 0) | .cache_read += ($p.cache_read // 0)
    | .total += (($p.input // 0) + ($p.output // 0)) | .cost += ($p.cost_usd // 0)
  elif $e.kind == "error" then .errors += 1 | .errs[$e.run_id] = true
  elif $e.kind == "agent_end" then .ends[$e.run_id] = true
  elif ($e.kind == "tool_execution_start" or $e.kind == "tool_call") then .calls[$e.run_id + " " + $p.id] = true
  elif $e.kind == "tool_execution_end" and $p.is_error == true then .tool_failures += 1
  else . end)
  | .runs = (.ids | length) | .tool_calls = (.calls | length)
  | . as $s | .outcomes = ([.ids | keys[] as $r | if $s.errs[$r] then "error" elif $s.ends[$r] then "ok" else "incomplete" end]
      | group_by(.) | map({(.[0]): length}) | add)`

// The totals evsum computes equal what an independent jq program computes
// from the same events, on generated corpora of both vocabularies.
func TestTotalsMatchJQ(t *testing.T) {
	t.Run("envelope", func(t *testing.T) {
		data := envelopeCorpus(t, 512<<10, 11)
		recs := summarise(t, Options{By: []Key{keyWords["run"]}}, lines(data)).Report()
		check(t, recs[len(recs)-1], jqTotals(t, data, jqRunLog))
	})
	for _, ui := range []bool{false, true} {
		name := "gp"
		if ui {
			name = "gp --ui"
		}
		t.Run(name, func(t *testing.T) {
			data := gpCorpus(t, 512<<10, 11, ui)
			recs := summarise(t, Options{By: []Key{keyWords["agent"]}}, lines(data)).Report()
			jq := jqTotals(t, data, jqGlasspane)
			if ui {
				jq["input"], jq["output"], jq["cache_read"], jq["total"], jq["cost"] = 0, 0, 0, 0, 0.0
			}
			check(t, recs[len(recs)-1], jq)
		})
	}
}
