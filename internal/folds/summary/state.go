// Package summary computes what evsum reports: per group of envelope events
// (by run, agent, tool, model, kind, day, hour or any field), the runs and
// their outcomes, model calls, tokens, cost, tool calls and failures,
// errors, wall time and latency percentiles, and broken invariants.
//
// The state is a monoid: Add folds one event in, Merge combines two states,
// and the empty State is the identity, so a log can be summarised in parts
// (on several cores or hosts), the parts' states written with WritePartial,
// read back and merged by a Merger, giving the report a single pass
// gives. Counts and sums are exact integers (cost in nano-dollars, time in
// microseconds), so they do not depend on the order of merging.
//
// Memory grows with the number of groups and runs, never with the number
// of events: past the last ones touched, they are frozen (freeze.go).
// What is saved of a group and a run, in the partial state and frozen,
// is named once, by group.save and run.save (saved.go). The saved forms
// stay in this package because the fold freezes as it adds, and every
// form walks the private fields of its groups and runs.
//
// The report's records, their fields, counters and JSON form are package
// record's: the state fills them (Report, EachRecord).
package summary

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/runs"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// noSeq marks an absent sequence number in min computations.
const noSeq = math.MaxInt64

// toolCount is one tool's calls and failures in a group.
type toolCount struct {
	name          string
	calls, failed int64
}

// group holds the event-level counters of one group. The run-level fields
// (runs, outcomes, wall time, problems) come from the runs the group
// touched, at report time.
type group struct {
	key string // the map key: each key's value as canonical raw JSON, joined by \x1f

	n               counts // indexed by Counter
	firstTS, lastTS int64  // Unix microseconds; valid when hasTS
	hasTS           bool
	tools           []toolCount
	latency         sketch

	run  string              // the one run touched, when only one
	runs map[string]struct{} // all runs touched, when more than one
}

func (g *group) tool(name string) *toolCount {
	for i := range g.tools {
		if g.tools[i].name == name {
			return &g.tools[i]
		}
	}
	g.tools = append(g.tools, toolCount{name: name})
	return &g.tools[len(g.tools)-1]
}

// addCall adds d tool calls of tool name to g, or d failures when failed.
func (g *group) addCall(name string, failed bool, d int64) {
	if failed {
		g.n[record.ToolFailures] += d
		g.tool(name).failed += d
	} else {
		g.n[record.ToolCalls] += d
		g.tool(name).calls += d
	}
}

func (g *group) touch(run string) {
	if run == "" || run == g.run {
		return
	}
	if g.run == "" && g.runs == nil {
		g.run = run
		return
	}
	if g.runs == nil {
		g.runs = map[string]struct{}{g.run: {}}
	}
	g.runs[run] = struct{}{}
}

func (g *group) eachRun(fn func(string)) {
	if g.runs == nil {
		if g.run != "" {
			fn(g.run)
		}
		return
	}
	for r := range g.runs {
		fn(r)
	}
}

func (g *group) merge(o *group, withRuns bool) {
	g.n.add(&o.n)
	if o.hasTS {
		widen(&g.hasTS, &g.firstTS, &g.lastTS, o.firstTS, o.lastTS)
	}
	for _, t := range o.tools {
		c := g.tool(t.name)
		c.calls += t.calls
		c.failed += t.failed
	}
	g.latency.merge(&o.latency)
	if withRuns {
		o.eachRun(g.touch)
	}
}

// call is a zot tool call (the glasspane vocabulary) seen by its id: counted once
// whether it came as tool_execution_start, tool_call or both.
type call struct {
	name     string
	group    string // key of the group the call is counted in
	started  bool
	deferred bool // started by a tool_call only: not counted yet
	ended    bool
	failed   bool
	endGroup string // key of the end event's group, for an end seen first
}

// run holds what is known of one run_id. Its counters are in n, indexed
// by runCounter; the other fields each need a merge of their own (see
// mergeRun). run.save names what the partial state and the frozen form
// keep of it.
type run struct {
	id           string
	minTS, maxTS int64

	// the run-log vocabulary
	n         [numRunCounters]int64
	finishSeq int64  // seq of the first run_finished (noSeq: none)
	outcome   string // of the first run_finished
	wallUS    int64  // its wall_seconds, microseconds
	endSeq    int64  // seq of the first assistant_message or run_error (noSeq: none)

	hasTS   bool
	runLog  bool // any event of the run-log vocabulary
	hasWall bool // wallUS is set

	glass *glassRun // only for runs with glasspane events: most runs of a run log need none

	agents map[string]*agentSpan // by agent_id: the agents spawned or finished in the run
}

