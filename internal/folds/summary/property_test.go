package summary

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// randomEvents makes a short stream of both vocabularies over a few runs:
// zot tool calls by id (started by tool_execution_start, tool_call or
// both, ended or not) whose events may fall in different parts, turns,
// run_finished in any place, times missing now and then, a session that
// changes within a run or is missing.
func randomEvents(rng *rand.Rand) [][]byte {
	kinds := []string{
		`"kind":"model_call","payload":{"model":"m%d"}`,
		`"kind":"model_result","payload":{"prompt_tokens":%d,"completion_tokens":7,"tokens":19,"cost_usd":0.000123,"latency_ms":350.5}`,
		`"kind":"model_error","payload":{"n":%d}`,
		`"kind":"run_error","payload":{"n":%d}`,
		`"kind":"assistant_message","payload":{"n":%d}`,
		`"kind":"killed","payload":{"n":%d}`,
		`"kind":"guardrail","payload":{"tool":"bash","n":%d}`,
		`"kind":"user_message","payload":{"n":%d}`,
		`"kind":"run_finished","payload":{"outcome":"o%d","wall_seconds":1.25}`,
		`"kind":"tool_call","payload":{"tool":"t%d"}`,
		`"kind":"tool_result","payload":{"tool":"t%d","ok":false}`,
		`"kind":"turn_start","payload":{"step":%d}`,
		`"kind":"turn_end","payload":{"stop":"error","n":%d}`,
		`"kind":"turn_end","payload":{"stop":"end","n":%d}`,
		`"kind":"usage","payload":{"input":%d,"output":3,"cache_read":2,"cost_usd":0.0000105}`,
		`"kind":"error","payload":{"n":%d}`,
		`"kind":"agent_end","payload":{"n":%d}`,
		`"kind":"agent_spawned","payload":{"role":"r%d"}`,
		`"kind":"agent_finished","payload":{"outcome":"o%d","wall_seconds":2}`,
		`"kind":"agent_finished","payload":{"n":%d}`,
	}
	// A zot call's events come in this order; any may be missing, but a
	// call is started somehow, and an id is never used again.
	type zotCall struct {
		run    int
		events []string
	}
	var calls []*zotCall
	nextID := 0
	n := 1 + rng.IntN(60)
	ls := make([][]byte, n)
	for i := range ls {
		r := rng.IntN(4)
		var ev string
		switch x := rng.IntN(10); {
		case x < 2:
			id := fmt.Sprintf(`{"id":"c%d","name":"t%d"`, nextID, rng.IntN(2))
			nextID++
			c := &zotCall{run: r}
			start, dup := rng.IntN(3) > 0, rng.IntN(2) == 0
			if start {
				c.events = append(c.events, `"kind":"tool_execution_start","payload":`+id+`}`)
			}
			if dup || !start {
				c.events = append(c.events, `"kind":"tool_call","payload":`+id+`}`)
			}
			if rng.IntN(2) == 0 {
				c.events = append(c.events, `"kind":"tool_execution_update","payload":`+id[:strings.Index(id, ",")]+`}`)
			}
			if rng.IntN(6) > 0 {
				c.events = append(c.events, fmt.Sprintf(`"kind":"tool_execution_end","payload":%s,"is_error":%v}`, id[:strings.Index(id, ",")], rng.IntN(2) == 0))
			}
			calls = append(calls, c)
			fallthrough
		case x < 5 && len(calls) > 0:
			k := rng.IntN(len(calls))
			c := calls[k]
			r, ev = c.run, c.events[0]
			if c.events = c.events[1:]; len(c.events) == 0 {
				calls = append(calls[:k], calls[k+1:]...)
			}
		default:
			ev = fmt.Sprintf(kinds[rng.IntN(len(kinds))], rng.IntN(3))
		}
		run := fmt.Sprintf(`"run_id":"r_%d",`, r)
		switch rng.IntN(12) {
		case 0:
			run = ""
		case 1:
			run = `"run_id":null,`
		}
		ts := fmt.Sprintf(`"ts":%d.%03d,`, 1793520000+i, rng.IntN(1000))
		switch rng.IntN(10) {
		case 0:
			ts = ""
		case 1:
			ts = `"ts":0,`
		}
		// a run's session, as evimport writes it; now and then another,
		// or none, as in a log evimport did not write
		session := fmt.Sprintf(`,"session":"s%d"`, r%2)
		switch i % 7 {
		case 3:
			session = `,"session":"s9"`
		case 5:
			session = ""
		}
		ls[i] = fmt.Appendf(nil, `{"seq":%d,%s%s"agent_id":"a%d",%s%s}`, i+1, ts, run, rng.IntN(3), ev, session)
	}
	return ls
}

