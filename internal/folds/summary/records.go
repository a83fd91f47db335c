package summary

import (
	"cmp"
	"encoding/json"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evtools/evtools/internal/folds/record"
)

// stats are the percentiles of s, rounded to 1/round.
func stats(s *sketch, round float64) record.Stats {
	if s.n == 0 {
		return record.Stats{}
	}
	var p50, p95 float64
	if s.bucketed() {
		p50, _ = s.quantile(0.5)
		p95, _ = s.quantile(0.95)
	} else {
		// Quantile of an exact sketch sorts a copy of its values: one
		// copy, sorted once, kept for the next record
		vs := sortedValues.Get().(*[]float64)
		*vs = (*vs)[:0]
		for _, x := range s.data {
			*vs = append(*vs, math.Float64frombits(x))
		}
		slices.Sort(*vs)
		p50, p95 = (*vs)[s.rank(0.5)-1], (*vs)[s.rank(0.95)-1]
		sortedValues.Put(vs)
	}
	r := func(v float64) float64 { return math.Round(v*round) / round }
	return record.Stats{Has: true, P50: r(p50), P95: r(p95), Max: s.max}
}

var sortedValues = sync.Pool{New: func() any { return new([]float64) }}

// outcomeName is how a run ended: run_finished's outcome (the run-log
// vocabulary); for the glasspane vocabulary, error when it had an error
// event, else ok when it reached agent_end;
// incomplete when it has no end; running when it has no end yet and its
// last event is recent (see SetRunning).
func (r *run) outcomeName(rn running) string {
	switch {
	case r.n[rFinished] > 0:
		if r.outcome == "" {
			return "unknown"
		}
		return r.outcome
	case r.glassOrEmpty().glassError:
		return "error"
	case r.glassOrEmpty().agentEnd:
		return "ok"
	case rn.is(r):
		return "running"
	}
	return "incomplete"
}

// running says which runs without an end are still going: those whose
// last event is at or after from.
type running struct {
	on   bool
	from int64 // Unix microseconds
}

// is reports whether r has no end yet and is still going.
func (rn running) is(r *run) bool {
	return rn.on && r.hasTS && r.maxTS >= rn.from && r.n[rFinished] == 0 && !r.glassOrEmpty().agentEnd
}

// SetRunning makes the report tell runs still going from runs cut off: a
// run without its end (run_finished, agent_end) whose last event is at or
// after from is "running", not "incomplete", and the end, tool calls and
// turns it has not reached yet are no problem. The zero time turns it off.
func (s *State) SetRunning(from time.Time) {
	s.running = running{on: !from.IsZero(), from: from.UnixMicro()}
	s.lastProblems.ok = false
}

// wall is the run's wall time in microseconds: run_finished.wall_seconds
// (the run-log vocabulary), or first event to agent_end (glasspane).
func (r *run) wall() (int64, bool) {
	if r.n[rFinished] > 0 {
		return r.wallUS, r.hasWall
	}
	if g := r.glassOrEmpty(); g.agentEnd && g.agentEndTS != 0 && r.hasTS {
		return g.agentEndTS - r.minTS, true
	}
	return 0, false
}

// problemCache keeps the problems of the run last asked for (see
// lastProblems).
type problemCache struct {
	id string
	ok bool
	ps []record.Problem
}

// problemsOf is r.problems, the last run's kept in c.
func (s *State) problemsOf(c *problemCache, r *run) []record.Problem {
	if c.ok && c.id == r.id {
		return c.ps
	}
	ps := r.problems(s.running)
	c.id, c.ok, c.ps = r.id, true, ps
	return ps
}

// problems lists the run's broken invariants.
func (r *run) problems(rn running) []record.Problem {
	if rn.is(r) {
		return nil // what it has not reached yet it may still reach
	}
	var ps []record.Problem
	add := func(k record.ProblemKind, n int64) { ps = append(ps, record.Problem{Run: r.id, Kind: k, N: n}) }
	if r.runLog && r.n[rFinished] == 0 {
		add(record.NoRunFinished, 0)
	}
	if r.n[rFinished] > 1 {
		add(record.RunFinishedTimes, r.n[rFinished])
	}
	if r.n[rFinished] > 0 && (r.n[rEndMarks] == 0 || r.endSeq > r.finishSeq) {
		add(record.RunFinishedEarly, 0)
	}
	if r.n[rToolsOpen] > 0 {
		add(record.CallsWithoutResult, r.n[rToolsOpen])
	}
	open := len(ps)
	for id, c := range r.glassOrEmpty().calls {
		if c.started && !c.ended {
			ps = append(ps, record.Problem{Run: r.id, Kind: record.OpenCall, Call: id, Tool: c.name})
		}
	}
	// in the order of their sentences, which differ from the call's
	// quoted id on
	slices.SortFunc(ps[open:], func(a, b record.Problem) int { return strings.Compare(strconv.Quote(a.Call), strconv.Quote(b.Call)) })
	if n := r.n[rTurnStarts] - r.n[rTurnEnds]; n > 0 {
		add(record.OpenTurns, n)
	}
	return ps
}