// hasOpenCalls reports whether the run has zot tool calls still open,
// which are looked up by id: such a run stays hot.
func (r *run) hasOpenCalls() bool { return r.glass != nil && len(r.glass.calls) > 0 }

// agentSpan is one agent of a run, from its agent_spawned to its
// agent_finished: its own wall time and outcome, for --by agent.
type agentSpan struct {
	spawned    bool  // an agent_spawned
	startTS    int64 // the earliest agent_spawned's ts, when startHasTS
	startHasTS bool
	ends       int64  // agent_finished events
	endSeq     int64  // seq of the first agent_finished (noSeq: none)
	outcome    string // of the first agent_finished
	endTS      int64  // its ts, when endHasTS
	endHasTS   bool
}

// agent finds or makes the span of the event's agent in r; nil when the
// event names no agent (no agent_id, or not a string), or the report
// does not show agents.
func (s *State) agent(r *run) *agentSpan {
	if !s.agents {
		return nil
	}
	id, ok := event.String(s.ev.AgentID, &s.idBuf)
	if !ok {
		return nil
	}
	a := r.agents[string(id)]
	if a == nil {
		if r.agents == nil {
			r.agents = map[string]*agentSpan{}
		}
		a = &agentSpan{endSeq: noSeq}
		r.agents[string(id)] = a
	}
	return a
}

// mergeAgent folds o, the same agent of the same run in a later part, into a.
func (a *agentSpan) merge(o *agentSpan) {
	if o.spawned {
		if o.startHasTS && (!a.startHasTS || o.startTS < a.startTS) {
			a.startTS, a.startHasTS = o.startTS, true
		}
		a.spawned = true
	}
	if o.ends > 0 && (a.ends == 0 || o.endSeq < a.endSeq) {
		a.endSeq, a.outcome, a.endTS, a.endHasTS = o.endSeq, o.outcome, o.endTS, o.endHasTS
	}
	a.ends += o.ends
}

// runCounter names a counter of a run, added up when parts merge.
type runCounter uint8

const (
	rFinished   runCounter = iota // run_finished events
	rEndMarks                     // assistant_message and run_error events
	rToolsOpen                    // tool_call minus tool_result
	rTurnStarts                   // turn_start events (glasspane)
	rTurnEnds                     // turn_end events (glasspane)
	numRunCounters
)

// glassRun is what a run of the glasspane vocabulary adds.
type glassRun struct {
	glassError bool // an error event
	agentEnd   bool
	agentEndTS int64
	turns      turnSeg
	calls      map[string]*call
}

var noGlass glassRun

// empty says whether g says nothing: a run with it is as one without.
func (g *glassRun) empty() bool {
	return !g.glassError && !g.agentEnd && g.agentEndTS == 0 && g.turns == (turnSeg{}) && len(g.calls) == 0
}

// glassOrEmpty is the run's glasspane part to read: never nil, never
// written.
func (r *run) glassOrEmpty() *glassRun {
	if r.glass == nil {
		return &noGlass
	}
	return r.glass
}

// glassToFill is the run's glasspane part to write, made on first use.
func (r *run) glassToFill() *glassRun {
	if r.glass == nil {
		r.glass = &glassRun{}
	}
	return r.glass
}

// turnSeg pairs turn_start with turn_end for latency across parts: within
// a part they pair as they come; a part's unmatched last start pairs with
// the next part's unmatched first end when parts are merged in order.
type turnSeg struct {
	any        bool  // any turn event in this part
	open       bool  // the last turn event was a start
	openTS     int64 // its ts
	orphan     bool  // the first turn event was an end without a start
	orphanTS   int64
	orphanGrp  string
	openHasTS  bool
	orphanHasT bool
}

func newRun(id string) *run {
	return &run{id: id, finishSeq: noSeq, endSeq: noSeq}
}