// canonical thaws every group and run of s and puts them in one form:
// what the state means, not the order things arrived in (tools and exact
// sketch values sorted, a group's runs as one set, an empty glasspane
// part as none, no start time for a closed turn).
func canonical(s *State) (map[string]*group, map[string]*run) {
	gs, rs := map[string]*group{}, map[string]*run{}
	for _, k := range s.groupKeys() {
		g := *s.peekGroup(k)
		g.tools = append([]toolCount(nil), g.tools...)
		sort.Slice(g.tools, func(i, j int) bool { return g.tools[i].name < g.tools[j].name })
		g.latency.data = append([]uint64(nil), g.latency.data...)
		if !g.latency.bucketed() {
			sort.Slice(g.latency.data, func(i, j int) bool { return g.latency.data[i] < g.latency.data[j] })
		}
		runs := map[string]struct{}{}
		g.eachRun(func(r string) { runs[r] = struct{}{} })
		g.run, g.runs = "", runs
		gs[k] = &g
	}
	for _, id := range s.runIDs() {
		r := *s.peekRun(id)
		if r.glass != nil {
			gl := *r.glass
			// a turn's start time means nothing once it is closed
			if !gl.turns.open {
				gl.turns.openTS, gl.turns.openHasTS = 0, false
			}
			if len(gl.calls) == 0 {
				gl.calls = nil
			}
			r.glass = &gl
			if !gl.glassError && !gl.agentEnd && gl.agentEndTS == 0 && gl.turns == (turnSeg{}) && gl.calls == nil {
				r.glass = nil
			}
		}
		if len(r.agents) == 0 {
			r.agents = nil
		}
		rs[id] = &r
	}
	return gs, rs
}

var stateOpts = cmp.Options{
	cmp.AllowUnexported(group{}, run{}, glassRun{}, turnSeg{}, call{}, sketch{}, toolCount{}, agentSpan{}),
}

func sameState(t *testing.T, what string, got, want *State) {
	t.Helper()
	gg, gr := canonical(got)
	wg, wr := canonical(want)
	if d := cmp.Diff(wg, gg, stateOpts); d != "" {
		t.Fatalf("%s: groups differ (-one pass +other):\n%s", what, d)
	}
	if d := cmp.Diff(wr, gr, stateOpts); d != "" {
		t.Fatalf("%s: runs differ (-one pass +other):\n%s", what, d)
	}
}

// Random states, frozen all the time or never, and cut into parts that are
// written with WritePartial, read back and merged in order, are the same
// whole value as the one-pass state, and give the same report; with
// --breakdown model too.
func TestPropertyFreezePartialMerge(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	bys := []string{"run", "agent", "kind", "model,hour", "none", "agent,payload.n", "session", "session,hour"}
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		ls := randomEvents(rng)
		keys, err := ParseBy(bys[iter%len(bys)])
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{By: keys}
		if iter%3 == 2 {
			// per-model parts of each group survive freezing, partial
			// states and merging (TestPropertyBreakdown checks more)
			opt.Breakdown, _ = ParseBreakdown("model")
		}
		hotLimit = 1 << 20
		hot := summarise(t, opt, ls)
		hotLimit = 1
		frozen := summarise(t, opt, ls)
		sameState(t, fmt.Sprintf("iteration %d, frozen", iter), frozen, hot)

		parts := 1 + rng.IntN(4)
		cuts := []int{0}
		for range parts - 1 {
			cuts = append(cuts, rng.IntN(len(ls)+1))
		}
		cuts = append(cuts, len(ls))
		sort.Ints(cuts)
		m := NewMerger()
		for i := range parts {
			roundTrip(t, m, summarise(t, opt, ls[cuts[i]:cuts[i+1]]))
		}
		what := fmt.Sprintf("iteration %d, --by %s --breakdown %q, cut at %v:\n%s", iter, ByString(keys), breakdownString(opt.Breakdown), cuts, bytes.Join(ls, []byte("\n")))
		sameState(t, what, m.State, hot)
		if got, want := report(t, m.State), report(t, hot); got != want {
			t.Fatalf("%s\nreport differs\n%s", what, firstDiff(got, want))
		}
	}
}
