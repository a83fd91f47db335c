package summary

import (
	"slices"

	"github.com/evtools/evtools/internal/folds/record"
)

// Merge folds o into s, as if o's events had been added after s's. Counts,
// sums, times and percentiles do not depend on the order of merging; only
// the latency of a glasspane turn whose start and end fall in different parts
// needs the parts in input order (its start pairs with the next part's
// first unmatched end). o must not be used afterwards.
func (s *State) Merge(o *State) {
	s.AsWhole()
	s.lastProblems.ok = false
	// The Merger checks that the bounds fit before it merges; states
	// that Add built are far from them (see Fits).
	for i := range s.sums {
		s.sums[i].merge(o.sums[i])
	}
	s.wall.merge(o.wall)
	// A frozen group or run of o that s lacks moves over frozen: merging
	// two large states (the parts of a file) must not thaw them all.
	for k, og := range o.groups {
		s.mergeGroup(k, og)
	}
	for k, b := range o.coldGroups {
		if !moveFrozen(s.groups, &s.coldGroups, k, b) {
			s.mergeGroup(k, decodeGroup(k, b))
		}
	}
	for id, or := range o.runs {
		s.mergeRunFrom(id, or, o.notes[id])
	}
	for id, b := range o.coldRuns {
		if moveFrozen(s.runs, &s.coldRuns, id, b) {
			s.takeNotes(id, o.notes[id])
		} else {
			s.mergeRunFrom(id, decodeRun(id, b), o.notes[id])
		}
	}
	s.maybeFreeze(nil, nil)
}

// moveFrozen moves b, a group or run frozen under key in the state merged,
// to the frozen ones of this state (cold) when it has none of key, hot
// (in hot) or frozen, and reports whether it did; else the two are merged
// decoded.
func moveFrozen[T any](hot map[string]*T, cold *map[string]string, key, b string) bool {
	if _, ok := (*cold)[key]; ok || hot[key] != nil {
		return false
	}
	if *cold == nil {
		*cold = map[string]string{}
	}
	(*cold)[key] = b
	return true
}

func (s *State) mergeGroup(k string, og *group) {
	if g := s.getGroup(k); g != nil {
		g.merge(og, true)
	} else {
		s.groups[k] = og
	}
	s.maybeFreeze(nil, nil)
}

// mergeRunFrom merges or, run id of a later part whose call notes are
// ns, into s.
func (s *State) mergeRunFrom(id string, or *run, ns map[string][]callNote) {
	if r := s.getRun(id); r != nil {
		s.mergeRun(r, or, ns)
	} else {
		s.runs[id] = or
		s.takeNotes(id, ns)
	}
	s.maybeFreeze(nil, nil)
}

// takeNotes gives s, when it keeps notes, ns, the call notes of a run it
// had not seen.
func (s *State) takeNotes(id string, ns map[string][]callNote) {
	if s.opt.CallNotes && len(ns) > 0 {
		if s.notes == nil {
			s.notes = callNotes{}
		}
		s.notes[id] = ns
	}
}

// Fits reports whether o's sums can be merged into s's without a sum
// going out of range, and, for a part's state (AsPart), whether its zot
// calls pair with s's as in one pass. When it says no, one pass would
// have refused some line that o's part took, or counted some call of it
// otherwise: a merge would not give one pass's summary.
func (s *State) Fits(o *State) bool {
	for i := range s.sums {
		b := s.sums[i]
		if !b.merge(o.sums[i]) {
			return false
		}
	}
	w := s.wall
	return w.merge(o.wall) && s.pairsWith(o)
}

// AsPart makes s the state of a part of an input, to be merged into the
// state of the parts before it (by Merge, once Fits says it fits). It
// then notes the zot call ids with more than one event in the part: a
// call pending at the end of the parts before (started, or ended before
// its start) pairs with the id's first event in this part, where the part
// alone paired that event with its next one. Merge redoes the pairing of
// one event an id has in a part, not of several: Fits refuses those.
func (s *State) AsPart() { s.part = true }

// AsWhole undoes AsPart: s is the state the parts merge into (Merge does
// it), which need note nothing.
func (s *State) AsWhole() { s.part, s.repeated = false, nil }

// pairsWith reports whether none of the call ids with more than one event
// in o's part is pending in s, the state of the parts before it: only
// then do o's calls pair with s's as they do in one pass.
func (s *State) pairsWith(o *State) bool {
	for runID, ids := range o.repeated {
		r := s.runs[runID]
		if r == nil {
			// Runs with calls pending stay hot (freeze), but a state
			// merged from partials may hold them frozen.
			if r = s.peekRun(runID); r == nil {
				continue
			}
		}
		calls := r.glassOrEmpty().calls
		for _, id := range ids {
			if calls[id] != nil {
				return false
			}
		}
	}
	return true
}