// State is the summary of the events added so far.
type State struct {
	opt    Options
	keys   []Key             // what groups are keyed by: opt.By, then opt.Breakdown
	groups map[string]*group // hot: decoded
	runs   map[string]*run

	// The run and group of the line added last, which the next line
	// most often shares: found without hashing the run_id twice. Both
	// are in groups and runs: freeze, which takes objects out of them
	// (and reuses them), forgets these.
	lastRun   *run
	lastGroup *group

	coldGroups map[string]string // frozen (see freeze.go)
	coldRuns   map[string]string

	ev     line
	keyBuf []byte
	runKey string // the quoted id of a run made by the event being added
	// lastProblems are the problems of the run last asked for by the
	// report: a run's group and the total say the same sentences, in one
	// copy (a run_id may be huge). Any change to the state drops them.
	lastProblems problemCache
	freezer      freezer // encodes the groups and runs frozen
	freeGroups   []*group
	freeRuns     []*run // groups and runs frozen, for new ones (see newGroup)
	// byRunOnly: groups are keyed by run_id alone (--by run, the default)
	byRunOnly bool
	idBuf     []byte            // a call id decoded
	nameBuf   []byte            // a tool name or outcome decoded
	days      []dayCache        // per key of --by
	names     map[string]string // interned tool names and outcomes

	// sums bound every sum the state holds: a counter of a group or of
	// the total, a wall-time sum (see bound).
	sums [record.NumCounters]bound
	wall bound

	running running // which runs without an end are still going (report only)
	order   Order   // how the report orders and cuts its groups (report only)

	agents bool // keep each run's agents' spans (--by agent)

	pinned     int // hot runs the last freeze could not freeze (open calls)
	runFreezes int // passes over the hot runs, for tests

	// part: s is a part's state, to be merged after others (AsPart);
	// repeated lists, by run, the zot call ids with more than one event
	// in the part, whose pairing a merge cannot redo (see Fits).
	part     bool
	repeated map[string][]string

	notes callNotes // with Options.CallNotes

	replay *Replay // the report, of a Replayed state
}

// maxNames bounds the interned strings: past it, strings are allocated.
const maxNames = 10000

// intern returns b as a string, allocated once for all groups and runs:
// tool names and outcomes repeat across thousands of them.
func (s *State) intern(b []byte) string {
	if v, ok := s.names[string(b)]; ok {
		return v
	}
	v := string(b)
	if s.names == nil {
		s.names = map[string]string{}
	}
	if len(s.names) < maxNames {
		s.names[v] = v
	}
	return v
}

// New returns an empty state.
func New(opt Options) *State {
	if opt.Loc == nil {
		opt.Loc = time.UTC
	}
	if opt.TZName == "" {
		opt.TZName = opt.Loc.String()
	}
	s := &State{opt: opt, groups: map[string]*group{}, runs: map[string]*run{}}
	s.keys = opt.By
	s.byRunOnly = len(opt.By) == 1 && opt.By[0].Kind == KeyRun && len(opt.Breakdown) == 0
	if len(opt.Breakdown) > 0 {
		s.keys = append(append([]Key(nil), opt.By...), opt.Breakdown...)
	}
	// What add counts; events that can mean nothing else (text, user
	// messages) need not have their payload's type read.
	s.ev.Want = event.MeaningsOf(event.ModelCall, event.ModelResult, event.ModelEnd, event.ModelError,
		event.Error, event.Kill, event.Guardrail, event.RunEnd, event.ToolStart, event.ToolEnd)
	// Agents' own spans are kept only for the report that shows them.
	if mode, _ := s.runFields(); mode == byAgent {
		s.agents = true
		s.ev.Want |= event.MeaningsOf(event.AgentStart, event.AgentEnd)
	}
	for _, k := range s.keys {
		if k.Kind == KeyTool {
			s.ev.Want |= event.MeaningsOf(event.ToolUpdate) // named by its call's start
		}
	}
	return s
}

// Options returns the options the state was made with.
func (s *State) Options() Options { return s.opt }

// line is the event being added: read and classified once by pkg/event,
// with the numbers the summary keeps.
type line struct {
	event.Event
	seq    int64
	hasSeq bool
	ts     int64 // Unix microseconds, when hasTS
	hasTS  bool
	usage  event.Usage // of a ModelResult
}