// Report computes the records: one per group, sorted by first event time
// then key (or as SetOrder says), and the total last. With no grouping
// only the total is there. It holds every record at once; EachRecord
// streams them.
func (s *State) Report() []record.Record {
	var recs []record.Record
	s.EachRecord(func(r *record.Record) error {
		recs = append(recs, *r)
		return nil
	})
	return recs
}

// EachRecord calls fn with each record of the report in order, the total
// last, building one record at a time so that a report of 100,000 groups
// costs no more memory than the state (on several cores, a few chunks of
// records at a time). It stops at fn's first error. The *Record is fn's
// for the call only: a caller that keeps a record copies it.
//
// With a breakdown the state's groups are keyed by the report's keys and
// the breakdown's: a group of the report is the merge of the state's
// groups of its keys, and their records are its breakdown. With an order
// (SetOrder) the groups are sorted by a field of their records (ties
// keep the default order), and past Top the rest are merged into one
// "other" group.
func (s *State) EachRecord(fn func(*record.Record) error) error {
	return s.eachRecord(nil, func(r *record.Record, _ []byte) error { return fn(r) })
}

// EachEncoded is EachRecord for a writer that turns each record into
// bytes: encode runs where the record is built, on as many goroutines as
// cores, each with a buffer of its own (b, to append to), and write gets
// the bytes and the record in order. encode may return nil for a record
// it leaves to write (a huge one, written in pieces).
func (s *State) EachEncoded(encode func(b []byte, r *record.Record) []byte, write func(b []byte, r *record.Record) error) error {
	return s.eachRecord(encode, func(r *record.Record, b []byte) error { return write(b, r) })
}

func (s *State) eachRecord(encode func([]byte, *record.Record) []byte, write func(*record.Record, []byte) error) error {
	if s.replay != nil {
		return s.replayRecords(encode, write)
	}
	rp := s.newReporting(encode, write)
	// What the total says of the runs (outcomes, wall time, problems) is
	// made on a goroutine of its own meanwhile, when there are many.
	var totalRuns chan record.Record
	if len(s.runs)+len(s.coldRuns) >= 2*builtChunk && runtime.GOMAXPROCS(0) > 1 {
		totalRuns = make(chan record.Record, 1)
		go func() {
			var pc problemCache
			var r record.Record
			s.runsOf(&pc, &r, s.allRuns(), byRuns)
			totalRuns <- r
		}()
	}
	order, keys := rp.groupOrder()
	if rp.nb > 0 {
		if err := rp.writeGroups(rp.sorted(order)); err != nil {
			return err
		}
	}
	var rec record.Record
	if totalRuns != nil {
		rec = s.record(rp.total, nil, byRuns, nil)
		runs := <-totalRuns
		rec.Runs, rec.Outcomes, rec.WallSumUS, rec.Wall, rec.Problems = runs.Runs, runs.Outcomes, runs.WallSumUS, runs.Wall, runs.Problems
	} else {
		rec = s.record(rp.total, s.allRuns(), byRuns, nil)
	}
	rec.Total = true
	if rp.breakdown {
		s.breakdown(&rec, keys, rp.get)
	}
	return rp.emit(&rec)
}

// reporting is one report being made of a state: what building its
// records needs, and the total they add up to.
type reporting struct {
	s      *State
	encode func([]byte, *record.Record) []byte
	write  func(*record.Record, []byte) error
	buf    []byte

	names     []string
	nb        int  // the report's keys
	breakdown bool // each group broken down, its parts the state's groups
	// late: each group is decoded once, when its record is built, and
	// the total takes it in then (no breakdown, some keys)
	late bool
	// extra are the tool calls known only from tool_call, by group
	extra map[string]*group
	// parts are the state's groups of each group of the report, with a
	// breakdown
	parts       map[string][]string
	total       *group
	mode, agent int
	serial      *builder
}