// mergeRun folds o, the same run in a later part, into r; ns are o's
// call notes.
func (s *State) mergeRun(r, o *run, ns map[string][]callNote) {
	if o.hasTS {
		widen(&r.hasTS, &r.minTS, &r.maxTS, o.minTS, o.maxTS)
	}
	r.runLog = r.runLog || o.runLog
	// the first run_finished by seq gives the outcome and wall time
	if o.n[rFinished] > 0 && (r.n[rFinished] == 0 || o.finishSeq < r.finishSeq) {
		r.finishSeq, r.outcome, r.wallUS, r.hasWall = o.finishSeq, o.outcome, o.wallUS, o.hasWall
	}
	for i := range r.n {
		r.n[i] += o.n[i]
	}
	r.endSeq = min(r.endSeq, o.endSeq)
	for id, oa := range o.agents {
		if a := r.agents[id]; a != nil {
			a.merge(oa)
			continue
		}
		if r.agents == nil {
			r.agents = map[string]*agentSpan{}
		}
		r.agents[id] = oa
	}
	s.mergeCallNotes(r, o, ns)
	if o.glass == nil {
		return
	}
	rg, og := r.glassToFill(), o.glass
	rg.glassError = rg.glassError || og.glassError
	if og.agentEnd && (rg.agentEndTS == 0 || og.agentEndTS > rg.agentEndTS) {
		rg.agentEndTS = og.agentEndTS
	}
	rg.agentEnd = rg.agentEnd || og.agentEnd
	s.mergeTurns(&rg.turns, &og.turns)
	for id, c := range og.calls {
		s.mergeCall(rg, id, c)
	}
}

// mergeTurns folds b, the turns of a run in a later part, into a: a's
// last open turn ends with b's first orphan end.
func (s *State) mergeTurns(a, b *turnSeg) {
	if a.open && b.orphan && a.openHasTS && b.orphanHasT {
		if g := s.getGroup(b.orphanGrp); g != nil {
			g.latency.add(float64(b.orphanTS-a.openTS) / 1000)
		}
	}
	merged := *a
	if !a.any {
		merged.orphan, merged.orphanTS, merged.orphanHasT, merged.orphanGrp = b.orphan, b.orphanTS, b.orphanHasT, b.orphanGrp
	}
	if b.any {
		merged.open, merged.openTS, merged.openHasTS = b.open, b.openTS, b.openHasTS
	}
	merged.any = a.any || b.any
	*a = merged
}

// mergeCall folds c2, a call pending at the end of a later part, into the
// run's calls: a call counted in both parts counts once, and one both
// counted and ended is closed.
func (s *State) mergeCall(rg *glassRun, id string, c2 *call) {
	c1 := rg.calls[id]
	if c1 == nil {
		if rg.calls == nil {
			rg.calls = map[string]*call{}
		}
		rg.calls[id] = c2
		return
	}
	// an end seen first is the earlier part's: the later part's end
	// found an entry in one pass and would have noted none
	endGroup := c1.endGroup
	if c1.counted() && c2.counted() {
		// counted in both parts: once is right
		if g := s.getGroup(c2.group); g != nil {
			g.n[record.ToolCalls]--
			g.tool(c2.name).calls--
		}
		c2 = &call{ended: c2.ended, failed: c2.failed}
	}
	if c2.counted() {
		c1, c2 = c2, c1
	}
	// c1 is the counted start if there is one
	merged := *c1
	if !merged.started {
		merged.name, merged.group, merged.started, merged.deferred = c2.name, c2.group, c2.started, c2.deferred
	}
	if !merged.ended && c2.ended {
		merged.ended, merged.failed = true, c2.failed
	}
	merged.endGroup = endGroup
	if merged.counted() && merged.ended {
		s.closeCall(&merged, merged.failed)
		delete(rg.calls, id)
		return
	}
	rg.calls[id] = &merged
}

func (s *State) closeCall(c *call, failed bool) {
	if !failed {
		return
	}
	if g := s.getGroup(c.group); g != nil {
		g.addCall(c.name, true, 1)
	}
}

// counted says the call was counted already (by a tool_execution_start).
func (c *call) counted() bool { return c.started && !c.deferred }

// Splittable reports whether the parts of an input, each added to a state
// of its own and merged in order, give the state one pass gives. They do
// not when the groups are keyed by tool: an update or end of a tool call
// that names no tool is grouped under the name its start gave, and the
// start may be in an earlier part. (--partial and --merge share that
// limit: the calls still open at a part's end are merged, but the events
// already grouped under null are not moved.)
func (s *State) Splittable() bool {
	return !slices.ContainsFunc(s.keys, func(k Key) bool { return k.Kind == KeyTool })
}