// Has reports whether any event counted for counter c, whose sums the
// state bounds (tokens, cost, unpriced calls and their tokens): a report
// shows the unpriced calls' columns only when there are some.
func (s *State) Has(c record.Counter) bool {
	if s.replay != nil {
		return s.replay.Has[c]
	}
	return s.sums[c] != bound{}
}

// bound holds the sums of the positive and of the negative values added
// to a family of sums: every sum of some of those values (a group's, the
// total, in any order) lies between neg and pos, so while these two fit
// in an int64 none of the sums can wrap, whatever the grouping.
type bound struct{ pos, neg int64 }

// add takes v into the bound; false, leaving it unchanged, when a sum of
// the values would no longer fit.
func (b *bound) add(v int64) bool {
	switch {
	case v > 0 && b.pos > math.MaxInt64-v, v < 0 && b.neg < math.MinInt64-v:
		return false
	case v > 0:
		b.pos += v
	case v < 0:
		b.neg += v
	}
	return true
}

// merge takes o into b; false, leaving b unchanged, when it does not fit.
func (b *bound) merge(o bound) bool {
	c := *b
	if !c.add(o.pos) || !c.add(o.neg) {
		return false
	}
	*b = c
	return true
}

// The range of ts: years 1 to 9999, so that days and hours have a date
// and time differences never wrap.
const (
	minTS = -62135596800 * 1e6
	maxTS = 253402300800*1e6 - 1
)

// Bad-input reasons: the line is JSON but not an envelope event.
var (
	errNoKind     = errors.New(`no "kind": not an envelope event (zot output goes through zot2gp first)`)
	errKindString = errors.New(`"kind" is not a string`)
	errTS         = errors.New(`"ts" is not a number of Unix seconds`)
	errTSRange    = errors.New(`bad value: "ts" is out of range (Unix seconds of the years 1 to 9999)`)
	errRunID      = errors.New(`"run_id" is not a string`)
	errPayload    = errors.New(`"payload" is not an object`)
)

// Add folds one event line into the state. It returns an error saying what
// is wrong when the line is not an envelope event; the state is then
// unchanged.
func (s *State) Add(data []byte) error {
	if len(data) >= hugeLine {
		// the state keeps what it needs of a huge line, never the line
		defer s.ev.Forget()
	}
	return s.add1(data)
}

// hugeLine is the length from which a line is forgotten once added.
const hugeLine = 1 << 20

func (s *State) add1(data []byte) error {
	e := &s.ev
	err := e.Read(data)
	switch {
	case err == event.ErrNotEvent || err == nil && e.Kind == nil:
		return errNoKind // a raw zot line, or no event at all
	case err != nil:
		return err
	case jsonscan.KindOf(e.Kind) != jsonscan.String:
		return errKindString
	}
	var bad bool
	if e.ts, e.hasTS, bad = e.Micros(); bad || e.ts < minTS || e.ts > maxTS {
		if bad && jsonscan.KindOf(e.TS) != jsonscan.Number {
			return errTS
		}
		return errTSRange
	}
	switch {
	case e.RunID != nil && jsonscan.KindOf(e.RunID) != jsonscan.String && jsonscan.KindOf(e.RunID) != jsonscan.Null:
		return errRunID
	case e.Payload != nil && jsonscan.KindOf(e.Payload) != jsonscan.Object:
		return errPayload
	}
	e.seq, e.hasSeq = e.SeqInt()
	if s.opt.WindowOn {
		if !e.hasTS {
			return nil
		}
		if !s.opt.Since.IsZero() && e.ts < s.opt.Since.UnixMicro() {
			return nil
		}
		if !s.opt.Until.IsZero() && e.ts >= s.opt.Until.UnixMicro() {
			return nil
		}
	}
	if err := s.values(); err != nil {
		return err
	}
	s.add()
	return nil
}

