package summary

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/jsontext"
)

// Record is one line of the report: a group, or the total (Total set,
// Group empty). Its JSON form (AppendJSON) is evsum's output contract.
type Record struct {
	Total     bool
	Names     []string // the group's key names, in --by order
	Vals      []string // their values as raw JSON
	Counts    [NumCounters]int64
	Runs      int64
	FirstTS   int64 // Unix microseconds, valid when HasTS
	LastTS    int64
	HasTS     bool
	Outcomes  []Count    // sorted by name
	Tools     []ToolStat // sorted by name
	WallSumUS int64
	Wall      Stats // seconds
	Latency   Stats // milliseconds
	Problems  []string

	// Other, when not 0, makes this the record of that many groups past
	// --top, folded into one: its group is {"other":N}.
	Other int64
	// Breakdown holds, under --breakdown, the records of the group's parts
	// (Nested, their group the breakdown's key alone), written as the
	// record's member BreakdownMember (models), last; "" without one.
	Breakdown       []Record
	BreakdownMember string
	Nested          bool
}

// Count is a named count.
type Count struct {
	Name string
	N    int64
}

// ToolStat is one tool's calls and failures.
type ToolStat struct {
	Name          string
	Calls, Failed int64
}

// Stats are percentiles from a Sketch; Has is false when there were no
// values.
type Stats struct {
	Has           bool
	P50, P95, Max float64
}

