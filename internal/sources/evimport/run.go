package evimport

import (
	"sort"
	"strconv"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/prices"
)

// session is one session's events, in the order they happened, and the
// subagents to splice into them.
type session struct {
	source  string // claude, codex, pi, gemini
	id      string
	project string // the working directory, or what the source has instead
	events  []event
	threads []*thread
	tools   map[string]int  // tool_call id -> index in events, for splicing
	results map[string]bool // tool_result ids of the session's own thread
	seqBase int64           // the seq before the first event (--follow writes sessions in parts)
	host    string          // the machine's name (--host), "" for none
	at      order           // its place among the inputs
}

// newSession is a session of source to convert into; its id and project
// may be left for its records to name.
func newSession(source, id, project string) *session {
	return &session{source: source, id: id, project: project, tools: map[string]int{}, results: map[string]bool{}}
}

// thread is a subagent's events, spliced into its parent's session after
// the tool call that spawned it (anchor), else where its time falls.
type thread struct {
	anchor  string // the id of the parent's tool call; "" when not known
	firstMS int64
	events  []event // run set when spliced
}

// usage is what one model response used, in evimport's terms: input is
// every prompt token, cached or not; cacheRead, cacheWrite (and
// cacheWrite1h, its 1-hour part) are parts of it; output is every
// generated token, reasoning its part.
type usage struct {
	provider, model            string
	input, output              int64
	cacheRead, cacheWrite      int64
	cacheWrite1h, reasoning    int64
	has1h, hasReasoning        bool
	cost                       float64 // recorded in the log, when hasCost
	hasCost                    bool
	stop, thinking, responseID string
	unknown                    bool // the log records no usage for the call
	untiered                   bool // a session's total, no one call: priced without long-context tiers (copilot)
}

// tokens is u as the price table counts it.
func (u usage) tokens() prices.Tokens {
	return prices.Tokens{Input: u.input, Output: u.output, CacheRead: u.cacheRead, CacheWrite: u.cacheWrite, CacheWrite1h: u.cacheWrite1h}
}

// cacheApart is the usage of an agent whose input count leaves the cache
// out (Claude's input_tokens, pi's input): input is the sum of the three.
func cacheApart(uncached, read, write, output int64) usage {
	return usage{input: uncached + read + write, cacheRead: read, cacheWrite: write, output: output}
}

// builder turns one thread of a log (a session's own, or a subagent's)
// into envelope events: runs, model calls, tool calls, replies.
type builder struct {
	conv    *converter
	s       *session
	agent   string // agent_id of the events
	sub     bool   // a subagent's thread: no runs of its own
	version string // of the agent that wrote the log
	out     []event
	// logCost, when set, is the cost the log gives a call of model in a
	// record of its own (Claude Code's cost-state), ok false for none
	logCost func(model string, u usage) (cost float64, ok bool)

	run        string
	runs       int
	open       bool
	started    bool // run_started written
	runStartMS int64
	lastMS     int64
	final      bool   // an assistant_message since the last error
	lastError  string // of the run, when it failed
	stopped    string // how it stopped, with lastError

	step            int
	provider, model string
	tools           map[string]string // tool call id -> tool name
	intent          string            // a subagent's first prompt: what it was asked
	pending         []string          // calls of the response whose result is to come
	// unrun are the calls of a response that failed, which the agent did
	// not run; answered the calls with a result. The run's end ends those
	// unrun and unanswered, so that no call stays open for ever.
	unrun    []string
	answered map[string]bool
	closing  bool // ending the log's last run: its end may change
}

func newBuilder(c *converter, s *session, agent string, sub bool) *builder {
	b := &builder{conv: c, s: s, agent: agent, sub: sub, tools: map[string]string{}}
	if !sub {
		b.out, c.spare = c.spare, nil // most of a session's events are its own thread's
	}
	return b
}

// obj begins a payload (see arena) with room for about n bytes.
func (b *builder) obj(n int) *object { return b.conv.obj(n) }

func (b *builder) emit(ms int64, agent, kind string, payload []byte) {
	if ms == 0 {
		ms = b.lastMS
	} else if ms > b.lastMS {
		b.lastMS = ms
	}
	b.out = append(b.out, event{ms: ms, run: b.run, agent: agent, kind: kind, payload: payload, unsettled: b.closing})
}

// unsettle marks the events from index from on as open to change.
func (b *builder) unsettle(from int) {
	for i := from; i < len(b.out); i++ {
		b.out[i].unsettled = true
	}
}

