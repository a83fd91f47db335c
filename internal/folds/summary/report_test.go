package summary

import (
	"slices"
	"testing"
)

// The cost of the reports for people: 4 decimals, half away from zero.
func TestCostText(t *testing.T) {
	for _, tt := range []struct {
		nano int64
		want string
	}{
		{0, "0.0000"}, {18_600_000, "0.0186"}, {49_999, "0.0000"}, {50_000, "0.0001"},
		{1_234_567_890, "1.2346"}, {-50_000, "-0.0001"}, {-49_999, "0.0000"}, {12_000_000_000, "12.0000"},
	} {
		if got := CostText(tt.nano); got != tt.want {
			t.Errorf("CostText(%d) = %q, want %q", tt.nano, got, tt.want)
		}
	}
}

// A problem is a value: its run, its kind and its numbers, the sentence
// made from them; the run's id is quoted in the sentence only.
func TestProblemValues(t *testing.T) {
	ls := lines([]byte(`{"seq":1,"ts":1793524443,"run_id":"r\u00011","agent_id":"a","kind":"run_started","payload":{}}
{"seq":2,"ts":1793524444,"run_id":"r\u00011","agent_id":"a","kind":"tool_call","payload":{"tool":"bash","args":{}}}
{"seq":3,"ts":1793524445,"run_id":"r\u00011","agent_id":"a","kind":"tool_call","payload":{"tool":"bash","args":{}}}
`))
	recs := summarise(t, Options{By: []Key{keyWords["run"]}}, ls).Report()
	got := recs[len(recs)-1].Problems
	want := []Problem{{Run: "r\x011", Kind: NoRunFinished}, {Run: "r\x011", Kind: CallsWithoutResult, N: 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("problems %+v, want %+v", got, want)
	}
	for i, s := range []string{`run "r\x011" has no run_finished`, `run "r\x011" has 2 tool_calls without a tool_result`} {
		if got[i].String() != s {
			t.Errorf("%+v: %q, want %q", got[i], got[i].String(), s)
		}
	}
	for _, p := range []struct {
		p    Problem
		want string
	}{
		{Problem{Run: "r", Kind: RunFinishedTimes, N: 2}, `run "r" has 2 run_finished events`},
		{Problem{Run: "r", Kind: RunFinishedEarly}, `run "r" has a run_finished not preceded by assistant_message or run_error`},
		{Problem{Run: "r", Kind: OpenCall, Call: "c\"1", Tool: "read"}, `run "r": tool call "c\"1" (read) started and never ended`},
		{Problem{Run: "r", Kind: OpenTurns, N: 1}, `run "r": 1 turn started and never ended`},
	} {
		if got := p.p.String(); got != p.want {
			t.Errorf("%+v: %q, want %q", p.p, got, p.want)
		}
	}
}
