package summary

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/pkg/event"
)

// Runs with a tool call that never ended cannot be frozen (their calls are
// looked up by id). Many of them (cut or crashed zot runs) must not make
// every later event a pass over all hot runs: the passes stay few, so the
// time stays linear in the events.
func TestFreezePassesWithManyOpenCalls(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	hotLimit = 8
	s := New(Options{By: []Key{keyWords["run"]}})
	const runs = 2000
	seq := 0
	for r := range runs {
		for _, ev := range []string{
			`"kind":"turn_start","payload":{"step":1}`,
			`"kind":"tool_execution_start","payload":{"id":"c1","name":"bash"}`,
			`"kind":"tool_execution_update","payload":{"id":"c1"}`,
			`"kind":"error","payload":{"message":"x"}`,
		} {
			seq++
			line := fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":"r_%d",%s}`, seq, 1782083692+seq, r, ev)
			if err := s.Add([]byte(line)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.runFreezes > 50 {
		t.Errorf("%d passes over the hot runs for %d events of %d runs: each event rescans them", s.runFreezes, seq, runs)
	}
	recs := s.Report()
	total := recs[len(recs)-1]
	if total.Runs != runs || total.Counts[record.ToolCalls] != runs || len(total.Problems) != 2*runs {
		t.Errorf("total: %d runs, %d tool calls, %d problems; want %d, %d, %d", total.Runs, total.Counts[record.ToolCalls], len(total.Problems), runs, runs, 2*runs)
	}
}

// A glasspane run whose agent_end has no time (ts null or 0) has no wall
// time: it must not count as agent_end's 0 minus the first event's time.
func TestWallWithoutAgentEndTime(t *testing.T) {
	for _, ts := range []string{`"ts":null,`, `"ts":0,`, ``} {
		s := New(Options{})
		for _, l := range []string{
			`{"seq":1,"ts":1782083692.5,"run_id":"r_1","kind":"turn_start","payload":{}}`,
			`{"seq":2,"ts":1782083693.5,"run_id":"r_1","kind":"turn_end","payload":{"stop":"end"}}`,
			`{"seq":3,` + ts + `"run_id":"r_1","kind":"agent_end","payload":{}}`,
		} {
			if err := s.Add([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		rec := s.Report()[0]
		if rec.WallSumUS != 0 || rec.Wall.Has {
			t.Errorf("agent_end with %q: wall sum %d us, stats %+v; want none", ts, rec.WallSumUS, rec.Wall)
		}
		if len(rec.Outcomes) != 1 || rec.Outcomes[0] != (record.Count{Name: "ok", N: 1}) {
			t.Errorf("agent_end with %q: outcomes %v, want ok 1", ts, rec.Outcomes)
		}
	}
}

// Where several spellings of the total are present the first one counts,
// as for every other counter (docs/evsum.md).
func TestUsageFirstSpellingCounts(t *testing.T) {
	tests := []struct {
		payload string
		want    [event.NumTokens]int64
	}{
		{`{"tokens":100,"total_tokens":7,"prompt_tokens":60,"input_tokens":1,"completion_tokens":40}`, [event.NumTokens]int64{60, 40, 0, 0, 100}},
		{`{"total_tokens":7,"tokens":100}`, [event.NumTokens]int64{0, 0, 0, 0, 7}},
		{`{"input":3,"output":4}`, [event.NumTokens]int64{3, 4, 0, 0, 7}},
		{`{"input":3,"output":4,"cumulative":{"input":30,"output":40},"cache_read":5,"cache_write":6}`, [event.NumTokens]int64{3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		s := New(Options{By: nil})
		line := `{"run_id":"r","kind":"usage","payload":` + tt.payload + `}`
		if err := s.Add([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if got := [event.NumTokens]int64(s.Report()[0].Counts[record.TokInput : record.TokInput+event.NumTokens]); got != tt.want {
			t.Errorf("%s: tokens %v, want %v", strings.TrimSpace(tt.payload), got, tt.want)
		}
	}
}

// A bound takes values while every sum of them fits, and is left as it was
// by one that would not.
func TestBound(t *testing.T) {
	const max, min = math.MaxInt64, math.MinInt64
	for _, tt := range []struct {
		vals []int64
		ok   []bool
	}{
		{[]int64{max, 0, -1, 1}, []bool{true, true, true, false}},
		{[]int64{9e18, 9e18}, []bool{true, false}},
		{[]int64{min, -1, 5}, []bool{true, false, true}},
		{[]int64{9e18, -9e18, 9e18}, []bool{true, true, false}},
	} {
		var b bound
		for i, v := range tt.vals {
			before := b
			if ok := b.add(v); ok != tt.ok[i] || !ok && b != before {
				t.Errorf("%v: add(%d) = %v (bound %+v), want %v", tt.vals, v, ok, b, tt.ok[i])
			}
		}
	}
}

// The report orders frozen groups and runs by their first time, read
// from the frozen form without thawing it: it is the time thawing gives.
func TestFrozenFirstTime(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	hotLimit = 1
	for _, by := range []string{"run", "agent", "day"} {
		keys, err := ParseBy(by)
		if err != nil {
			t.Fatal(err)
		}
		s := summarise(t, Options{By: keys}, lines(gpCorpus(t, 64<<10, 3, false)))
		if len(s.coldGroups) == 0 || len(s.coldRuns) == 0 {
			t.Fatalf("--by %s: nothing frozen", by)
		}
		for k, b := range s.coldGroups {
			g := decodeGroup(k, b)
			if ts, has := frozenGroupTS(b); ts != g.firstTS || has != g.hasTS {
				t.Errorf("--by %s: group %q: frozen first time %d %v, thawed %d %v", by, k, ts, has, g.firstTS, g.hasTS)
			}
		}
		for id, b := range s.coldRuns {
			r := decodeRun(id, b)
			if ts, has := frozenRunTS(b); ts != r.minTS || has != r.hasTS {
				t.Errorf("--by %s: run %q: frozen first time %d %v, thawed %d %v", by, id, ts, has, r.minTS, r.hasTS)
			}
		}
	}
}
