package summary

// Merge folds o into s, as if o's events had been added after s's. Counts,
// sums, times and percentiles do not depend on the order of merging; only
// the latency of a glasspane turn whose start and end fall in different parts
// needs the parts in input order (its start pairs with the next part's
// first unmatched end). o must not be used afterwards.
func (s *State) Merge(o *State) {
	// ReadPartial checks that the bounds fit before it merges; states
	// that Add built are far from them.
	for i := range s.sums {
		s.sums[i].merge(o.sums[i])
	}
	s.wall.merge(o.wall)
	for _, k := range o.groupKeys() {
		og := o.peekGroup(k)
		g := s.getGroup(k)
		if g == nil {
			s.groups[k] = og
			continue
		}
		g.merge(og, true)
	}
	for _, id := range o.runIDs() {
		or := o.peekRun(id)
		r := s.getRun(id)
		if r == nil {
			s.runs[id] = or
			continue
		}
		s.mergeRun(r, or)
	}
	s.maybeFreeze(nil, nil)
}

func (s *State) mergeRun(r, o *Run) {
	if o.hasTS {
		widen(&r.hasTS, &r.minTS, &r.maxTS, o.minTS, o.maxTS)
	}
	r.runLog = r.runLog || o.runLog
	// the first run_finished by seq gives the outcome and wall time
	// (equivalent mutant: o.n[rFinished] >= 0; without a run_finished o's
	// finishSeq is noSeq, which is never less, and when r has none either
	// both carry the same empty outcome and wall)
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
	if o.glass == nil {
		return
	}
	rg, og := r.gw(), o.glass
	rg.glassError = rg.glassError || og.glassError
	// equivalent mutant: >= takes an equal time
	if og.agentEnd && (rg.agentEndTS == 0 || og.agentEndTS > rg.agentEndTS) {
		rg.agentEndTS = og.agentEndTS
	}
	rg.agentEnd = rg.agentEnd || og.agentEnd

	a, b := &rg.turns, &og.turns
	if a.open && b.orphan && a.openHasTS && b.orphanHasT {
		if g := s.getGroup(b.orphanGrp); g != nil {
			g.latency.Add(float64(b.orphanTS-a.openTS) / 1000)
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
	rg.turns = merged

	for id, c2 := range og.calls {
		c1 := rg.calls[id]
		if c1 == nil {
			if rg.calls == nil {
				rg.calls = map[string]*call{}
			}
			rg.calls[id] = c2
			continue
		}
		// an end seen first is the earlier part's: the later part's end
		// found an entry in one pass and would have noted none
		endGroup := c1.endGroup
		if c1.counted() && c2.counted() {
			// counted in both parts: once is right
			if g := s.getGroup(c2.group); g != nil {
				g.n[ToolCalls]--
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
			continue
		}
		rg.calls[id] = &merged
	}
}

func (s *State) closeCall(c *call, failed bool) {
	if !failed {
		return
	}
	if g := s.getGroup(c.group); g != nil {
		g.n[ToolFailures]++
		g.tool(c.name).failed++
	}
}

// counted says the call was counted already (by a tool_execution_start).
func (c *call) counted() bool { return c.started && !c.deferred }