// prompt starts a run: the user's prompt and the agent's work on it.
func (b *builder) prompt(ms int64, text string) {
	if b.sub {
		if b.intent == "" {
			b.intent = text
		}
		return
	}
	b.endRun()
	b.runs++
	b.openRun(ms, b.runs)
	b.emit(ms, "", "user_message", b.obj(len(text)).str("text", text).done())
}

func (b *builder) openRun(ms int64, n int) {
	b.run = b.s.id + "/" + strconv.Itoa(n)
	b.open, b.started, b.final = true, false, false
	b.lastError, b.stopped, b.step = "", "", 0
	if ms == 0 {
		ms = b.lastMS
	}
	b.runStartMS = ms
}

// ensureRun opens run 0 for what a log records before its first prompt
// (Claude's warm-up agents, a resumed Codex session's first token count).
func (b *builder) ensureRun(ms int64) {
	if !b.sub && !b.open {
		b.openRun(ms, 0)
	}
}

func (b *builder) ensureStarted(ms int64) {
	b.ensureRun(ms)
	if b.sub || b.started {
		return
	}
	b.started = true
	model := b.obj(0).strIf("provider", b.provider).strIf("model", b.model).str("source", "log").done()
	b.emit(ms, "", "run_started", b.obj(0).str("mode", "agent").strIf("workspace", b.s.project).
		strIf("version", b.version).raw("model", model).done())
}

// setModel notes the model the next calls go to, as the log names it.
func (b *builder) setModel(provider, model string) {
	if provider != "" {
		b.provider = provider
	}
	if model != "" {
		b.model = model
	}
}

// modelCall is a request to the model.
func (b *builder) modelCall(ms int64) {
	b.ensureStarted(ms)
	b.step++
	b.emit(ms, b.agent, "model_call", b.obj(0).num("step", int64(b.step)).strIf("provider", b.provider).strIf("model", b.model).done())
}

// modelResult is the model's answer to the last modelCall.
func (b *builder) modelResult(ms int64, u usage) {
	b.ensureStarted(ms)
	if u.provider == "" {
		u.provider = b.provider
	}
	if u.model == "" {
		u.model = b.model
	}
	// A subagent started by a call of this response goes after its
	// result, so that the response reads whole.
	for _, id := range b.pending {
		b.s.tools[id] = len(b.out)
	}
	b.pending = b.pending[:0]
	b.emit(ms, b.agent, "model_result", b.conv.resultPayload(b.step, u))
}

// text is the assistant's reply text.
func (b *builder) text(ms int64, text string) {
	if text == "" {
		return
	}
	b.ensureStarted(ms)
	b.emit(ms, b.agent, "assistant_message", b.obj(len(text)).str("text", text).str("source", "agent").done())
	b.final, b.lastError = true, ""
}

// toolCall is a tool call, args a JSON object.
func (b *builder) toolCall(ms int64, id, tool string, args []byte) {
	b.ensureStarted(ms)
	if len(args) == 0 {
		args = []byte("{}")
	}
	b.tools[id] = tool
	if b.agent == mainAgent && !b.sub {
		b.s.tools[id] = len(b.out)
		b.pending = append(b.pending, id)
	}
	b.emit(ms, b.agent, "tool_call", b.obj(0).num("step", int64(b.step)).str("id", id).str("tool", tool).raw("args", args).done())
}

// toolResult is the end of the tool call id.
func (b *builder) toolResult(ms int64, id string, ok bool, output string) {
	b.toolResultQuoted(ms, id, ok, output, nil)
}

// toolResultQuoted is toolResult with the output as the log holds it, a
// JSON string as jsontext writes it (jsontext.Canonical), copied as it
// is; output is read only when quoted is nil.
func (b *builder) toolResultQuoted(ms int64, id string, ok bool, output string, quoted []byte) {
	b.ensureStarted(ms)
	if b.unrun != nil {
		b.answered[id] = true
	}
	if b.agent == mainAgent && !b.sub && b.s.results != nil {
		b.s.results[id] = true
	}
	o := b.obj(len(output)+len(quoted)).num("step", int64(b.step)).str("id", id).str("tool", b.tools[id]).boolean("ok", ok)
	if !ok {
		o.boolean("is_error", true)
	}
	if quoted != nil {
		o.key("output")
		o.b = append(o.b, quoted...)
	} else {
		o.str("output", output)
	}
	b.emit(ms, b.agent, "tool_result", o.done())
}

