package summary

import "github.com/evtools/evtools/internal/folds/record"

// The saved form of a group and a run. group.save and run.save (and the
// save of what a run holds: its turns, agents and pending calls) name each
// field that is saved, once: its member in the partial state, and its kind,
// which says how it is written, read, checked and frozen. A saver is one
// way of saving: the partial state's writer and reader (partial.go) and
// the frozen form of a cold group or run (freeze.go). Adding a field to a
// group or a run is a line here, then its merge (merge.go).
//
// The fields are listed in the order the partial state writes them; the
// frozen form keeps the same order. The members that are objects (turns,
// agents, pending calls, the sketch) are read by encoding/json into their
// JSON shapes (pTurns, pAgent, pCall, pSketch in partial.go), whose
// messages --merge has always given for a value of the wrong type.

// saved is what names its saved fields: a group, a run, and what a run
// holds.
type saved interface{ save(saver) }

// saver writes each field it is given, or reads it into place.
type saver interface {
	// id is the run's id: its key in the state's maps, so not frozen.
	id(name string, v *string)
	// keys is the group's key values: its key in the state's maps.
	keys(name string, g *group)
	// span is a time span [*lo, *hi] in Unix microseconds, there when
	// *has: two members, each needing the other, lo not after hi. Frozen,
	// its lo is the base the times after it are frozen from (time).
	span(first, last string, lo, hi *int64, has *bool)
	// counter is a counter of the Counters table (an object's counters
	// as one array member), left out when zero unless it is Always.
	counter(c record.Counter, n *counts)
	// count is a count of events, never negative, left out when zero;
	// signed is a difference of counts, which may be negative.
	count(name string, v *int64)
	signed(name string, v *int64)
	// seq is a sequence number, left out when noSeq.
	seq(name string, v *int64)
	// time is an instant of the record's span, there when *has; value
	// is any other number there when *has (a wall time).
	time(name string, v *int64, has *bool)
	value(name string, v *int64, has *bool)
	// flag is left out when false; str when empty; key (a group's key,
	// "" under --by none) is written even when empty.
	flag(name string, v *bool)
	str(name string, v *string)
	key(name string, v *string)
	tools(name string, g *group)
	sketch(name string, s *sketch)
	runs(name string, g *group)
	// glass is the run's glasspane part to save, nil when the run has
	// none: only runs with glasspane events carry its fields.
	glass(p **glassRun) *glassRun
	turns(name string, t *turnSeg)
	agents(name string, m *map[string]*agentSpan)
	calls(name string, m *map[string]*call)
}

// save names the group's saved fields. The time span and the tools sit
// where the partial state has always had them: after events and after
// tool_failures.
func (g *group) save(a saver) {
	a.keys("group", g)
	for c := record.Counter(0); c < record.NumCounters; c = counterSpan(c) {
		a.counter(c, &g.n)
		switch c {
		case record.Events:
			a.span("first_us", "last_us", &g.firstTS, &g.lastTS, &g.hasTS)
		case record.ToolFailures:
			a.tools("tools", g)
		}
	}
	a.sketch("latency_ms", &g.latency)
	a.runs("runs", g)
}

// save names the run's saved fields.
func (r *run) save(a saver) {
	a.id("run", &r.id)
	a.span("min_us", "max_us", &r.minTS, &r.maxTS, &r.hasTS)
	a.flag("run_log", &r.runLog)
	a.count("finished", &r.n[rFinished])
	a.seq("finish_seq", &r.finishSeq)
	a.str("outcome", &r.outcome)
	a.value("wall_us", &r.wallUS, &r.hasWall)
	a.count("end_marks", &r.n[rEndMarks])
	a.seq("end_seq", &r.endSeq)
	// tool_call minus tool_result: a part may end a call the part
	// before it began
	a.signed("tools_open", &r.n[rToolsOpen])
	gl := a.glass(&r.glass)
	if gl != nil {
		a.flag("error", &gl.glassError)
		a.time("agent_end_us", &gl.agentEndTS, &gl.agentEnd)
	}
	a.count("turn_starts", &r.n[rTurnStarts])
	a.count("turn_ends", &r.n[rTurnEnds])
	if gl != nil {
		a.turns("turns", &gl.turns)
	}
	a.agents("agents", &r.agents)
	if gl != nil {
		a.calls("calls", &gl.calls)
	}
}

// save names the fields of a run's turns (written when t.any).
func (t *turnSeg) save(a saver) {
	a.flag("any", &t.any)
	a.flag("open", &t.open)
	a.time("open_us", &t.openTS, &t.openHasTS)
	a.flag("orphan", &t.orphan)
	a.time("orphan_us", &t.orphanTS, &t.orphanHasT)
	a.str("orphan_group", &t.orphanGrp)
}

// save names the fields of an agent of a run.
func (sp *agentSpan) save(a saver) {
	a.flag("spawned", &sp.spawned)
	a.time("start_us", &sp.startTS, &sp.startHasTS)
	a.count("ends", &sp.ends)
	a.seq("end_seq", &sp.endSeq)
	a.str("outcome", &sp.outcome)
	a.time("end_us", &sp.endTS, &sp.endHasTS)
}

// save names the fields of a pending tool call. (A run with one is never
// frozen: its calls are looked up by id.)
func (c *call) save(a saver) {
	a.str("name", &c.name)
	a.key("group", &c.group)
	a.flag("started", &c.started)
	a.flag("deferred", &c.deferred)
	a.flag("ended", &c.ended)
	a.flag("failed", &c.failed)
	a.str("end_group", &c.endGroup)
}