func (s *State) newReporting(encode func([]byte, *record.Record) []byte, write func(*record.Record, []byte) error) *reporting {
	rp := &reporting{s: s, encode: encode, write: write, total: &group{},
		nb: len(s.opt.By), breakdown: len(s.opt.Breakdown) > 0, serial: &builder{pc: &s.lastProblems}}
	rp.names = make([]string, rp.nb)
	for i, k := range s.opt.By {
		rp.names[i] = k.Name
	}
	rp.late = rp.nb > 0 && !rp.breakdown
	if rp.breakdown {
		rp.parts = map[string][]string{}
	}
	rp.extra = s.deferredCalls()
	rp.mode, rp.agent = s.runFields()
	return rp
}

// deferredCalls are the calls known only from tool_call, by group: no
// tool_execution_start of theirs turned up, so they count now. Runs with
// open calls are never frozen.
func (s *State) deferredCalls() map[string]*group {
	extra := map[string]*group{}
	for _, r := range s.runs {
		for _, c := range r.glassOrEmpty().calls {
			if !c.deferred {
				continue
			}
			x := extra[c.group]
			if x == nil {
				x = &group{}
				extra[c.group] = x
			}
			x.addCall(c.name, false, 1)
			if c.ended && c.failed {
				x.addCall(c.name, true, 1)
			}
		}
	}
	return extra
}

// emit hands a record to the writer, encoded first when it encodes.
func (rp *reporting) emit(r *record.Record) error {
	var b []byte
	if rp.encode != nil {
		b = rp.encode(rp.buf[:0], r)
		if b != nil {
			rp.buf = b
		}
	}
	return rp.write(r, b)
}

// getIn is the state's group of key, decoded into b's room when frozen
// (b may be nil), with its deferred calls.
func (rp *reporting) getIn(key string, b *builder) *group {
	var g *group
	if b != nil {
		g = rp.s.peekGroupIn(key, &b.group)
	} else {
		g = rp.s.peekGroup(key)
	}
	x := rp.extra[key]
	if x == nil {
		return g
	}
	c := *g
	c.tools = append([]toolCount(nil), g.tools...)
	c.latency.data = append([]uint64(nil), g.latency.data...)
	c.merge(x, false)
	return &c
}

func (rp *reporting) get(key string) *group { return rp.getIn(key, nil) }

// group is the group of the report with key: with a breakdown its parts
// merged into one.
func (rp *reporting) group(key string, b *builder) *group {
	if !rp.breakdown {
		return rp.getIn(key, b)
	}
	m := &group{key: key}
	for _, k := range rp.parts[key] {
		m.merge(rp.get(k), true)
	}
	return m
}

// build is the record of a group, made with what b, the builder of the
// goroutine that builds it, keeps.
func (rp *reporting) build(key string, runs bool, b *builder) (record.Record, *group) {
	g := rp.group(key, b)
	vals := g.values(rp.nb)
	var agents []string
	if rp.mode == byAgent {
		agents = vals[rp.agent : rp.agent+1]
	}
	var rec record.Record
	if runs {
		rec = rp.s.recordWith(b.pc, g, rp.s.runRefsIn(g, b), rp.mode, agents)
	} else {
		rec = rp.s.recordWith(b.pc, g, nil, byNothing, nil)
	}
	rec.Names, rec.Vals = rp.names, vals
	return rec, g
}