// modelError is a model request that failed; stopped says how the run
// ends if nothing follows it (error, or killed for an interruption).
func (b *builder) modelError(ms int64, message, stopped string) {
	b.ensureStarted(ms)
	b.emit(ms, b.agent, "model_error", b.obj(0).num("step", int64(b.step)).str("message", message).
		strIf("provider", b.provider).strIf("model", b.model).done())
	b.final, b.lastError, b.stopped = false, message, stopped
}

// notRun notes the calls of a response that failed: the agent does not
// run them (the run's end says so, unless a result turns up).
func (b *builder) notRun(ids []string) {
	if len(ids) > 0 && b.answered == nil {
		b.answered = map[string]bool{}
	}
	b.unrun = append(b.unrun, ids...)
}

// interrupted is the user stopping the agent: the run ends with
// run_error (stopped "killed") unless a reply follows.
func (b *builder) interrupted(ms int64, what string) {
	if b.sub {
		return
	}
	b.ensureRun(ms)
	b.lastMS = max(b.lastMS, ms) // the run ends when the user stopped it
	b.final, b.lastError, b.stopped = false, what, "killed"
}

// compaction is the agent summarising its context to free room: kind
// compaction, which the run log lacks (docs/formats.md).
func (b *builder) compaction(ms int64, trigger string, preTokens int64, summary string) {
	b.ensureStarted(ms)
	o := b.obj(0).strIf("trigger", trigger)
	if preTokens > 0 {
		o.num("pre_tokens", preTokens)
	}
	b.emit(ms, b.agent, "compaction", o.strIf("summary", summary).done())
}

// endRun writes the end of the open run: run_error when it has no reply
// after its last error, then run_finished.
func (b *builder) endRun() {
	if b.sub || !b.open {
		return
	}
	b.ensureStarted(b.lastMS)
	for _, id := range b.unrun {
		if !b.answered[id] {
			b.toolResult(b.lastMS, id, false, "not run: the response that asked for it failed")
		}
	}
	b.unrun, b.answered = nil, nil
	outcome := "ok"
	if !b.final || b.lastError != "" {
		stopped, why := b.stopped, b.lastError
		if why == "" {
			stopped, why = "incomplete", "the log has no reply to this prompt"
		}
		if stopped == "" {
			stopped = "error"
		}
		outcome = stopped
		b.emit(b.lastMS, "", "run_error", b.obj(0).str("stopped", stopped).str("error", why).done())
	}
	wall := b.obj(0).str("outcome", outcome).done()
	if b.runStartMS > 0 {
		wall = withWall(wall, b.lastMS-b.runStartMS)
	}
	b.emit(b.lastMS, "", "run_finished", wall)
	b.open = false
}

// withWall adds wall_seconds, ms in seconds, to the end of payload, a
// JSON object made: the time a run or a subagent took.
func withWall(payload []byte, ms int64) []byte {
	return append(jsontext.AppendFixed(append(payload[:len(payload)-1], `,"wall_seconds":`...), ms, 3), '}')
}

// finish ends the open run and hands the events to the session.
func (b *builder) finish() {
	b.closing = true
	b.endRun()
	b.closing = false
	if len(b.s.events) == 0 {
		b.s.events = b.out // not copied
	} else {
		b.s.events = append(b.s.events, b.out...)
	}
	b.out = nil
}

// thread ends a subagent's builder: its events bracketed by agent_spawned
// and agent_finished, to be spliced into the session.
func (b *builder) thread(anchor, role, intent string, firstMS int64) {
	if intent == "" {
		intent = oneLine(b.intent, 200)
	}
	spawned := b.obj(0).str("parent_id", mainAgent).str("role", role).strIf("intent", intent).strIf("model", b.model).done()
	outcome := "ok"
	if b.lastError != "" {
		outcome = "error"
	}
	startMS := firstMS
	if startMS == 0 && len(b.out) > 0 {
		startMS = b.out[0].ms
	}
	events := append([]event{{ms: startMS, agent: b.agent, kind: "agent_spawned", payload: spawned}}, b.out...)
	fin := b.obj(0).str("outcome", outcome)
	if b.lastError != "" {
		fin.str("error", b.lastError)
	}
	payload := fin.done()
	if startMS > 0 && b.lastMS >= startMS {
		payload = withWall(payload, b.lastMS-startMS)
	}
	events = append(events, event{ms: b.lastMS, agent: b.agent, kind: "agent_finished", payload: payload})
	b.s.threads = append(b.s.threads, &thread{anchor: anchor, firstMS: startMS, events: events})
	b.out = nil
}