// values reads the numbers the event adds to sums, and refuses one that
// is out of range or would take a sum out of range: such a sum would
// count wrong, or wrap.
func (s *State) values() error {
	e := &s.ev
	switch e.Meaning {
	case event.ModelResult:
		u := &e.usage
		*u = e.Usage()
		if u.OutOfRange != "" {
			return fmt.Errorf("bad value: %q is out of range", u.OutOfRange)
		}
		sums := s.sums
		for i, n := range u.Tokens {
			if !sums[record.TokInput+record.Counter(i)].add(n) {
				return overflow(record.TokInput + record.Counter(i))
			}
		}
		if !sums[record.CostNano].add(u.CostNano) {
			return overflow(record.CostNano)
		}
		if u.Unpriced {
			// the bounds of these say, too, whether any call was
			// unpriced (State.Has)
			if !sums[record.UnpricedCalls].add(1) {
				return overflow(record.UnpricedCalls)
			}
			if !sums[record.UnpricedTokens].add(u.Tokens[event.TokTotal]) {
				return overflow(record.UnpricedTokens)
			}
		}
		if u.NoUsage && !sums[record.NoUsageCalls].add(1) {
			return overflow(record.NoUsageCalls)
		}
		s.sums = sums
	case event.RunEnd:
		v := e.Field(event.Wall)
		if v == nil || jsonscan.KindOf(v) != jsonscan.Number {
			break
		}
		us, ok := jsontext.ParseFixed(v, 6)
		if !ok {
			return fmt.Errorf("bad value: %q is out of range", e.Entry.Members[event.Wall])
		}
		if !s.wall.add(us) {
			return errors.New("bad value: wall time: the sum of wall_seconds would be out of range")
		}
	}
	return nil
}

func overflow(c record.Counter) error {
	return fmt.Errorf("bad value: %s: the sum would be out of range", c.Path())
}

// str returns the string a raw JSON string value holds, without
// allocating when it has no escapes; ok is false for other values.
func (s *State) str(raw []byte) ([]byte, bool) {
	return event.String(raw, &s.keyBuf)
}

// add folds the event read into s.ev. What each event counts for is
// decided by its meaning (pkg/event), never by its kind's name, so every
// vocabulary pkg/event knows is summarised the same way. A vocabulary
// that is Strict (the run log) ends runs with run_finished, whose outcome
// and wall time are the run's; the others (glasspane) end them with an
// agent_end, and their outcome is error when an error was seen.
func (s *State) add() {
	e := &s.ev
	s.lastProblems.ok = false
	r := s.runOfEvent()
	s.lastRun = r
	if e.hasTS {
		widen(&r.hasTS, &r.minTS, &r.maxTS, e.ts, e.ts)
	}
	g := s.group(r)
	g.n[record.Events]++
	if e.hasTS {
		widen(&g.hasTS, &g.firstTS, &g.lastTS, e.ts, e.ts)
	}
	g.touch(r.id)
	seq := int64(noSeq - 1)
	if e.hasSeq {
		seq = e.seq
	}
	runLog := e.Vocab != nil && e.Vocab.Strict
	if runLog {
		r.runLog = true
	}
	s.count(g, r, seq, runLog)
	if e.Flags&event.Final != 0 {
		r.n[rEndMarks]++
		r.endSeq = min(r.endSeq, seq)
	}
	s.maybeFreeze(g, r)
	s.runKey = ""
	if cap(s.keyBuf) > 1<<20 {
		s.keyBuf = nil // a huge key's buffer goes with its line
	}
}

// runOfEvent finds or makes the run of the event being added: the last
// line's run, most often, without a look at the maps.
func (s *State) runOfEvent() *run {
	e := &s.ev
	s.runKey = ""
	runID, _ := s.str(e.RunID)
	if c := s.lastRun; c != nil && c.id == string(runID) {
		return c
	}
	if r := s.runs[string(runID)]; r != nil {
		return r
	}
	if _, cold := s.coldRuns[string(runID)]; cold {
		return s.getRun(string(runID))
	}
	var r *run
	if plainString(e.RunID) {
		// the group of the run (--by run) is keyed by the quoted id:
		// the run's id is the inside of that key
		s.runKey = string(e.RunID)
		r = s.newRun(s.runKey[1 : len(s.runKey)-1])
	} else {
		r = s.newRun(string(runID))
	}
	s.runs[r.id] = r
	return r
}

