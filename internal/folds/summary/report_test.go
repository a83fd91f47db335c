package summary

import (
	"slices"
	"testing"

	"github.com/evtools/evtools/internal/folds/record"
)

// A problem is a value: its run, its kind and its numbers, the sentence
// made from them; the run's id is quoted in the sentence only.
func TestProblemValues(t *testing.T) {
	ls := lines([]byte(`{"seq":1,"ts":1793524443,"run_id":"r\u00011","agent_id":"a","kind":"run_started","payload":{}}
{"seq":2,"ts":1793524444,"run_id":"r\u00011","agent_id":"a","kind":"tool_call","payload":{"tool":"bash","args":{}}}
{"seq":3,"ts":1793524445,"run_id":"r\u00011","agent_id":"a","kind":"tool_call","payload":{"tool":"bash","args":{}}}
`))
	recs := summarise(t, Options{By: []Key{keyWords["run"]}}, ls).Report()
	got := recs[len(recs)-1].Problems
	want := []record.Problem{{Run: "r\x011", Kind: record.NoRunFinished}, {Run: "r\x011", Kind: record.CallsWithoutResult, N: 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("problems %+v, want %+v", got, want)
	}
	for i, s := range []string{`run "r\x011" has no run_finished`, `run "r\x011" has 2 tool_calls without a tool_result`} {
		if got[i].String() != s {
			t.Errorf("%+v: %q, want %q", got[i], got[i].String(), s)
		}
	}
	for _, p := range []struct {
		p    record.Problem
		want string
	}{
		{record.Problem{Run: "r", Kind: record.RunFinishedTimes, N: 2}, `run "r" has 2 run_finished events`},
		{record.Problem{Run: "r", Kind: record.RunFinishedEarly}, `run "r" has a run_finished not preceded by assistant_message or run_error`},
		{record.Problem{Run: "r", Kind: record.OpenCall, Call: "c\"1", Tool: "read"}, `run "r": tool call "c\"1" (read) started and never ended`},
		{record.Problem{Run: "r", Kind: record.OpenTurns, N: 1}, `run "r": 1 turn started and never ended`},
	} {
		if got := p.p.String(); got != p.want {
			t.Errorf("%+v: %q, want %q", p.p, got, p.want)
		}
	}
}