func stats(s *Sketch, round float64) Stats {
	if s.Count() == 0 {
		return Stats{}
	}
	var p50, p95 float64
	if s.bucketed() {
		p50, _ = s.Quantile(0.5)
		p95, _ = s.Quantile(0.95)
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
	return Stats{Has: true, P50: r(p50), P95: r(p95), Max: s.Max()}
}

var sortedValues = sync.Pool{New: func() any { return new([]float64) }}

// outcomeName is how a run ended: run_finished's outcome (the run-log
// vocabulary); for the glasspane vocabulary, error when it had an error
// event, else ok when it reached agent_end;
// incomplete when it has no end; running when it has no end yet and its
// last event is recent (see SetRunning).
func (r *Run) outcomeName(rn running) string {
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
func (rn running) is(r *Run) bool {
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
func (r *Run) wall() (int64, bool) {
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
	ps []string
}

// problemsOf is r.problems, the last run's kept in c.
func (s *State) problemsOf(c *problemCache, r *Run) []string {
	if c.ok && c.id == r.id {
		return c.ps
	}
	ps := r.problems(s.running)
	c.id, c.ok, c.ps = r.id, true, ps
	return ps
}

// problems lists the run's broken invariants, one short sentence each.
func (r *Run) problems(rn running) []string {
	if rn.is(r) {
		return nil // what it has not reached yet it may still reach
	}
	var ps []string
	if r.n[rFinished] <= 1 && !(r.runLog && r.n[rFinished] == 0) && !(r.n[rFinished] > 0 && (r.n[rEndMarks] == 0 || r.endSeq > r.finishSeq)) &&
		r.n[rToolsOpen] <= 0 && len(r.glassOrEmpty().calls) == 0 && r.n[rTurnStarts] <= r.n[rTurnEnds] {
		return nil // no problem: no name to quote (a run_id may be huge)
	}
	// Each sentence is made in one piece: "run " and the quoted id
	// would be one more copy of a huge id. An id too long to read is
	// named by its start and its length: the group or the run list holds
	// it whole, and a sentence per problem holding it would be as many
	// copies of it.
	q := ""
	switch {
	case len(r.id) > maxNamedID:
		q = strconv.Quote(strings.ToValidUTF8(r.id[:64], "")+"…") + fmt.Sprintf(" (a run_id of %d bytes)", len(r.id))
	case !quotesAsIs(r.id):
		q = strconv.Quote(r.id)
	}
	name := func(rest string) string {
		if q != "" {
			return "run " + q + rest
		}
		return "run \"" + r.id + "\"" + rest // as strconv.Quote has it
	}
	if r.runLog && r.n[rFinished] == 0 {
		ps = append(ps, name(" has no run_finished"))
	}
	if r.n[rFinished] > 1 {
		ps = append(ps, name(fmt.Sprintf(" has %d run_finished events", r.n[rFinished])))
	}
	if r.n[rFinished] > 0 && (r.n[rEndMarks] == 0 || r.endSeq > r.finishSeq) {
		ps = append(ps, name(" has a run_finished not preceded by assistant_message or run_error"))
	}
	if r.n[rToolsOpen] > 0 {
		ps = append(ps, name(fmt.Sprintf(" has %s without a tool_result", plural(r.n[rToolsOpen], "tool_call"))))
	}
	var open []string
	for id, c := range r.glassOrEmpty().calls {
		if c.started && !c.ended {
			open = append(open, name(fmt.Sprintf(": tool call %s (%s) started and never ended", strconv.Quote(id), c.name)))
		}
	}
	sort.Strings(open)
	ps = append(ps, open...)
	if n := r.n[rTurnStarts] - r.n[rTurnEnds]; n > 0 {
		ps = append(ps, name(fmt.Sprintf(": %s started and never ended", plural(n, "turn"))))
	}
	return ps
}

// maxNamedID is the longest run_id a problem quotes whole.
const maxNamedID = 4096

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Report computes the records: one per group, sorted by first event time
// then key (or as SetOrder says), and the total last. With no grouping
// only the total is there. It holds every record at once; EachRecord
// streams them.
func (s *State) Report() []Record {
	var recs []Record
	s.EachRecord(func(r *Record) error {
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
func (s *State) EachRecord(fn func(*Record) error) error {
	return s.eachRecord(nil, func(r *Record, _ []byte) error { return fn(r) })
}

// EachEncoded is EachRecord for a writer that turns each record into
// bytes: encode runs where the record is built, on as many goroutines as
// cores, each with a buffer of its own (b, to append to), and write gets
// the bytes and the record in order. encode may return nil for a record
// it leaves to write (a huge one, written in pieces).
func (s *State) EachEncoded(encode func(b []byte, r *Record) []byte, write func(b []byte, r *Record) error) error {
	return s.eachRecord(encode, func(r *Record, b []byte) error { return write(b, r) })
}

func (s *State) eachRecord(encode func([]byte, *Record) []byte, write func(*Record, []byte) error) error {
	var buf []byte
	fn := func(r *Record) error {
		var b []byte
		if encode != nil {
			b = encode(buf[:0], r)
			if b != nil {
				buf = b
			}
		}
		return write(r, b)
	}
	names := make([]string, len(s.opt.By))
	for i, k := range s.opt.By {
		names[i] = k.Name
	}
	// Calls known only from tool_call count now: no tool_execution_start
	// of theirs turned up. Runs with open calls are never frozen.
	extra := map[string]*Group{}
	for _, r := range s.runs {
		for _, c := range r.glassOrEmpty().calls {
			if !c.deferred {
				continue
			}
			x := extra[c.group]
			if x == nil {
				x = &Group{}
				extra[c.group] = x
			}
			x.n[ToolCalls]++
			x.tool(c.name).calls++
			if c.ended && c.failed {
				x.n[ToolFailures]++
				x.tool(c.name).failed++
			}
		}
	}
	// getIn is get decoding a frozen group into b's room (b may be nil).
	getIn := func(key string, b *builder) *Group {
		var g *Group
		if b != nil {
			g = s.peekGroupIn(key, &b.group)
		} else {
			g = s.peekGroup(key)
		}
		x := extra[key]
		if x == nil {
			return g
		}
		c := *g
		c.tools = append([]toolCount(nil), g.tools...)
		c.latency.data = append([]uint64(nil), g.latency.data...)
		c.merge(x, false)
		return &c
	}
	get := func(key string) *Group { return getIn(key, nil) }
	breakdown := len(s.opt.Breakdown) > 0
	nb := len(s.opt.By)
	// Sort light references, not the groups: frozen ones are decoded one
	// at a time.
	total := &Group{}
	order := make([]ref, 0, len(s.groups)+len(s.coldGroups))
	// With a breakdown a group of the report is made of the state's
	// groups of its key and each model: its parts, by its key.
	var parts map[string][]string
	if breakdown {
		parts = map[string][]string{}
	}
	// What the total says of the runs (outcomes, wall time, problems) is
	// made on a goroutine of its own meanwhile, when there are many.
	var totalRuns chan Record
	if len(s.runs)+len(s.coldRuns) >= 2*builtChunk && runtime.GOMAXPROCS(0) > 1 {
		totalRuns = make(chan Record, 1)
		go func() {
			var pc problemCache
			var r Record
			s.runsOf(&pc, &r, s.allRuns(), byRuns)
			totalRuns <- r
		}()
	}
	// Each group is decoded once, when its record is built: the total
	// takes the groups in as the records are written (then the groups
	// folded into "other"), and the order needs only their first time.
	late := nb > 0 && !breakdown
	var keys []string
	if !late {
		keys = s.groupKeys()
	} else {
		// (the maps walked rather than looked up key by key)
		for k, g := range s.groups {
			order = append(order, ref{key: k, ts: g.firstTS, hasTS: g.hasTS})
		}
		for k, b := range s.coldGroups {
			ts, hasTS := frozenGroupTS(b)
			order = append(order, ref{key: k, ts: ts, hasTS: hasTS})
		}
	}
	for _, k := range keys {
		g := get(k)
		total.merge(g, false)
		if !breakdown {
			order = append(order, ref{key: k, ts: g.firstTS, hasTS: g.hasTS})
			continue
		}
		if nb == 0 {
			continue // only the total, and its breakdown
		}
		p := k[:strings.LastIndexByte(k, keySep)]
		if _, ok := parts[p]; !ok {
			order = append(order, ref{key: p})
		}
		parts[p] = append(parts[p], k)
	}
	if breakdown {
		for i := range order {
			for _, k := range parts[order[i].key] {
				if g := s.peekGroup(k); g.hasTS && (!order[i].hasTS || g.firstTS < order[i].ts) {
					order[i].ts, order[i].hasTS = g.firstTS, true
				}
			}
		}
	}
	sortRefs(order)
	// group is the group of the report with key: with a breakdown its
	// parts merged into one.
	group := func(key string, b *builder) *Group {
		if !breakdown {
			return getIn(key, b)
		}
		m := &Group{key: key}
		for _, k := range parts[key] {
			m.merge(get(k), true)
		}
		return m
	}
	mode, agent := s.runFields()
	// build is the record of a group, made with what b, the builder of
	// the goroutine that builds it, keeps.
	serial := &builder{pc: &s.lastProblems}
	build := func(key string, runs bool, b *builder) (Record, *Group) {
		g := group(key, b)
		vals := g.values(nb)
		var agents []string
		if mode == byAgent {
			agents = vals[agent : agent+1]
		}
		var rec Record
		if runs {
			rec = s.recordWith(b.pc, g, s.runRefsIn(g, b), mode, agents)
		} else {
			rec = s.recordWith(b.pc, g, nil, byNothing, nil)
		}
		rec.Names, rec.Vals = names, vals
		return rec, g
	}
	if nb > 0 {
		if f := s.order.Sort; f != nil {
			vs := make([]sortValue, len(order))
			for i := range order {
				r, _ := build(order[i].key, f.runs, serial)
				vs[i] = f.value(&r)
			}
			idx := make([]int, len(order))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return f.compare(vs[idx[a]], vs[idx[b]]) < 0 })
			sorted := make([]ref, len(order))
			for i, j := range idx {
				sorted[i] = order[j]
			}
			order = sorted
		}
		shown := order
		if top := s.order.Top; top > 0 && top < len(order) {
			shown = order[:top]
		}
		if late && len(shown) >= 2*builtChunk && runtime.GOMAXPROCS(0) > 1 {
			// The records are built on every core, handed to fn in order;
			// each goroutine adds the groups it built up, the total adds
			// those up.
			bs, err := eachBuilt(shown, func(key string, b *builder) Record {
				rec, g := build(key, true, b)
				b.total.merge(g, false)
				return rec
			}, encode, write)
			for _, b := range bs {
				total.merge(&b.total, false)
			}
			if err != nil {
				return err
			}
		} else {
			for _, o := range shown {
				rec, g := build(o.key, true, serial)
				if late {
					total.merge(g, false)
				}
				if breakdown {
					s.breakdown(&rec, parts[o.key], get)
				}
				if err := fn(&rec); err != nil {
					return err
				}
			}
		}
		if rest := order[len(shown):]; len(rest) > 0 {
			rec, o := s.other(rest, parts, group, get, mode, agent)
			if late {
				total.merge(o, false)
			}
			if err := fn(&rec); err != nil {
				return err
			}
		}
	}
	var rec Record
	if totalRuns != nil {
		rec = s.record(total, nil, byRuns, nil)
		runs := <-totalRuns
		rec.Runs, rec.Outcomes, rec.WallSumUS, rec.Wall, rec.Problems = runs.Runs, runs.Outcomes, runs.WallSumUS, runs.Wall, runs.Problems
	} else {
		rec = s.record(total, s.allRuns(), byRuns, nil)
	}
	rec.Total = true
	if breakdown {
		s.breakdown(&rec, keys, get)
	}
	return fn(&rec)
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

// builtChunk is how many records a goroutine of eachBuilt builds at a
// time (the tests make it small, to build few groups on several cores).
var builtChunk = 64

// builder is what a goroutine of eachBuilt keeps: its problems' cache
// and what the caller adds up.
type builder struct {
	pc    *problemCache
	total Group

	// the room frozen groups and runs are decoded into, reused from
	// record to record
	group Group
	runs  []Run
	own   problemCache
}

// eachBuilt builds the records of refs on as many goroutines as cores, a
// chunk at a time, and hands them to fn in refs' order. Building only
// reads the state. The chunks built ahead of fn are bounded: memory
// stays that of a few chunks. It returns the builders when they are done.
func eachBuilt(refs []ref, build func(key string, b *builder) Record, encode func([]byte, *Record) []byte, write func(*Record, []byte) error) ([]*builder, error) {
	type chunk struct {
		recs []Record
		enc  []byte // the records encoded, one after the other
		ends []int  // where each record's bytes end in enc; -1 for one not encoded
		done chan struct{}
	}
	chunks := make([]chunk, (len(refs)+builtChunk-1)/builtChunk)
	for i := range chunks {
		chunks[i].done = make(chan struct{})
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	ahead := make(chan struct{}, 2*workers) // a slot per chunk built or being built, not yet handed over
	free := make(chan chunk, 2*workers)     // the room of chunks handed over, for the next
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	bs := make([]*builder, workers)
	for w := range bs {
		b := &builder{}
		b.pc = &b.own
		bs[w] = b
		wg.Go(func() {
			for {
				select {
				case ahead <- struct{}{}:
				case <-stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(chunks) {
					return
				}
				c := &chunks[i]
				part := refs[i*builtChunk : min((i+1)*builtChunk, len(refs))]
				select {
				case room := <-free:
					c.recs, c.enc, c.ends = room.recs, room.enc[:0], room.ends[:0]
				default:
					c.recs = make([]Record, 0, builtChunk)
				}
				c.recs = c.recs[:len(part)]
				for j, r := range part {
					c.recs[j] = build(r.key, b)
					if encode != nil {
						if e := encode(c.enc, &c.recs[j]); e != nil {
							c.enc = e
							c.ends = append(c.ends, len(e))
						} else {
							c.ends = append(c.ends, -1)
						}
					}
				}
				close(c.done)
			}
		})
	}
	var err error
	for i := range chunks {
		c := &chunks[i]
		<-c.done
		start := 0
		for j := range c.recs {
			var e []byte
			if encode != nil && c.ends[j] >= 0 {
				e = c.enc[start:c.ends[j]]
				start = c.ends[j]
			}
			if err = write(&c.recs[j], e); err != nil {
				break
			}
		}
		select {
		case free <- chunk{recs: c.recs, enc: c.enc, ends: c.ends}:
		default:
		}
		*c = chunk{}
		<-ahead
		if err != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	return bs, err
}

// runRefsIn is runRefs decoding the frozen runs into b's room.
func (s *State) runRefsIn(g *Group, b *builder) []ref {
	if b == nil || b.pc == &s.lastProblems {
		return s.runRefs(g)
	}
	var runs []ref
	n := 0
	g.eachRun(func(id string) {
		if n == len(b.runs) {
			b.runs = append(b.runs, Run{})
		}
		if r := s.peekRunIn(id, &b.runs[n]); r != nil {
			if r == &b.runs[n] {
				n++
			}
			runs = append(runs, ref{id, r.minTS, r.hasTS, r})
		}
	})
	return runs
}

// runRefs names the runs group g touched that the state knows.
func (s *State) runRefs(g *Group) []ref {
	var runs []ref
	g.eachRun(func(id string) {
		if r := s.peekRun(id); r != nil {
			runs = append(runs, ref{id, r.minTS, r.hasTS, r})
		}
	})
	return runs
}

// other is the record of the groups past --top: their groups merged into
// one, as if their events had one key, so that it adds up with the groups
// shown to the total. Its runs are the runs any of them touched; by agent
// its outcomes and wall times are those of its agents in those runs.
func (s *State) other(rest []ref, parts map[string][]string, group func(string, *builder) *Group, get func(string) *Group, mode, agent int) (Record, *Group) {
	o := &Group{key: "other"}
	var agents, folded []string
	seen := map[string]bool{}
	for _, u := range rest {
		g := group(u.key, nil)
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
func (s *State) breakdown(rec *Record, parts []string, get func(string) *Group) {
	rec.BreakdownMember = breakdownMember(s.opt.Breakdown)
	rec.Breakdown = []Record{}
	var order []ref
	merged := map[string]*Group{}
	for _, k := range parts {
		v := k[strings.LastIndexByte(k, keySep)+1:] // the whole key when there is no sep
		m := merged[v]
		if m == nil {
			m = &Group{key: v}
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
	f := s.order.Sort
	if f == nil {
		f = costliest
	}
	sort.SliceStable(rec.Breakdown, func(i, j int) bool {
		return f.compare(f.value(&rec.Breakdown[i]), f.value(&rec.Breakdown[j])) < 0
	})
}

// costliest is the breakdown's order without --sort: as ccusage lists
// models, the costliest first.
var costliest, _ = ParseSort("-cost_usd")

// ref names a group or run with what it is sorted by.
type ref struct {
	key   string
	ts    int64
	hasTS bool
	run   *Run // the run key names, when it is a run already decoded
}

// run is the run r names, decoded once.
func (s *State) run(r ref) *Run {
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
// (by run, day, hour, or none), its agent's own (by agent: agent_spawned
// to agent_finished), or none (by kind, tool, model or a field, which
// name events, not runs or agents: a run's outcome would only repeat).
// agent is the index of the agent key, when by agent.
func (s *State) runFields() (mode int, agent int) {
	mode = byRuns
	for i, k := range s.opt.By {
		switch k.Kind {
		case KeyKindField, KeyTool, KeyModel, KeyPath:
			return byNothing, 0
		case KeyAgent:
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
func (s *State) agentOutcomes(rec *Record, agents []string, runRefs []ref) {
	outcomes := map[string]int64{}
	var wall Sketch
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
				wall.Add(float64(max(us, 0)) / 1e6)
			}
		}
	}
	if any {
		rec.Outcomes = sortedCounts(outcomes)
		rec.Wall = stats(&wall, 1000)
	}
}

func sortedCounts(m map[string]int64) []Count {
	var cs []Count
	for name, n := range m {
		cs = append(cs, Count{name, n})
	}
	slices.SortFunc(cs, func(a, b Count) int { return strings.Compare(a.Name, b.Name) })
	return cs
}

// record builds the record of group g over the runs named, in order. mode
// says what its outcomes and wall time are (see runFields): by agent
// those of the agents named (raw JSON).
func (s *State) record(g *Group, runRefs []ref, mode int, agents []string) Record {
	return s.recordWith(&s.lastProblems, g, runRefs, mode, agents)
}

// recordWith is record with the problems' cache pc: builders on other
// goroutines have their own.
func (s *State) recordWith(pc *problemCache, g *Group, runRefs []ref, mode int, agents []string) Record {
	rec := Record{
		Counts: g.n, FirstTS: g.firstTS, LastTS: g.lastTS, HasTS: g.hasTS,
		Latency: stats(&g.latency, 10),
	}
	for _, t := range g.tools {
		if t.calls != 0 || t.failed != 0 {
			rec.Tools = append(rec.Tools, ToolStat{t.name, t.calls, t.failed})
		}
	}
	slices.SortFunc(rec.Tools, func(a, b ToolStat) int { return strings.Compare(a.Name, b.Name) })
	s.runsOf(pc, &rec, runRefs, mode)
	if mode == byAgent {
		s.agentOutcomes(&rec, agents, runRefs)
	}
	return rec
}

// runsOf sets what rec says of the runs named, in order: their number,
// their problems, and by run their outcomes and wall time.
func (s *State) runsOf(pc *problemCache, rec *Record, runRefs []ref, mode int) {
	sortRefs(runRefs)
	rec.Runs = int64(len(runRefs))
	rec.Problems = []string{}
	var outcomes []Count // a few names: a slice, not a map
	var wall Sketch
	var room Run // where a frozen run is decoded, one at a time
	for _, rr := range runRefs {
		r := rr.run
		if r == nil {
			r = s.peekRunIn(rr.key, &room)
		}
		if mode == byRuns {
			outcomes = countOne(outcomes, r.outcomeName(s.running))
			if us, ok := r.wall(); ok {
				rec.WallSumUS += us
				wall.Add(float64(us) / 1e6)
			}
		}
		rec.Problems = append(rec.Problems, s.problemsOf(pc, r)...)
	}
	slices.SortFunc(outcomes, func(a, b Count) int { return strings.Compare(a.Name, b.Name) })
	rec.Outcomes = outcomes
	rec.Wall = stats(&wall, 1000)
}

// countOne counts one more of name in cs.
func countOne(cs []Count, name string) []Count {
	for i := range cs {
		if cs[i].Name == name {
			cs[i].N++
			return cs
		}
	}
	return append(cs, Count{name, 1})
}

// AppendCounter appends counter c's value as a JSON number.
func (r *Record) AppendCounter(b []byte, c Counter) []byte {
	if sc := Counters[c].Scale; sc > 0 {
		return jsontext.AppendFixed(b, r.Counts[c], sc)
	}
	return strconv.AppendInt(b, r.Counts[c], 10)
}

// AppendJSON appends the record as one JSON object, members in the
// contract's order: the counters in Counter order, with the run-level
// fields after events, the tools after tool_failures, and wall time,
// latency and problems last.
func (r *Record) AppendJSON(b []byte) []byte {
	b = append(b, `{"group":`...)
	b = r.AppendGroup(b)
	return r.appendProblems(r.appendBody(b))
}

// appendBody appends what follows the group: the counters, the run
// fields, the tools, wall time and latency.
func (r *Record) appendBody(b []byte) []byte {
	for c := Counter(0); c < NumCounters; c = c.span() {
		b = append(b, ',')
		if o := Counters[c].Object; o != "" {
			b = append(b, '"')
			b = append(b, o...)
			b = append(b, `":{`...)
			for i := c; i < c.span(); i++ {
				if i > c {
					b = append(b, ',')
				}
				b = appendName(b, Counters[i].Name)
				b = r.AppendCounter(b, i)
			}
			b = append(b, '}')
		} else {
			b = appendName(b, Counters[c].Name)
			b = r.AppendCounter(b, c)
		}
		switch c {
		case Events:
			b = r.appendRunFields(b)
		case ToolFailures:
			b = r.appendTools(b)
		}
	}
	b = append(b, `,"wall_seconds":{"sum":`...)
	if r.Wall.Has {
		b = jsontext.AppendFixed(b, r.WallSumUS, 6)
	} else {
		b = append(b, "null"...) // no wall time measured is not 0 s
	}
	b = appendStats(b, r.Wall, true)
	b = append(b, `,"latency_ms":{`...)
	return appendStats(b, r.Latency, false)
}

// appendProblems appends the problems and what follows them.
func (r *Record) appendProblems(b []byte) []byte {
	b = append(b, `,"problems":[`...)
	for i, p := range r.Problems {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, p)
	}
	b = append(b, ']')
	return r.appendBreakdown(b)
}

// appendBreakdown appends the breakdown member, if any, and the record's
// closing brace.
func (r *Record) appendBreakdown(b []byte) []byte {
	if r.BreakdownMember != "" {
		b = append(b, ',')
		b = appendName(b, r.BreakdownMember)
		b = append(b, '[')
		for i := range r.Breakdown {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.Breakdown[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendName(b []byte, name string) []byte {
	b = append(b, '"')
	b = append(b, name...)
	return append(b, `":`...)
}

func (r *Record) appendRunFields(b []byte) []byte {
	b = append(b, `,"runs":`...)
	b = strconv.AppendInt(b, r.Runs, 10)
	b = append(b, `,"first_ts":`...)
	b = appendTS(b, r.FirstTS, r.HasTS)
	b = append(b, `,"last_ts":`...)
	b = appendTS(b, r.LastTS, r.HasTS)
	b = append(b, `,"outcomes":{`...)
	for i, o := range r.Outcomes {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, o.Name)
		b = append(b, ':')
		b = strconv.AppendInt(b, o.N, 10)
	}
	return append(b, '}')
}

func (r *Record) appendTools(b []byte) []byte {
	b = append(b, `,"tools":{`...)
	for i, t := range r.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, t.Name)
		b = append(b, `:{"calls":`...)
		b = strconv.AppendInt(b, t.Calls, 10)
		b = append(b, `,"failed":`...)
		b = strconv.AppendInt(b, t.Failed, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// AppendGroup appends the group object, {} for the total, {"other":N}
// for the groups past --top.
func (r *Record) AppendGroup(b []byte) []byte {
	b = append(b, '{')
	if r.Other > 0 {
		b = append(b, `"other":`...)
		b = strconv.AppendInt(b, r.Other, 10)
	} else if !r.Total {
		for i, n := range r.Names {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, n)
			b = append(b, ':')
			b = append(b, r.Vals[i]...)
		}
	}
	return append(b, '}')
}

func appendTS(b []byte, us int64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return jsontext.AppendFixed(b, us, 6)
}

func appendStats(b []byte, s Stats, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	for i, name := range []string{"p50", "p95", "max"} {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		if !s.Has {
			b = append(b, "null"...)
			continue
		}
		v := [3]float64{s.P50, s.P95, s.Max}[i]
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return append(b, '}')
}

// HasProblems reports whether any run broke an invariant (what --check
// asks).
func (s *State) HasProblems() bool {
	for _, id := range s.runIDs() {
		if id != "" && len(s.peekRun(id).problems(s.running)) > 0 {
			return true
		}
	}
	return false
}

// CostText is a cost in nano-dollars as the reports for people print it:
// to 4 decimals, rounded half away from zero from the exact value, so
// that its digits agree with the JSON's.
func CostText(nano int64) string {
	const unit = 100_000 // 10^(9-4)
	q := nano / unit
	if rem := nano % unit; 2*rem >= unit {
		q++
	} else if 2*rem <= -unit {
		q--
	}
	neg := q < 0
	if neg {
		q = -q
	}
	s := strconv.FormatInt(q/10_000, 10) + "." + fmt.Sprintf("%04d", q%10_000)
	if neg {
		s = "-" + s
	}
	return s
}

// long reports whether the record has a value WriteJSON writes apart.
func (r *Record) long() bool {
	for _, v := range r.Vals {
		if len(v) > longValue {
			return true
		}
	}
	for _, p := range r.Problems {
		if len(p) > longValue {
			return true
		}
	}
	return false
}

// AppendShortJSON is AppendJSON for a record without a value long enough
// to be written apart (see WriteJSON); for one with, it returns nil.
func (r *Record) AppendShortJSON(b []byte) []byte {
	if r.long() {
		return nil
	}
	return r.AppendJSON(b)
}

// longValue is the length past which WriteJSON writes a value to w itself
// rather than through its buffer.
const longValue = 64 << 10

// WriteJSON writes the record to w as AppendJSON appends it, using b as
// its buffer (returned for the next record), but writes a long group value
// or problem straight to w, the problem escaped piece by piece: the
// record of a run with a huge run_id costs no copy of the whole line.
func (r *Record) WriteJSON(w io.Writer, b []byte) ([]byte, error) {
	if !r.long() {
		b = r.AppendJSON(b[:0])
		_, err := w.Write(b)
		return b, err
	}
	flush := func() error {
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b[:0], `{"group":{`...)
	if r.Other > 0 || r.Total {
		b = r.AppendGroup(b[:len(b)-1])
	} else {
		for i, n := range r.Names {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, n)
			b = append(b, ':')
			if len(r.Vals[i]) > longValue {
				if err := flush(); err != nil {
					return b, err
				}
				if _, err := io.WriteString(w, r.Vals[i]); err != nil {
					return b, err
				}
				continue
			}
			b = append(b, r.Vals[i]...)
		}
		b = append(b, '}')
	}
	b = r.appendBody(b)
	b = append(b, `,"problems":[`...)
	for i, p := range r.Problems {
		if i > 0 {
			b = append(b, ',')
		}
		if len(p) <= longValue {
			b = jsontext.AppendString(b, p)
			continue
		}
		b = append(b, '"')
		for len(p) > 0 {
			n := min(len(p), longValue)
			for n < len(p) && !utf8.RuneStart(p[n]) {
				n++ // escapes are of whole runes: cut at a rune's start
			}
			at := len(b)
			b = jsontext.AppendString(b, p[:n])
			b = append(b[:at], b[at+1:len(b)-1]...) // without the piece's quotes
			p = p[n:]
			if err := flush(); err != nil {
				return b, err
			}
		}
		b = append(b, '"')
	}
	b = append(b, ']')
	b = r.appendBreakdown(b)
	err := flush()
	return b, err
}

// quotesAsIs says whether strconv.Quote(s) is s between quotes.
func quotesAsIs(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