// count counts the event in its group g and its run r by its meaning: a
// flat switch, one case per meaning.
func (s *State) count(g *group, r *run, seq int64, runLog bool) {
	e := &s.ev
	switch e.Meaning {
	case event.ModelCall:
		g.n[record.ModelCalls]++
		if e.Flags&event.Turn != 0 {
			r.n[rTurnStarts]++
			t := &r.glassToFill().turns
			t.any = true
			t.open, t.openTS, t.openHasTS = true, e.ts, e.hasTS
		}
	case event.ModelResult:
		u := &e.usage
		for i, n := range u.Tokens {
			g.n[record.TokInput+record.Counter(i)] += n
		}
		g.n[record.CostNano] += u.CostNano
		if u.Unpriced {
			g.n[record.UnpricedCalls]++
			g.n[record.UnpricedTokens] += u.Tokens[event.TokTotal]
		}
		if u.NoUsage {
			g.n[record.NoUsageCalls]++
		}
		if u.HasLatency {
			g.latency.add(float64(u.LatencyUS) / 1000)
		}
	case event.ModelEnd:
		if e.Failed() {
			g.n[record.ModelErrors]++
		}
		if e.Flags&event.Turn != 0 {
			s.turnEnd(g, r)
		}
	case event.ModelError:
		g.n[record.ModelErrors]++
		g.n[record.Errors]++
	case event.Error:
		g.n[record.Errors]++
		if !runLog {
			r.glassToFill().glassError = true
		}
	case event.Kill:
		g.n[record.Errors]++
		g.n[record.Kills]++
	case event.Guardrail:
		g.n[record.Guardrails]++
	case event.AgentStart:
		s.agentStart(r)
	case event.AgentEnd:
		s.agentEnd(r, seq)
	case event.RunEnd:
		s.runEnd(r, seq, runLog)
	case event.ToolStart, event.ToolEnd:
		s.tool(g, r, runLog)
	}
}

// agentStart records an agent_spawned: the agent's earliest start.
func (s *State) agentStart(r *run) {
	e := &s.ev
	if a := s.agent(r); a != nil {
		if e.hasTS && (!a.startHasTS || e.ts < a.startTS) {
			a.startTS, a.startHasTS = e.ts, true
		}
		a.spawned = true
	}
}

// agentEnd records an agent_finished: the first end by seq gives the
// outcome, as for run_finished.
func (s *State) agentEnd(r *run, seq int64) {
	e := &s.ev
	a := s.agent(r)
	if a == nil {
		return
	}
	a.ends++
	if seq < a.endSeq || a.ends == 1 {
		a.endSeq, a.outcome, a.endTS, a.endHasTS = seq, "", 0, e.hasTS
		if e.hasTS {
			a.endTS = e.ts
		}
		if o, ok := e.FieldString(event.Outcome, &s.nameBuf); ok {
			a.outcome = s.intern(o)
		}
	}
}

// runEnd ends the run: run_finished in a Strict vocabulary, else (an
// agent_end) its last end gives the run's wall time.
func (s *State) runEnd(r *run, seq int64, runLog bool) {
	e := &s.ev
	if runLog {
		s.runFinished(r, seq)
		return
	}
	// agentEndTS 0 is "no time", as for ts: an end without one ends the
	// run but gives it no wall time.
	gl := r.glassToFill()
	if e.hasTS && (gl.agentEndTS == 0 || e.ts > gl.agentEndTS) {
		gl.agentEndTS = e.ts
	}
	gl.agentEnd = true
}

// tool sees a tool call begin or end. Its events pair by the call's id
// when they have one (zot), as package runs pairs the views' calls
// (runs.CallID); in the run log, whose calls have none, by count
// (tool_call minus tool_result).
func (s *State) tool(g *group, r *run, runLog bool) {
	e := &s.ev
	start := e.Meaning == event.ToolStart
	if id, ok := runs.CallID(&e.Event, &s.idBuf); ok {
		if start {
			s.callStart(g, r, id, e.Flags&event.Restated == 0)
		} else {
			s.callEnd(g, r, id, e.Failed())
		}
		return
	}
	switch {
	case !runLog:
	case start:
		g.addCall(s.toolName(), false, 1)
		r.n[rToolsOpen]++
	default:
		r.n[rToolsOpen]--
		if e.Failed() {
			g.addCall(s.toolName(), true, 1)
		}
	}
}