// groupOrder lists the groups of the report by first event time (light
// references, not the groups: frozen ones are decoded one at a time),
// and the state's group keys when they are walked now: then the total
// takes each in here, and with a breakdown each is filed under its
// group's key.
func (rp *reporting) groupOrder() (order []ref, keys []string) {
	s := rp.s
	order = make([]ref, 0, len(s.groups)+len(s.coldGroups))
	if rp.late {
		// only the order's first times: the maps walked rather than
		// looked up key by key
		for k, g := range s.groups {
			order = append(order, ref{key: k, ts: g.firstTS, hasTS: g.hasTS})
		}
		for k, b := range s.coldGroups {
			ts, hasTS := frozenGroupTS(b)
			order = append(order, ref{key: k, ts: ts, hasTS: hasTS})
		}
		sortRefs(order)
		return order, nil
	}
	keys = s.groupKeys()
	for _, k := range keys {
		g := rp.get(k)
		rp.total.merge(g, false)
		if !rp.breakdown {
			order = append(order, ref{key: k, ts: g.firstTS, hasTS: g.hasTS})
			continue
		}
		if rp.nb == 0 {
			continue // only the total, and its breakdown
		}
		p := k[:strings.LastIndexByte(k, keySep)]
		if _, ok := rp.parts[p]; !ok {
			order = append(order, ref{key: p})
		}
		rp.parts[p] = append(rp.parts[p], k)
	}
	if rp.breakdown {
		for i := range order {
			for _, k := range rp.parts[order[i].key] {
				if g := s.peekGroup(k); g.hasTS && (!order[i].hasTS || g.firstTS < order[i].ts) {
					order[i].ts, order[i].hasTS = g.firstTS, true
				}
			}
		}
	}
	sortRefs(order)
	return order, keys
}

// sorted is order as --sort orders it (ties keep their order).
func (rp *reporting) sorted(order []ref) []ref {
	f := rp.s.order.Sort
	if f == nil {
		return order
	}
	vs := make([]record.Value, len(order))
	for i := range order {
		r, _ := rp.build(order[i].key, f.Runs, rp.serial)
		vs[i] = f.Value(&r)
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return f.Compare(vs[idx[a]], vs[idx[b]]) < 0 })
	sorted := make([]ref, len(order))
	for i, j := range idx {
		sorted[i] = order[j]
	}
	return sorted
}

// writeGroups writes the records of the groups in order, past --top the
// rest folded into one "other" record.
func (rp *reporting) writeGroups(order []ref) error {
	shown := order
	if top := rp.s.order.Top; top > 0 && top < len(order) {
		shown = order[:top]
	}
	if rp.late && len(shown) >= 2*builtChunk && runtime.GOMAXPROCS(0) > 1 {
		// The records are built on every core, handed over in order;
		// each goroutine adds the groups it built up, the total adds
		// those up.
		bs, err := eachBuilt(shown, func(key string, b *builder) record.Record {
			rec, g := rp.build(key, true, b)
			b.total.merge(g, false)
			return rec
		}, rp.encode, rp.write)
		for _, b := range bs {
			rp.total.merge(&b.total, false)
		}
		if err != nil {
			return err
		}
	} else {
		for _, o := range shown {
			rec, g := rp.build(o.key, true, rp.serial)
			if rp.late {
				rp.total.merge(g, false)
			}
			if rp.breakdown {
				rp.s.breakdown(&rec, rp.parts[o.key], rp.get)
			}
			if err := rp.emit(&rec); err != nil {
				return err
			}
		}
	}
	if rest := order[len(shown):]; len(rest) > 0 {
		rec, o := rp.s.other(rest, rp.parts, rp.group, rp.get, rp.mode, rp.agent)
		if rp.late {
			rp.total.merge(o, false)
		}
		if err := rp.emit(&rec); err != nil {
			return err
		}
	}
	return nil
}

// allRuns names every run the state knows.
func (s *State) allRuns() []ref {
	all := make([]ref, 0, len(s.runs)+len(s.coldRuns))
	for id, r := range s.runs {
		if id != "" {
			all = append(all, ref{key: id, ts: r.minTS, hasTS: r.hasTS, run: r})
		}
	}
	for id, b := range s.coldRuns {
		if id != "" {
			ts, hasTS := frozenRunTS(b)
			all = append(all, ref{key: id, ts: ts, hasTS: hasTS})
		}
	}
	return all
}

// runRefsIn names the runs group g touched that the state knows, frozen
// ones decoded into b's room (when b is a builder of its own).
func (s *State) runRefsIn(g *group, b *builder) []ref {
	own := b != nil && b.pc != &s.lastProblems
	var runs []ref
	n := 0
	g.eachRun(func(id string) {
		var room *run
		if own {
			if n == len(b.runs) {
				b.runs = append(b.runs, run{})
			}
			room = &b.runs[n]
		}
		if r := s.peekRunIn(id, room); r != nil {
			if own && r == room {
				n++
			}
			runs = append(runs, ref{id, r.minTS, r.hasTS, r})
		}
	})
	return runs
}

// runRefs names the runs group g touched that the state knows.
func (s *State) runRefs(g *group) []ref { return s.runRefsIn(g, nil) }

