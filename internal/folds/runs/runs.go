// Package runs follows the life of the runs in an event stream, once for
// every view: which run and agent an event is of, which agent is the run's
// own (its main agent) and which were spawned, which call a model result,
// a turn's end or a model error answers, which tool call a result ends
// (by the call's id, else by its agent and tool), and under which tool
// call a sub-agent was spawned. The pretty view, the HTML transcript and
// ev2otlp render from it, and the summary keys its tool calls as it does,
// so that they count the same runs, model calls, tool calls and failures.
//
// A Tracker holds only the runs still open, and of each the calls and
// agents still in flight: a run is released when the consumer ends it (at
// its end event), or at the end of the input (Open lists those left). What
// a view keeps of a run, a call or an agent is its own: the R and S of
// Run.Data and Span.Data.
package runs

import (
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Kind is what a span of a run's life is.
type Kind uint8

// The kinds of spans.
const (
	Model Kind = iota + 1 // a model call, from its start to its result (a turn: to its end)
	Tool                  // a tool call, from its start to its result
	Agent                 // a sub-agent, from its spawn to its end
)

// Span is a model call, a tool call or a sub-agent in flight.
type Span[S any] struct {
	Kind     Kind
	Agent    string // the agent whose call it is; of an Agent span, the agent itself
	Key      string // a tool call's: "#" and its id, else "/" and its tool's name
	Turn     bool   // a model turn, which its end closes, not its result
	Answered bool   // a model call whose result came
	Claimed  bool   // a tool call that spawned a sub-agent
	Data     S
}

// Run is a run being followed: R is what the view keeps of it.
type Run[R, S any] struct {
	ID   string // its run_id, "" when the events have none
	Main string // its own agent: the first named by an event that is not a spawn, and not spawned
	Data R

	t       *Tracker[R, S]
	spawned map[string]bool
	open    []*Span[S] // the spans in flight, in the order they began
}

// Tracker follows the runs of a stream.
type Tracker[R, S any] struct {
	runs  map[string]*Run[R, S]
	last  *Run[R, S] // the run of the last event: most events are of the run of the one before
	order []*Run[R, S]
	buf   []byte
	key   []byte

	// Spans ended by the event being read (done), reused from the next
	// one on (free): a view makes a span for every call of a stream, and
	// keeps what it needs of one in its Data.
	done, free []*Span[S]
}

// Of returns the open run of the event's run_id (a run without one is
// the run of every event without one, until its end), and begun true
// when the event begins it.
func (t *Tracker[R, S]) Of(ev *event.Event) (r *Run[R, S], begun bool) {
	for _, s := range t.done {
		*s = Span[S]{}
		t.free = append(t.free, s)
	}
	t.done = t.done[:0]
	id, _ := event.String(ev.RunID, &t.buf)
	if r := t.last; r != nil && r.ID == string(id) {
		return r, false
	}
	if r := t.runs[string(id)]; r != nil {
		t.last = r
		return r, false
	}
	if t.runs == nil {
		t.runs = map[string]*Run[R, S]{}
	}
	r = &Run[R, S]{ID: string(id), t: t}
	t.runs[r.ID] = r
	t.order = append(t.order, r)
	t.last = r
	return r, true
}

// End releases the run: an event of its id after this begins a new run.
func (t *Tracker[R, S]) End(r *Run[R, S]) {
	if t.runs[r.ID] == r {
		delete(t.runs, r.ID)
	}
	if t.last == r {
		t.last = nil
	}
	for i, o := range t.order {
		if o == r {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// Open lists the runs not ended, in the order they began: what the end
// of the input cuts off.
func (t *Tracker[R, S]) Open() []*Run[R, S] { return t.order }

// See notes that an event of agent (its meaning m) happened in the run,
// and reports whether it is the run's main agent (the session's events,
// agent "", are not).
func (r *Run[R, S]) See(agent string, m event.Meaning) bool {
	if agent == "" {
		return false
	}
	if r.Main == "" && m != event.AgentStart && !r.spawned[agent] {
		r.Main = agent
	}
	return agent == r.Main
}

// Spans lists the spans in flight, in the order they began.
func (r *Run[R, S]) Spans() []*Span[S] { return r.open }

// Find returns the first span in flight of kind k and agent (and key,
// when not nil), nil when there is none.
func (r *Run[R, S]) Find(k Kind, agent string, key []byte) *Span[S] {
	for _, s := range r.open {
		if s.Kind == k && s.Agent == agent && (key == nil || s.Key == string(key)) {
			return s
		}
	}
	return nil
}

// begin puts a new span in flight.
func (r *Run[R, S]) begin(k Kind, agent, key string) *Span[S] {
	s := r.span(k, agent, key)
	r.open = append(r.open, s)
	return s
}

// span is a new span, valid until the next event's Of once it is
// closed.
func (r *Run[R, S]) span(k Kind, agent, key string) *Span[S] {
	var s *Span[S]
	if n := len(r.t.free); n > 0 {
		s, r.t.free = r.t.free[n-1], r.t.free[:n-1]
	} else {
		s = &Span[S]{}
	}
	s.Kind, s.Agent, s.Key = k, agent, key
	return s
}

// Close takes s out of the spans in flight. The caller may use it until
// the next event's Of, which reuses it.
func (r *Run[R, S]) Close(s *Span[S]) {
	for i, o := range r.open {
		if o == s {
			r.open = append(r.open[:i], r.open[i+1:]...)
			r.t.done = append(r.t.done, s)
			return
		}
	}
}

// Origin is what evimport's events say beside the envelope of where their
// run comes from: the agent that wrote the log, its project and its
// session, as raw JSON values (nil when absent), read in one pass.
func Origin(line []byte) (source, project, session []byte) {
	jsonscan.Each(line, func(k, v []byte) bool {
		switch {
		case jsonscan.KeyIs(k, "source"):
			source = v
		case jsonscan.KeyIs(k, "project"):
			project = v
		case jsonscan.KeyIs(k, "session"):
			session = v
		}
		return true
	})
	return source, project, session
}