// turnEnd closes the run's open model turn: its latency is the time since
// the turn began. An end with no start before it in this part is kept, to
// pair with the last start of the part before when parts are merged.
func (s *State) turnEnd(g *group, r *run) {
	e := &s.ev
	r.n[rTurnEnds]++
	t := &r.glassToFill().turns
	switch {
	case t.open:
		if t.openHasTS && e.hasTS {
			g.latency.add(float64(e.ts-t.openTS) / 1000)
		}
		// a closed turn's start means nothing more: it is not saved
		t.open, t.openTS, t.openHasTS = false, 0, false
	case !t.any:
		t.orphan, t.orphanTS, t.orphanHasT, t.orphanGrp = true, e.ts, e.hasTS, g.key
	}
	t.any = true
}

// runFinished records a run's end in a Strict vocabulary: the first end
// (by seq) gives the outcome and the wall time; a second is a problem.
func (s *State) runFinished(r *run, seq int64) {
	e := &s.ev
	r.n[rFinished]++
	if seq < r.finishSeq || r.n[rFinished] == 1 {
		r.finishSeq = seq
		r.outcome, r.hasWall = "", false
		if o, ok := e.FieldString(event.Outcome, &s.nameBuf); ok {
			r.outcome = s.intern(o)
		}
		if v := e.Field(event.Wall); v != nil {
			r.wallUS, r.hasWall = jsontext.ParseFixed(v, 6)
		}
	}
}

// toolName is the tool of the event added, "?" when it names none.
func (s *State) toolName() string {
	if v, ok := s.ev.FieldString(event.Name, &s.nameBuf); ok {
		return s.intern(v)
	}
	return "?"
}

// callStart sees a zot tool call begin. tool_execution_start (primary)
// counts it at once. A tool_call (the same call again, without --ui) is
// only noted: it counts the call later, at report time, if no
// tool_execution_start of that id turns up, in this part or a merged one.
// So each call counts once however the stream was cut.
func (s *State) callStart(g *group, r *run, id []byte, primary bool) {
	c := r.glassOrEmpty().calls[string(id)]
	s.noteRepeat(r, id, c)
	if s.opt.CallNotes {
		kind := noteStart
		if !primary {
			kind = noteRestated
		}
		s.noteCall(r, id, c, kind, g, false)
	}
	if c != nil && (c.counted() || c.deferred && !primary) {
		return // seen starting already
	}
	name := s.toolName()
	if r.glassToFill().calls == nil {
		r.glassToFill().calls = map[string]*call{}
	}
	if !primary {
		if c == nil {
			c = &call{}
			r.glassToFill().calls[string(id)] = c
		}
		c.name, c.group, c.started, c.deferred = name, g.key, true, true
		return
	}
	g.addCall(name, false, 1)
	if c != nil && c.ended {
		if c.failed {
			g.addCall(name, true, 1)
		}
		delete(r.glassToFill().calls, string(id))
		return
	}
	r.glassToFill().calls[string(id)] = &call{name: name, group: g.key, started: true}
}

// noteRepeat notes, in a part's state, a call id that has an entry in the
// part already when another event of it comes: its first event always
// leaves one, so that is each id with more than one event in the part.
func (s *State) noteRepeat(r *run, id []byte, c *call) {
	if !s.part || c == nil {
		return
	}
	if s.repeated == nil {
		s.repeated = map[string][]string{}
	}
	s.repeated[r.id] = append(s.repeated[r.id], string(id))
}

// callEnd closes a zot tool call; a failure counts in the group the call
// was counted in.
func (s *State) callEnd(g *group, r *run, id []byte, failed bool) {
	c := r.glassOrEmpty().calls[string(id)]
	s.noteRepeat(r, id, c)
	if s.opt.CallNotes {
		s.noteCall(r, id, c, noteEnd, g, failed)
	}
	switch {
	case c == nil:
		if r.glassToFill().calls == nil {
			r.glassToFill().calls = map[string]*call{}
		}
		r.glassToFill().calls[string(id)] = &call{ended: true, failed: failed, endGroup: g.key}
	case c.ended:
		// a second end: nothing more to count
	case c.deferred:
		c.ended, c.failed = true, failed
	default:
		s.closeCall(c, failed)
		delete(r.glassToFill().calls, string(id))
	}
}

// widen stretches the time span [*lo, *hi] (empty while !*ok) to cover
// [min, max]: an event's ts, or another group's or run's span.
func widen(ok *bool, lo, hi *int64, min, max int64) {
	if !*ok || min < *lo {
		*lo = min
	}
	if !*ok || max > *hi {
		*hi = max
	}
	*ok = true
}