// other is the record of the groups past --top: their groups merged into
// one, as if their events had one key, so that it adds up with the groups
// shown to the total. Its runs are the runs any of them touched; by agent
// its outcomes and wall times are those of its agents in those runs.
func (s *State) other(rest []ref, parts map[string][]string, groupOf func(string, *builder) *group, get func(string) *group, mode, agent int) (record.Record, *group) {
	o := &group{key: "other"}
	var agents, folded []string
	seen := map[string]bool{}
	for _, u := range rest {
		g := groupOf(u.key, nil)
		o.merge(g, true)
		folded = append(folded, parts[u.key]...)
		if mode == byAgent {
			if a := g.values(len(s.opt.By))[agent]; !seen[a] {
				seen[a] = true
				agents = append(agents, a)
			}
		}
	}
	rec := s.record(o, s.runRefs(o), mode, agents)
	rec.Other = int64(len(rest))
	if len(s.opt.Breakdown) > 0 {
		s.breakdown(&rec, folded, get)
	}
	return rec, o
}

// breakdown gives rec the records of the state's groups named, merged by
// the breakdown's key (the last of each group's key): one per model, as
// --by model would report them, in the order of --sort, else the
// costliest first (ties by time, then key).
func (s *State) breakdown(rec *record.Record, parts []string, get func(string) *group) {
	rec.BreakdownMember = breakdownMember(s.opt.Breakdown)
	rec.Breakdown = []record.Record{}
	var order []ref
	merged := map[string]*group{}
	for _, k := range parts {
		v := k[strings.LastIndexByte(k, keySep)+1:] // the whole key when there is no sep
		m := merged[v]
		if m == nil {
			m = &group{key: v}
			merged[v] = m
			order = append(order, ref{key: v})
		}
		m.merge(get(k), true)
	}
	for i := range order {
		m := merged[order[i].key]
		order[i].ts, order[i].hasTS = m.firstTS, m.hasTS
	}
	sortRefs(order)
	names := []string{s.opt.Breakdown[0].Name}
	for _, u := range order {
		m := merged[u.key]
		r := s.record(m, s.runRefs(m), byNothing, nil)
		r.Names, r.Vals, r.Nested = names, []string{u.key}, true
		rec.Breakdown = append(rec.Breakdown, r)
	}
	f := cmp.Or(s.order.Sort, costliest)
	sort.SliceStable(rec.Breakdown, func(i, j int) bool {
		return f.Compare(f.Value(&rec.Breakdown[i]), f.Value(&rec.Breakdown[j])) < 0
	})
}

// costliest is the breakdown's order without --sort: as ccusage lists
// models, the costliest first.
var costliest, _ = record.ParseSort("-cost_usd")

// ref names a group or run with what it is sorted by.
type ref struct {
	key   string
	ts    int64
	hasTS bool
	run   *run // the run key names, when it is a run already decoded
}

// run is the run r names, decoded once.
func (s *State) run(r ref) *run {
	if r.run != nil {
		return r.run
	}
	return s.peekRun(r.key)
}

func sortRefs(rs []ref) {
	if len(rs) > 1 {
		slices.SortFunc(rs, cmpRef)
	}
}

