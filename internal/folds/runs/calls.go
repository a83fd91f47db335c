package runs

import "github.com/evtools/evtools/pkg/event"

// ModelCall begins agent's model call (a turn, when the event says so).
// A call of the agent still in flight was never answered: it ends here,
// and is returned as unanswered.
func (r *Run[R, S]) ModelCall(ev *event.Event, agent string) (s, unanswered *Span[S]) {
	if unanswered = r.Find(Model, agent, nil); unanswered != nil {
		r.Close(unanswered)
	}
	s = r.begin(Model, agent, "")
	s.Turn = ev.Flags&event.Turn != 0
	return s, unanswered
}

// ModelResult returns the model call a result of agent answers: its
// call in flight, which ends unless it is a turn (its end ends it); again
// is true when the call had a result already (zot's usage, twice in a
// turn, says the same again). nil when none is in flight: the result is a
// call of its own (a log that keeps no call's start), or a session's
// totals.
func (r *Run[R, S]) ModelResult(agent string) (s *Span[S], again bool) {
	if s = r.Find(Model, agent, nil); s == nil {
		return nil, false
	}
	again, s.Answered = s.Answered, true
	if !s.Turn {
		r.Close(s)
	}
	return s, again
}

// ModelEnd returns the turn of agent that a turn's end ends, nil when
// none is in flight.
func (r *Run[R, S]) ModelEnd(agent string) *Span[S] {
	s := r.Find(Model, agent, nil)
	if s == nil || !s.Turn {
		return nil
	}
	r.Close(s)
	return s
}

// ModelError returns the call of agent that a model error fails, which
// ends in it: its call in flight. nil when there is none: the error came
// after its call's result (pi records an aborted call's result, then its
// error), or without a call, and is no call of its own.
func (r *Run[R, S]) ModelError(agent string) *Span[S] {
	s := r.Find(Model, agent, nil)
	if s != nil {
		r.Close(s)
	}
	return s
}

// callKey is the key a tool call's events are paired on: "#" and its id,
// else (a run log's calls have none) "/" and its tool's name, the first
// such call of the agent in flight. It is built in the tracker's buffer.
func (t *Tracker[R, S]) callKey(ev *event.Event) []byte {
	if id, ok := CallID(ev, &t.buf); ok {
		t.key = append(append(t.key[:0], '#'), id...)
	} else {
		name, _ := ev.FieldString(event.Name, &t.buf)
		t.key = append(append(t.key[:0], '/'), name...)
	}
	return t.key
}

// CallID is a tool call's id, when its event has one: a string, empty
// or not (zot's result says only its call's id, which may be "").
func CallID(ev *event.Event, buf *[]byte) ([]byte, bool) {
	return ev.FieldString(event.ID, buf)
}

// ToolStart returns the tool call the event begins, and begun false when
// it restates a call in flight (zot's complete call after its start),
// whose arguments it may complete.
func (r *Run[R, S]) ToolStart(t *Tracker[R, S], ev *event.Event, agent string) (s *Span[S], begun bool) {
	key := t.callKey(ev)
	if s := r.Find(Tool, agent, key); s != nil && ev.Flags&event.Restated != 0 {
		return s, false
	}
	return r.begin(Tool, agent, string(key)), true
}

// ToolUpdate returns the tool call in flight a piece of arguments or of
// output is of, nil when its start is not in the stream.
func (r *Run[R, S]) ToolUpdate(t *Tracker[R, S], ev *event.Event, agent string) *Span[S] {
	key := t.callKey(ev)
	return r.Find(Tool, agent, key)
}

// ToolEnd returns the tool call the event ends, and started false when
// its start is not in the stream: then it is a call of its own, begun and
// ended by its result.
func (r *Run[R, S]) ToolEnd(t *Tracker[R, S], ev *event.Event, agent string) (s *Span[S], started bool) {
	key := t.callKey(ev)
	if s = r.Find(Tool, agent, key); s != nil {
		r.Close(s)
		return s, true
	}
	s = r.span(Tool, agent, string(key))
	r.t.done = append(r.t.done, s)
	return s, false
}

// Spawner returns the tool call that spawned a sub-agent of parent: the
// oldest call of parent in flight that spawned none yet (Claude Code's
// Task, one sub-agent each), nil when there is none. The call is claimed.
func (r *Run[R, S]) Spawner(parent string) *Span[S] {
	for _, s := range r.open {
		if s.Kind == Tool && s.Agent == parent && !s.Claimed {
			s.Claimed = true
			return s
		}
	}
	return nil
}

// AgentStart begins a sub-agent's span. The same agent's span still in
// flight (spawned again) ends first: it is returned, with its spans left
// in flight (see AgentEnd), for the caller to end. The agent is spawned:
// never the run's main agent.
func (r *Run[R, S]) AgentStart(agent string) (s, again *Span[S], left []*Span[S]) {
	again, left = r.AgentEnd(agent)
	if r.spawned == nil {
		r.spawned = map[string]bool{}
	}
	r.spawned[agent] = true
	return r.begin(Agent, agent, ""), again, left
}

// Parent is the agent that spawned the sub-agent an agent's start begins:
// the one its event names, when that is the run's main agent or one
// spawned, else the main agent.
func (r *Run[R, S]) Parent(ev *event.Event, buf *[]byte) string {
	if p, ok := ev.FieldString(event.Parent, buf); ok && len(p) > 0 && r.spawned[string(p)] {
		return string(p)
	}
	return r.Main
}

// AgentEnd returns the sub-agent's span an agent's end ends, with the
// spans of the agent still in flight, newest first, which end with it;
// nil when the agent was never spawned.
func (r *Run[R, S]) AgentEnd(agent string) (s *Span[S], left []*Span[S]) {
	if s = r.Find(Agent, agent, nil); s == nil {
		return nil, nil
	}
	for i := len(r.open) - 1; i >= 0; i-- {
		if o := r.open[i]; o != s && o.Agent == agent {
			left = append(left, o)
		}
	}
	for _, o := range left {
		r.Close(o)
	}
	r.Close(s)
	return s, left
}
