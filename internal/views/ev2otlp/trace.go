package ev2otlp

import (
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/filters/redact"
	"github.com/evtools/evtools/internal/folds/runs"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// The mapping from events to spans (docs/formats.md, "Traces"): every
// event is read through pkg/event's vocabularies, so a run of zot2gp's
// glasspane kinds, of a run log or of evimport's output becomes the same
// tree: a run is a trace whose root is invoke_agent, a model call is a
// chat span, a tool call an execute_tool span, a subagent an invoke_agent
// span under the call that spawned it.

// config is what the flags say about the spans.
type config struct {
	service  string // --service: the resource's service.name, else the events' source
	content  bool   // --content: tool arguments and results as attributes
	redactor *redact.Redactor
	batch    int // spans per line or request
}

// run is one run being read: its root span, and its life (the model,
// tool and subagent spans still open, its main agent) as package runs
// follows it.
type run struct {
	life   *life
	key    string // its run id, or #N for events without one
	anon   bool   // it has no run id of its own
	trace  [16]byte
	root   *span
	res    *resource
	places int64 // events read: the place of an event without seq
	last   int64 // the time of its last event, Unix nanoseconds

	model, provider string // from run_started
	session         string
	outcome         string
	errText         string
	failed          bool // an error event was seen
}

// life is a run's life as package runs follows it; a span in flight is
// one of the run's spans still open.
type (
	life     = runs.Run[*run, *span]
	inFlight = runs.Span[*span]
)

// converter turns events into spans and hands batches of ended spans to
// write.
type converter struct {
	cfg  config
	hand func(*batch) (*batch, error) // writes a batch (or has it written), returns an empty one
	err  error                        // the first error writing: the reading stops

	life      runs.Tracker[*run, *span]
	anon      int // runs without a run id so far
	batch     *batch
	free      []*span
	names     map[string]string    // interned names: agents, tools, models
	recent    [16]string           // names interned last (see intern)
	spanNames [3]map[string]string // per op, its span's name for a name (see spanName)

	ev  *event.Event // the event being converted
	cur *reading     // its reading
	own reading      // the lines read here (line), not by a worker
	buf []byte
}

// reading is an input line read: its event, and what reading it costs
// most that the conversion asks for (a model result's usage), worked out
// where the line is read, which may be a worker (readAhead).
type reading struct {
	ev    event.Event
	usage event.Usage // a ModelResult's
	err   error       // why the line is not an event
}

func (p *reading) read(line []byte) {
	p.err = p.ev.Read(line)
	if p.err == nil && p.ev.Meaning == event.ModelResult {
		p.usage = p.ev.Usage()
	}
}

func newConverter(cfg config, write func(*batch) error) *converter {
	return newHandingConverter(cfg, func(b *batch) (*batch, error) { return b, write(b) })
}

// newHandingConverter is a converter that hands each batch to hand, which
// writes it or has it written (on another goroutine: see writeAsync) and
// gives back an empty batch, or one written, whose spans are reused.
func newHandingConverter(cfg config, hand func(*batch) (*batch, error)) *converter {
	if cfg.batch <= 0 {
		cfg.batch = defaultBatch
	}
	return &converter{cfg: cfg, hand: hand, batch: &batch{}, names: map[string]string{}}
}

// defaultBatch is the spans a line or a request holds at most: the
// OpenTelemetry SDKs' batch span processor sends 512 at a time, a size
// every receiver takes.
const defaultBatch = 512

// line reads one input line; the error is why it is not an event.
func (c *converter) line(data []byte) error {
	c.own.read(data)
	return c.convert(&c.own)
}

// convert converts a line read (here, or on a worker: see readAhead); the
// error is why it is not an event.
func (c *converter) convert(p *reading) error {
	if p.err != nil {
		return p.err
	}
	c.cur, c.ev = p, &p.ev
	r := c.runOf(c.ev)
	seq, ts := c.place(r)
	agent := c.agentOf(c.ev, r)
	c.take(r, agent, seq, ts)
	if c.batch.n >= c.cfg.batch {
		c.flush()
	}
	return c.err
}

// take converts the event by its meaning.
func (c *converter) take(r *run, agent string, seq, ts int64) {
	switch c.ev.Meaning {
	case event.RunStart:
		c.runStart(r)
	case event.ModelCall:
		s, unanswered := r.life.ModelCall(c.ev, agent)
		if unanswered != nil {
			c.end(r, unanswered.Data, ts) // a call never answered: its end is the next call
		}
		s.Data = c.chat(r, agent, seq, ts)
	case event.ModelResult:
		c.modelResult(r, agent, seq, ts)
	case event.ModelEnd:
		c.modelEnd(r, agent, ts)
	case event.ModelError:
		if s := r.life.ModelError(agent); s == nil {
			c.lateModelError(r, agent, ts)
		} else {
			c.fail(s.Data, "model_error", c.text(event.Body))
			c.end(r, s.Data, ts)
		}
	case event.ToolStart:
		c.toolStart(r, agent, seq, ts)
	case event.ToolUpdate:
		if c.cfg.content {
			c.toolUpdate(r, agent)
		}
	case event.ToolEnd:
		c.toolEnd(r, agent, seq, ts)
	case event.AgentStart:
		c.agentStart(r, agent, seq, ts)
	case event.AgentEnd:
		c.agentEnd(r, agent, seq, ts)
	case event.Error, event.Ack, event.Kill, event.Guardrail, event.Decision:
		c.spanEvent(r, agent, ts)
	case event.RunEnd:
		if o := c.field(event.Outcome); o != "" {
			r.outcome = o
		}
		c.endRun(r, ts, false)
	}
}

// place is where the event stands in its run's life: its seq (its place
// among the run's events when it has none) and its time (the run's last
// when it has none), which also stretch the run's root span.
func (c *converter) place(r *run) (seq, ts int64) {
	ev := c.ev
	r.places++
	seq, ok := ev.SeqInt()
	if !ok {
		seq = r.places
	}
	ts = r.last
	if us, known, _ := ev.Micros(); known {
		ts = us * 1000
		if r.root.start == 0 || ts < r.root.start {
			r.root.start = ts
		}
		r.last = max(r.last, ts)
	}
	if r.places == 1 {
		r.root.id = spanID(r.key, seq)
	}
	return seq, ts
}

// spanEvent is an event that is no span of its own but an event of the
// span it happened in: an error (which fails the run), a failed
// acknowledgement, a kill, a guardrail or a decision.
func (c *converter) spanEvent(r *run, agent string, ts int64) {
	ev := c.ev
	switch ev.Meaning {
	case event.Error:
		text := c.text(event.Body)
		if ev.Flags&event.Final != 0 {
			r.outcome = c.field(event.Outcome)
		}
		r.failed, r.errText = true, text
		c.spanOf(r, agent).addEvent(ts, "exception", func(a *attrs) { a.str("exception.message", text) })
	case event.Ack:
		if ev.Failed() {
			text := c.text(event.Body)
			r.failed, r.errText = true, text
			c.spanOf(r, agent).addEvent(ts, "exception", func(a *attrs) { a.str("exception.message", text) })
		}
	case event.Kill:
		text := c.text(event.Body)
		c.spanOf(r, agent).addEvent(ts, "evtools.kill", func(a *attrs) { a.str("evtools.reason", text) })
	case event.Guardrail:
		tool, rule, action := c.field(event.Name), c.text(event.Body), c.field(event.Outcome)
		c.spanOf(r, agent).addEvent(ts, "evtools.guardrail", func(a *attrs) {
			a.str("evtools.rule", rule)
			a.str("gen_ai.tool.name", tool)
			a.str("evtools.action", action)
		})
	case event.Decision:
		decision, reason := c.field(event.Outcome), c.text(event.Body)
		c.spanOf(r, agent).addEvent(ts, "evtools.decision", func(a *attrs) {
			a.str("evtools.decision", decision)
			a.str("evtools.reason", reason)
		})
	}
}

// runOf returns the run the event belongs to, begun by it if it is the
// run's first.
func (c *converter) runOf(ev *event.Event) *run {
	l, begun := c.life.Of(ev)
	if !begun {
		return l.Data
	}
	// Events without a run id (raw zot lines) are a run until its end.
	key, anon := l.ID, l.ID == ""
	if anon {
		key = "#" + strconv.Itoa(c.anon+1)
	}
	r := &run{life: l, key: key, anon: anon, trace: traceID(key), res: &resource{service: c.cfg.service}}
	l.Data = r
	source, project, session := runs.Origin(ev.Line) // what evimport says of the session
	if r.res.service == "" {
		r.res.service = c.internRaw(source)
	}
	if r.res.service == "" {
		r.res.service = "evtools"
	}
	r.res.workspace = c.internRaw(project)
	r.session = c.internRaw(session)
	r.root = c.newSpan(r, opAgent, "", [8]byte{}, 0)
	r.root.kind = kindInternal
	return r
}

// agentOf is the event's agent, which the run's life notes (its main
// agent is the first that no agent_spawned began).
func (c *converter) agentOf(ev *event.Event, r *run) string {
	id, ok := event.String(ev.AgentID, &c.buf)
	if !ok || len(id) == 0 {
		return ""
	}
	agent := c.intern(id)
	r.life.See(agent, ev.Meaning)
	return agent
}

// runStart reads the run's model, the agent's version and its workspace.
func (c *converter) runStart(r *run) {
	model := c.ev.Field(event.Model)
	if jsonscan.KindOf(model) == jsonscan.Object {
		v, _ := jsonscan.Lookup(model, "provider")
		r.provider = c.internRaw(v)
		model, _ = jsonscan.Lookup(model, "model")
	}
	if m := c.internRaw(model); m != "" {
		r.model = m
	}
	// The run log's run_started names them; no vocabulary field does, as
	// no other view needs them. A new resource, not a change to the old:
	// spans that ended hold it, and may be being written.
	res := *r.res
	if v := c.lookup(c.ev.Body, "version"); v != "" {
		res.version = v
	}
	if v := c.lookup(c.ev.Body, "workspace"); v != "" {
		res.workspace = v
	}
	if res != *r.res {
		r.res = &res
	}
}

// chat opens a chat span for a model call of agent.
func (c *converter) chat(r *run, agent string, seq, ts int64) *span {
	ch := c.newSpan(r, opChat, agent, c.spanOf(r, agent).id, ts)
	ch.kind = kindClient
	ch.id = spanID(r.key, seq)
	model := c.field(event.Model)
	if model == "" {
		model = r.model
	}
	provider := c.field(event.Provider)
	if provider == "" {
		provider = r.provider
	}
	ch.name = "chat"
	if model != "" {
		ch.name = c.spanName(opChat, model)
	}
	ch.attrs.str("gen_ai.operation.name", "chat")
	ch.attrs.str("gen_ai.provider.name", provider)
	ch.attrs.str("gen_ai.request.model", model)
	if step, ok := c.integer(event.Step); ok {
		ch.attrs.int("evtools.step", step)
	}
	// A call after one that failed is a retry: the agent's span says so.
	if r.retry(agent) {
		c.spanOf(r, agent).addEvent(ts, "evtools.retry", func(a *attrs) { a.str("gen_ai.request.model", model) })
	}
	return ch
}

// retry reports whether agent's last model call failed, and forgets it.
func (r *run) retry(agent string) bool {
	if s := r.life.Find(runs.Agent, agent, nil); s != nil {
		was := s.Data.failed
		s.Data.failed = false
		return was
	}
	was := r.root.failed && agent == r.life.Main
	r.root.failed = false
	return was
}

// modelEnd ends the turn of agent in flight: its stop reason, failed or
// not.
func (c *converter) modelEnd(r *run, agent string, ts int64) {
	s := r.life.ModelEnd(agent)
	if s == nil {
		return
	}
	ch := s.Data
	if stop := c.field(event.Stop); stop != "" {
		ch.attrs.strs("gen_ai.response.finish_reasons", stop)
	}
	if c.ev.Failed() {
		c.fail(ch, "model_error", c.text(event.Body))
	}
	c.end(r, ch, ts)
}

// modelResult sets the open call's tokens and cost; a result without a
// call is a span of its own, begun its latency before.
func (c *converter) modelResult(r *run, agent string, seq, ts int64) {
	var ch *span
	s, _ := r.life.ModelResult(agent)
	if s != nil {
		ch = s.Data
	}
	u := &c.cur.usage
	if ch == nil && u.OfSession {
		c.sessionUsage(r, agent, ts, u)
		return
	}
	if ch == nil {
		start := ts
		if u.HasLatency {
			start -= u.LatencyUS * 1000
		}
		ch = c.chat(r, agent, seq, start)
	}
	if m := c.field(event.Model); m != "" {
		ch.attrs.str("gen_ai.response.model", m)
	}
	// A call whose log kept no usage has no token attributes: zeros
	// would be read as a free call.
	usageAttrs(&ch.attrs, u, !u.NoUsage)
	if stop := c.field(event.Stop); stop != "" {
		ch.attrs.strs("gen_ai.response.finish_reasons", stop)
	}
	if s == nil || !s.Turn {
		c.end(r, ch, ts)
	}
}

// sessionUsage writes a session's totals (a log that keeps no usage per
// call: Copilot CLI's) as an event of the agent's span, not as a chat
// span: there was no call of its own, and a backend would count one.
func (c *converter) sessionUsage(r *run, agent string, ts int64, u *event.Usage) {
	model := c.field(event.Model)
	c.spanOf(r, agent).addEvent(ts, "evtools.session_usage", func(a *attrs) {
		if model != "" {
			a.str("gen_ai.response.model", model)
		}
		usageAttrs(a, u, true)
	})
}

// usageAttrs sets what a model result used: its tokens (with tokens), the
// cache's, and its cost.
func usageAttrs(a *attrs, u *event.Usage, tokens bool) {
	if tokens {
		a.int("gen_ai.usage.input_tokens", u.Tokens[event.TokInput])
		a.int("gen_ai.usage.output_tokens", u.Tokens[event.TokOutput])
	}
	if n := u.Tokens[event.TokCacheRead]; n > 0 {
		a.int("gen_ai.usage.cache_read.input_tokens", n)
	}
	if n := u.Tokens[event.TokCacheWrite]; n > 0 {
		a.int("gen_ai.usage.cache_write.input_tokens", n)
	}
	if u.HasCost {
		a.double("evtools.cost_usd", float64(u.CostNano)/1e9)
	}
}

// lateModelError writes an error that comes after its call ended (pi
// records an aborted call's result, then its error) or without a call,
// as an event of the agent's span: a chat span of its own would be one
// more model call than evsum and the views count. The agent's next call
// is a retry, as after a failed chat span.
func (c *converter) lateModelError(r *run, agent string, ts int64) {
	msg := c.text(event.Body)
	a := c.spanOf(r, agent)
	a.addEvent(ts, "exception", func(at *attrs) {
		at.str("exception.type", "model_error")
		at.str("exception.message", msg)
	})
	r.failedCall(agent)
}

// failedCall notes that agent's model call failed: its next is a retry.
func (r *run) failedCall(agent string) {
	if s := r.life.Find(runs.Agent, agent, nil); s != nil {
		s.Data.failed = true
	} else if agent == r.life.Main {
		r.root.failed = true
	}
}

func (c *converter) toolStart(r *run, agent string, seq, ts int64) {
	s, begun := r.life.ToolStart(&c.life, c.ev, agent)
	if !begun {
		// zot's complete call after its start: only its arguments, whole
		if c.cfg.content {
			if args := c.ev.Field(event.Args); args != nil {
				s.Data.args = append(s.Data.args[:0], args...)
			}
		}
		return
	}
	s.Data = c.openTool(r, s, seq, ts)
}

// toolUpdate takes a piece of a call's arguments or output (--content).
func (c *converter) toolUpdate(r *run, agent string) {
	s := r.life.ToolUpdate(&c.life, c.ev, agent)
	if s == nil {
		return
	}
	if c.ev.Flags&event.Delta != 0 {
		if v, ok := c.ev.FieldString(event.Args, &c.buf); ok {
			s.Data.args = append(s.Data.args, v...)
		}
	}
	if v, ok := c.ev.FieldString(event.Body, &c.buf); ok {
		s.Data.output = append(s.Data.output, v...)
	}
}

func (c *converter) openTool(r *run, s *inFlight, seq, ts int64) *span {
	t := c.newSpan(r, opTool, s.Agent, c.spanOf(r, s.Agent).id, ts)
	t.kind = kindInternal
	t.id = spanID(r.key, seq)
	name := c.field(event.Name)
	t.name = "execute_tool"
	if name != "" {
		t.name = c.spanName(opTool, name)
	}
	t.attrs.str("gen_ai.operation.name", "execute_tool")
	t.attrs.str("gen_ai.tool.name", name)
	if id, ok := strings.CutPrefix(s.Key, "#"); ok {
		t.attrs.str("gen_ai.tool.call.id", id)
	}
	if c.cfg.content {
		if args := c.ev.Field(event.Args); args != nil {
			if s, ok := event.String(args, &c.buf); ok && c.ev.Flags&event.Delta != 0 {
				args = s
			}
			t.args = append(t.args[:0], args...)
		}
	}
	return t
}

func (c *converter) toolEnd(r *run, agent string, seq, ts int64) {
	s, started := r.life.ToolEnd(&c.life, c.ev, agent)
	t := s.Data
	if !started {
		t = c.openTool(r, s, seq, ts) // its start is missing: an instant
	}
	if c.cfg.content {
		if out := c.text(event.Body); out != "" {
			t.output = append(t.output[:0], out...)
		}
	}
	if c.ev.Failed() {
		c.fail(t, "tool_error", "")
	}
	c.end(r, t, ts)
}

// agentStart opens a subagent's span, under the call that spawned it (the
// oldest call of its parent still open that has no subagent yet: Claude
// Code's Task), else under the root.
func (c *converter) agentStart(r *run, agent string, seq, ts int64) {
	s, again, left := r.life.AgentStart(agent)
	if again != nil {
		c.closeAgent(r, again.Data, left, ts)
	}
	parent := r.root
	if by := r.life.Spawner(r.life.Parent(c.ev, &c.buf)); by != nil {
		parent = by.Data
	}
	a := c.newSpan(r, opAgent, agent, parent.id, ts)
	a.kind = kindInternal
	a.id = spanID(r.key, seq)
	role := c.field(event.Name)
	if role == "" {
		role = agent
	}
	a.name = c.spanName(opAgent, role)
	a.attrs.str("gen_ai.operation.name", "invoke_agent")
	a.attrs.str("gen_ai.agent.name", role)
	// gen_ai.agent.id is now a hosted agent's id, never an instance's:
	// which instance of a role this is goes under evtools.
	a.attrs.str("evtools.agent_id", agent)
	if m := c.field(event.Model); m != "" {
		a.attrs.str("gen_ai.request.model", m)
	}
	s.Data = a
}

// agentEnd ends a subagent's span; one never spawned (skipped: the run
// stopped before it) is an instant, so that the trace still shows it.
func (c *converter) agentEnd(r *run, agent string, seq, ts int64) {
	s, left := r.life.AgentEnd(agent)
	if s == nil {
		c.agentStart(r, agent, seq, ts)
		s, left = r.life.AgentEnd(agent)
	}
	c.closeAgent(r, s.Data, left, ts)
}

// closeAgent ends a subagent's span with its outcome, and before it the
// calls it left open.
func (c *converter) closeAgent(r *run, a *span, left []*inFlight, ts int64) {
	for _, s := range left {
		c.cutOff(r, s.Data, ts)
	}
	outcome := c.field(event.Outcome)
	if outcome != "" {
		a.attrs.str("evtools.outcome", outcome)
	}
	if outcome != "" && outcome != "ok" && outcome != "skipped" {
		c.fail(a, outcome, c.text(event.Body))
	}
	c.end(r, a, ts)
}

// endRun ends the run: the spans still open first (cut off: the log says
// no more of them), then the root, with the run's outcome. cut is true
// at the end of the input, where the run itself is cut off.
func (c *converter) endRun(r *run, ts int64, cut bool) {
	open := r.life.Spans()
	for i := len(open) - 1; i >= 0; i-- {
		c.cutOff(r, open[i].Data, ts)
	}
	root := r.root
	root.name = "invoke_agent"
	if r.life.Main != "" {
		root.name = c.spanName(opAgent, r.life.Main)
	}
	a := &root.attrs
	a.str("gen_ai.operation.name", "invoke_agent")
	a.str("gen_ai.agent.name", r.life.Main)
	a.str("gen_ai.conversation.id", r.session)
	// no gen_ai.provider.name: an internal invoke_agent span no longer has
	// one (its chat spans do)
	a.str("gen_ai.request.model", r.model)
	a.str("evtools.run_id", r.key)
	outcome := r.outcome
	switch {
	case cut:
		a.boolean("evtools.cut_off", true)
	case outcome == "" && r.failed:
		outcome = "error"
	case outcome == "":
		outcome = "ok"
	}
	if outcome != "" {
		a.str("evtools.outcome", outcome)
	}
	if !cut && outcome != "ok" {
		c.fail(root, outcome, r.errText)
	}
	if root.start == 0 {
		root.start = ts
	}
	c.end(r, root, ts)
	c.life.End(r.life)
	if r.anon {
		c.anon++
	}
}

// finish ends the runs still open at the end of the input, at their last
// event, cut off, and writes what is left.
func (c *converter) finish() error {
	for open := c.life.Open(); len(open) > 0; open = c.life.Open() {
		r := open[0].Data
		c.endRun(r, r.last, true)
	}
	c.flush()
	return c.err
}

// cutOff ends a span the log never ended: status unset, and an attribute
// that says so.
func (c *converter) cutOff(r *run, s *span, ts int64) {
	s.attrs.boolean("evtools.cut_off", true)
	c.end(r, s, ts)
}

// fail sets a span's status to ERROR with error.type.
func (c *converter) fail(s *span, errType, message string) {
	s.status = statusError
	s.message = message
	s.attrs.str("error.type", errType)
	if s.op == opChat {
		s.failed = true
	}
}

// end ends s at ts, into the batch (the run's life closed it).
func (c *converter) end(r *run, s *span, ts int64) {
	s.end = max(ts, s.start)
	s.res = r.res // the run's resource as it is now: what run_started said
	if s.op == opChat && s.failed {
		r.failedCall(s.agent) // the agent's next call is a retry
	}
	if s.op == opTool && c.cfg.content {
		s.attrs.str("gen_ai.tool.call.arguments", c.redact(s.args))
		s.attrs.str("gen_ai.tool.call.result", c.redact(s.output))
	}
	c.batch.add(s)
}

// flush hands the batch to write, unless it is empty or writing failed.
func (c *converter) flush() {
	if c.batch.n == 0 {
		return
	}
	next, err := c.hand(c.batch)
	if c.err == nil {
		c.err = err
	}
	c.batch = next
	c.batch.take(func(s *span) {
		s.reset()
		c.free = append(c.free, s)
	})
}

func (c *converter) newSpan(r *run, o op, agent string, parent [8]byte, ts int64) *span {
	var s *span
	if n := len(c.free); n > 0 {
		s, c.free = c.free[n-1], c.free[:n-1]
	} else {
		// room for the attributes of a model call, most of any span's:
		// grown one by one, a span's list took five allocations
		s = &span{attrs: make(attrs, 0, 12)}
	}
	s.trace, s.res, s.op, s.agent, s.start = r.trace, r.res, o, agent, ts
	s.parent, s.hasParent = parent, parent != [8]byte{}
	return s
}

// spanOf is the span an agent's events go under: its subagent span while
// it runs, else the run's root.
func (c *converter) spanOf(r *run, agent string) *span {
	if agent != "" && agent != r.life.Main {
		if a := r.life.Find(runs.Agent, agent, nil); a != nil {
			return a.Data
		}
	}
	return r.root
}

func (s *span) addEvent(ts int64, name string, set func(*attrs)) {
	n := len(s.events)
	if n < cap(s.events) {
		// an event of the span's last use: its list of attributes is
		// reused
		s.events = s.events[:n+1]
		e := &s.events[n]
		e.time, e.name, e.attrs = ts, name, e.attrs[:0]
	} else {
		s.events = append(s.events, spanEvent{time: ts, name: name})
	}
	set(&s.events[n].attrs)
}

// field is a field of the event as an interned string ("" when absent or
// not a string): names, models, outcomes, few and repeated.
func (c *converter) field(f event.Field) string {
	return c.internRaw(c.ev.Field(f))
}

// text is a field of the event as text: a string, or the text blocks of
// a content array joined; redacted with --redact. Free text, not interned.
func (c *converter) text(f event.Field) string {
	raw := c.ev.Field(f)
	switch jsonscan.KindOf(raw) {
	case jsonscan.String:
		s, _ := event.String(raw, &c.buf)
		return c.redact(s)
	case jsonscan.Array:
		var out []byte
		jsonscan.Elements(raw, func(v []byte) bool {
			if t, ok := jsonscan.Lookup(v, "text"); ok {
				if s, ok := event.String(t, &c.buf); ok {
					out = append(out, s...)
				}
			}
			return true
		})
		return c.redact(out)
	}
	return ""
}

// redact is text as a string, its secrets replaced with --redact.
func (c *converter) redact(text []byte) string {
	if c.cfg.redactor == nil || len(text) == 0 {
		return string(text)
	}
	q := jsontext.AppendString(nil, text)
	out, changed := c.cfg.redactor.Line(nil, q)
	if !changed {
		return string(text)
	}
	s, _ := event.String(out, &c.buf)
	return string(s)
}

func (c *converter) integer(f event.Field) (int64, bool) {
	v := c.ev.Field(f)
	if jsonscan.KindOf(v) != jsonscan.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// lookup is a top-level member of obj as a string, interned.
func (c *converter) lookup(obj []byte, name string) string {
	v, _ := jsonscan.Lookup(obj, name)
	return c.internRaw(v)
}

func (c *converter) internRaw(raw []byte) string {
	s, ok := event.String(raw, &c.buf)
	if !ok {
		return ""
	}
	return c.intern(s)
}

// intern returns b as a string, the same string for the same bytes while
// the table has room: names repeat on every event, and a string made once
// costs no allocation after.
func (c *converter) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	// The names met last, by a hash of their length and ends: a few
	// names (the agent, the model, a tool) come again line after line,
	// and a comparison costs less than hashing the name for the map.
	recent := &c.recent[(len(b)+int(b[0])+int(b[len(b)-1])*7)%len(c.recent)]
	if *recent == string(b) {
		return *recent
	}
	s, ok := c.names[string(b)]
	if !ok {
		s = string(b)
		if len(c.names) < 4096 {
			c.names[s] = s
		}
	}
	*recent = s
	return s
}

// opNames are the operations' names, which begin their spans' names.
var opNames = [...]string{opAgent: "invoke_agent", opChat: "chat", opTool: "execute_tool"}

// spanName is the name of a span of operation o of name (a model, a tool,
// an agent): made once per name, as they repeat from span to span.
func (c *converter) spanName(o op, name string) string {
	m := c.spanNames[o]
	if s, ok := m[name]; ok {
		return s
	}
	s := opNames[o] + " " + name
	if m == nil {
		m = map[string]string{}
		c.spanNames[o] = m
	}
	if len(m) < 4096 {
		m[name] = s
	}
	return s
}