// cmpRef is the default order: by time, those without one last, then
// by key.
func cmpRef(a, b ref) int {
	if a.hasTS != b.hasTS {
		if a.hasTS {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.ts, b.ts); c != 0 {
		return c
	}
	return strings.Compare(a.key, b.key)
}

// runFields says what a group's outcomes and wall time are: its runs'
// (by run, a period, session, project, source, or none), its agent's own
// (by agent: agent_spawned to agent_finished), or none (by a key that
// names events, Key.NamesEvents). As by day, a run counts in each group
// it has events in: one, when its events agree. agent is the index of the
// agent key, when by agent.
func (s *State) runFields() (mode int, agent int) {
	mode = byRuns
	for i, k := range s.opt.By {
		switch {
		case k.NamesEvents():
			return byNothing, 0
		case k.Kind == KeyAgent:
			mode, agent = byAgent, i
		}
	}
	return mode, agent
}

const (
	byRuns = iota
	byAgent
	byNothing
)

// agentOutcomes sets rec's outcomes and wall time from the agents (raw
// JSON) of the runs named: each one's agent_finished's outcome
// (incomplete, or running, without one) and the time from its
// agent_spawned to it. An agent that was never spawned nor finished (the
// session) has neither.
func (s *State) agentOutcomes(rec *record.Record, agents []string, runRefs []ref) {
	outcomes := map[string]int64{}
	var wall sketch
	any := false
	for _, agent := range agents {
		var id string
		if json.Unmarshal([]byte(agent), &id) != nil {
			continue // no agent_id: no agent
		}
		any = true
		for _, rr := range runRefs {
			r := s.run(rr)
			a := r.agents[id]
			switch {
			case a == nil:
				continue
			case a.ends > 0 && a.outcome == "":
				outcomes["unknown"]++
			case a.ends > 0:
				outcomes[a.outcome]++
			case s.running.is(r):
				outcomes["running"]++
			default:
				outcomes["incomplete"]++
			}
			if a.ends > 0 && a.spawned && a.startHasTS && a.endHasTS {
				us := a.endTS - a.startTS
				rec.WallSumUS += us
				wall.add(float64(max(us, 0)) / 1e6)
			}
		}
	}
	if any {
		rec.Outcomes = sortedCounts(outcomes)
		rec.Wall = stats(&wall, 1000)
	}
}

func sortedCounts(m map[string]int64) []record.Count {
	var cs []record.Count
	for name, n := range m {
		cs = append(cs, record.Count{Name: name, N: n})
	}
	slices.SortFunc(cs, func(a, b record.Count) int { return strings.Compare(a.Name, b.Name) })
	return cs
}

// record builds the record of group g over the runs named, in order. mode
// says what its outcomes and wall time are (see runFields): by agent
// those of the agents named (raw JSON).
func (s *State) record(g *group, runRefs []ref, mode int, agents []string) record.Record {
	return s.recordWith(&s.lastProblems, g, runRefs, mode, agents)
}

// recordWith is record with the problems' cache pc: builders on other
// goroutines have their own.
func (s *State) recordWith(pc *problemCache, g *group, runRefs []ref, mode int, agents []string) record.Record {
	rec := record.Record{
		Counts: g.n, FirstTS: g.firstTS, LastTS: g.lastTS, HasTS: g.hasTS,
		Latency: stats(&g.latency, 10),
	}
	for _, t := range g.tools {
		if t.calls != 0 || t.failed != 0 {
			rec.Tools = append(rec.Tools, record.ToolStat{Name: t.name, Calls: t.calls, Failed: t.failed})
		}
	}
	slices.SortFunc(rec.Tools, func(a, b record.ToolStat) int { return strings.Compare(a.Name, b.Name) })
	s.runsOf(pc, &rec, runRefs, mode)
	if mode == byAgent {
		s.agentOutcomes(&rec, agents, runRefs)
	}
	return rec
}

// runsOf sets what rec says of the runs named, in order: their number,
// their problems, and by run their outcomes and wall time.
func (s *State) runsOf(pc *problemCache, rec *record.Record, runRefs []ref, mode int) {
	sortRefs(runRefs)
	rec.Runs = int64(len(runRefs))
	rec.Problems = []record.Problem{}
	var outcomes []record.Count // a few names: a slice, not a map
	var wall sketch
	var room run // where a frozen run is decoded, one at a time
	for _, rr := range runRefs {
		r := rr.run
		if r == nil {
			r = s.peekRunIn(rr.key, &room)
		}
		if mode == byRuns {
			outcomes = countOne(outcomes, r.outcomeName(s.running))
			if us, ok := r.wall(); ok {
				rec.WallSumUS += us
				wall.add(float64(us) / 1e6)
			}
		}
		rec.Problems = append(rec.Problems, s.problemsOf(pc, r)...)
	}
	slices.SortFunc(outcomes, func(a, b record.Count) int { return strings.Compare(a.Name, b.Name) })
	rec.Outcomes = outcomes
	rec.Wall = stats(&wall, 1000)
}

// countOne counts one more of name in cs.
func countOne(cs []record.Count, name string) []record.Count {
	for i := range cs {
		if cs[i].Name == name {
			cs[i].N++
			return cs
		}
	}
	return append(cs, record.Count{Name: name, N: 1})
}

// HasProblems reports whether any run broke an invariant (what --check
// asks).
func (s *State) HasProblems() bool {
	if s.replay != nil {
		return s.replay.Problems
	}
	for _, id := range s.runIDs() {
		if id != "" && len(s.peekRun(id).problems(s.running)) > 0 {
			return true
		}
	}
	return false
}