// subagent is a subagent's thread while its session is converted: its
// builder, the call that spawned it (anchor, "" for none known), what it
// is (role), what it was asked (about) and when it began (firstMS, 0:
// its first event's time).
type subagent struct {
	b            *builder
	anchor, role string
	about        string
	firstMS      int64
}

// end ends a session converted by main and its subagents subs: each
// subagent's thread, in the order they were met, then the main
// thread's last run; the threads are spliced in.
func (s *session) end(main *builder, subs []*subagent) *session {
	for _, sb := range subs {
		sb.b.thread(sb.anchor, sb.role, sb.about, sb.firstMS)
	}
	main.finish()
	s.splice()
	return s
}

// splice puts the session's subagent threads into its events: after the
// tool call that spawned each (after the result of its response), else before the first event later than
// the thread's start; the thread's events take the run of the event
// before them.
func (s *session) splice() {
	if len(s.threads) == 0 {
		return
	}
	type place struct {
		at int // insert before events[at]
		th *thread
	}
	places := make([]place, 0, len(s.threads))
	for _, th := range s.threads {
		s.settle(th)
		at, ok := s.tools[th.anchor]
		if ok {
			at++
		} else {
			at = sort.Search(len(s.events), func(i int) bool { return s.events[i].ms > th.firstMS && th.firstMS > 0 })
			if th.firstMS == 0 {
				at = len(s.events)
			}
		}
		places = append(places, place{at, th})
	}
	sort.SliceStable(places, func(i, j int) bool { return places[i].at < places[j].at })
	out := make([]event, 0, len(s.events)+len(places)*4+2)
	next := 0
	first := 0
	for first < len(places) && places[first].at == 0 {
		first++
	}
	if first > 0 {
		// Before the first event of the session (Claude Code's warm-up
		// agents): run 0, which holds what no prompt asked for.
		ths := make([]*thread, first)
		for i := range ths {
			ths[i] = places[i].th
		}
		out = appendRun0(out, s.id+"/0", ths)
		places = places[first:]
	}
	for _, p := range places {
		out = append(out, s.events[next:p.at]...)
		next = p.at
		run := out[len(out)-1].run
		for _, e := range p.th.events {
			e.run = run
			out = append(out, e)
		}
	}
	s.events = append(out, s.events[next:]...)
	s.threads = nil
}

// settle marks a subagent's end as open to change while the call that
// spawned it has no result yet: the agent may still be working.
func (s *session) settle(th *thread) {
	if th.anchor == "" || s.results[th.anchor] {
		return
	}
	if n := len(th.events); n > 0 {
		th.events[n-1].unsettled = true
	}
}

// holdUnplaced marks the session's last thread as open to change while
// no known call spawned it and it goes before all of the session's
// events (splice): a run 0 of its own, where the run of the call that
// spawned it, which the parent has not written yet (--follow), is its
// place. A source's warm-up agent, which no call spawns, is not held.
func (s *session) holdUnplaced() {
	th := s.threads[len(s.threads)-1]
	if _, ok := s.tools[th.anchor]; ok {
		return // after its call
	}
	if len(s.events) > 0 && (th.firstMS == 0 || s.events[0].ms <= th.firstMS) {
		return // by its time, after an event of the session's
	}
	for i := range th.events {
		th.events[i].unsettled = true
	}
}

// appendRun0 appends a run of its own for the threads that no prompt
// started.
func appendRun0(out []event, run string, ths []*thread) []event {
	firstMS := ths[0].firstMS
	// the run's start and end are as settled as its first and last
	// events: a thread whose place may change takes them with it
	held := len(ths[0].events) > 0 && ths[0].events[0].unsettled
	out = append(out, event{ms: firstMS, run: run, kind: "run_started", payload: []byte(`{"mode":"agent"}`), unsettled: held})
	lastMS := firstMS
	for _, th := range ths {
		for _, e := range th.events {
			e.run = run
			out = append(out, e)
			lastMS = max(lastMS, e.ms)
			held = held || e.unsettled
		}
	}
	return append(out, event{ms: lastMS, run: run, kind: "run_finished", payload: []byte(`{"outcome":"ok"}`), unsettled: held})
}
