package transcript

import (
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/folds/runs"
	"github.com/evtools/evtools/internal/views/eventtext"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// totals are what a run, an agent or the page used and did.
type totals struct {
	models, tools, toolFails, errors, kills, guards int
	tokens, costNano                                int64
	hasCost                                         bool
}

func (t *totals) add(u *totals) {
	t.models += u.models
	t.tools += u.tools
	t.toolFails += u.toolFails
	t.errors += u.errors
	t.kills += u.kills
	t.guards += u.guards
	t.tokens += u.tokens
	t.costNano += u.costNano
	t.hasCost = t.hasCost || u.hasCost
}

// runHead is what the page keeps of every run once its section is
// written: what the run list and the headline show.
type runHead struct {
	n            int // its number on the page, from 1
	id           string
	prompt       string // its first user message
	first, last  int64  // µs, 0 unknown
	outcome      string // "" when the stream has no end of it
	wallUS       int64
	tot          totals
	live         *run // while it is open
	entriesShown int
	omitted      bool     // no section: the page was full
	where        []string // the agent, project and session imported events name
	whereRead    bool
	cmd          string // the command that writes a page of it alone
}

// life is a run's life as package runs follows it: its model and tool
// calls in flight are entries of the page.
type life = runs.Run[*run, *item]

// run is a run being read: its entries as a tree, and what its timeline
// draws.
type run struct {
	life    *life
	head    *runHead
	model   string // the model run_started resolved
	items   []*item
	agents  map[string]*agent
	lanes   []*agent // the timeline's lanes, in order of appearance
	main    *agent   // the first agent named, not spawned: the parent
	entries int      // entries made; past MaxEntries they are not shown
	hidden  int
	timed   []*item // model and tool calls, for the timeline
	marks   []*item // errors, kills, guardrails
	lastErr string  // the error text of the last failed turn
	hasWall bool
}

// agent is one agent of a run (the session's events, agent_id "", are
// the main agent's).
type agent struct {
	id       string
	lane     int
	block    *item // its entry in its parent's list; nil for the main agent
	list     *[]*item
	text     *item // the reply being written in pieces
	turnText *item // the last reply of the model turn, which a whole text restates
	tot      totals
}

type itemKind uint8

const (
	kUser itemKind = iota
	kReply
	kModel
	kTool
	kAgent
	kError
	kKill
	kGuardrail
	kDecision
	kOther
	kEnd
)

// item is one entry of the transcript.
type item struct {
	kind   itemKind
	at     int64 // µs, 0 unknown
	hidden bool  // past the run's limit: counted and timed, not shown
	max    int   // the most bytes its texts keep: 0 when hidden
	lane   int
	agent  string

	text     clip // the message, the reply, the error, the reason, the intent
	name     string
	id       string
	model    string
	step     string
	outcome  string
	failed   bool
	replaced bool // a whole text replaced the pieces

	// a model call
	start, end int64
	usage      event.Usage
	hasUsage   bool
	thinking   clip
	stop       string
	turn       bool // a turn's start: its end, not its usage, ends it

	// a tool call
	args     clip
	output   clip
	progress clip
	ended    bool

	// a sub-agent, and the sub-agents under a tool call
	children []*item
	tot      totals
	wallUS   int64

	payload []byte // an event no meaning covers
}

// clip is a text kept up to a limit; cut counts the bytes left out.
type clip struct {
	b   []byte
	cut int
}

func (c *clip) add(s []byte, limit int) {
	room := limit - len(c.b)
	if room >= len(s) {
		c.b = append(c.b, s...)
		return
	}
	for room > 0 && !utf8.RuneStart(s[room]) {
		room-- // cut between characters
	}
	if room > 0 {
		c.b = append(c.b, s[:room]...)
	}
	c.cut += len(s) - max(room, 0)
}

// keep adds s to a text of an entry (replaces it, with reset), and counts
// what the page keeps.
func (t *Writer) keep(c *clip, s []byte, limit int, reset bool) {
	n := len(c.b)
	if reset {
		c.b, c.cut = c.b[:0], 0
	}
	c.add(s, limit)
	t.kept += len(c.b) - n
}

// entryBytes is about what an entry's markup takes on the page, its texts
// aside.
const entryBytes = 400

// read takes one line of the input: it finds the event's run and agent,
// notes what the run's head shows, and hands the event to what follows
// the life of its run, model call, tool call or agent.
func (t *Writer) read(line []byte) {
	ev := &t.ev
	if err := ev.Read(line); err != nil && err != event.ErrNotEvent {
		// The tools report bad lines; one that reaches the page is only
		// counted, in the footer.
		t.badLines++
		return
	}
	t.events++
	at := ev.UnixMicro(&t.sbuf)
	r := t.runOf(ev)
	t.who = event.StringOf(ev.AgentID, &t.sbuf)
	a := r.agentOf(t, t.who, ev)
	r.head.note(line, at)
	if ev.Meaning != event.Text {
		a.text = nil
	}
	t.take(r, a, at)
}

// take adds the event to the run by its meaning.
func (t *Writer) take(r *run, a *agent, at int64) {
	ev := &t.ev
	switch ev.Meaning {
	case event.UserMessage:
		t.userMessage(r, a, at)
	case event.RunStart:
		r.model = eventtext.Model(ev.Field(event.Model))
	case event.Text:
		t.text(r, a, at)
	case event.ModelCall:
		t.modelCall(r, a, at)
	case event.ModelResult:
		t.modelResult(r, a, at)
	case event.ModelEnd:
		t.modelEnd(r, a, at)
	case event.ModelError:
		t.modelError(r, a, at)
	case event.Error:
		if s := eventtext.BodyText(ev); s == "" || s != r.lastErr { // else the failed turn said it
			t.mark(r, a, kError, at, ev.FieldText(event.Outcome, &t.sbuf), ev.Field(event.Body))
		}
	case event.Kill:
		t.mark(r, a, kKill, at, "", ev.Field(event.Body))
	case event.Guardrail:
		it := t.mark(r, a, kGuardrail, at, ev.FieldText(event.Outcome, &t.sbuf), ev.Field(event.Body))
		it.name = ev.FieldText(event.Name, &t.sbuf)
	case event.ToolStart:
		t.toolStart(r, a, at)
	case event.ToolUpdate:
		t.toolUpdate(r)
	case event.ToolEnd:
		t.toolEnd(r, a, at)
	case event.AgentStart, event.AgentEnd:
		t.agentEvent(r, a, at)
	case event.Decision:
		it := r.add(t, a, &item{kind: kDecision, at: at, outcome: ev.FieldText(event.Outcome, &t.sbuf)})
		t.keep(&it.text, []byte(eventtext.BodyText(ev)), it.max, false)
	case event.Ack:
		if ev.Failed() { // an acknowledgement that went well says nothing a reader needs
			cmd, _ := jsonscan.Lookup(ev.Body, "command")
			t.mark(r, a, kError, at, nonEmpty(eventtext.Text(cmd), "command")+" failed", ev.Field(event.Body))
		}
	case event.RunEnd:
		t.runEnd(r, a, at)
	default:
		t.other(r, a, at)
	}
}

// agentEvent fills the entry of a sub-agent with what its start says, or
// ends it: its outcome, wall time and last words.
func (t *Writer) agentEvent(r *run, a *agent, at int64) {
	ev, b := &t.ev, a.block
	start := ev.Meaning == event.AgentStart
	if start {
		r.life.AgentStart(t.who)
	} else {
		r.life.AgentEnd(t.who)
	}
	switch {
	case b == nil:
	case start:
		b.at = at
		b.name = nonEmpty(ev.FieldText(event.Name, &t.sbuf), b.name)
		b.model = eventtext.Model(ev.Field(event.Model))
		t.keep(&b.text, []byte(eventtext.BodyText(ev)), b.max, true)
	default:
		b.ended, b.end = true, at
		b.outcome = nonEmpty(ev.FieldText(event.Outcome, &t.sbuf), "ended")
		b.wallUS, _ = eventtext.SecondsUS(ev.Field(event.Wall))
		if s := eventtext.BodyText(ev); s != "" {
			t.keep(&b.output, []byte(s), b.max, true)
		}
	}
}

// note takes what the run list shows of every event of the run: where
// its events come from, and its first and last times.
func (h *runHead) note(line []byte, at int64) {
	if !h.whereRead {
		// Read once a run: evimport's events name the agent that wrote
		// the log, its project and its session beside the envelope.
		h.whereRead = true
		source, project, session := runs.Origin(line)
		for i, v := range [][]byte{source, project, session} {
			s := eventtext.Text(v)
			if r := []rune(s); i == 2 && len(r) > 8 {
				s = string(r[:8]) // the start of a session id tells it apart
			}
			if s != "" {
				h.where = append(h.where, s)
			}
		}
	}
	if at != 0 {
		if h.first == 0 || at < h.first {
			h.first = at
		}
		h.last = max(h.last, at)
	}
}

// userMessage is an entry of the message; the run's first is its prompt.
func (t *Writer) userMessage(r *run, a *agent, at int64) {
	s := eventtext.BodyText(&t.ev)
	if r.head.prompt == "" {
		r.head.prompt = s
	}
	it := r.add(t, a, &item{kind: kUser, at: at})
	t.keep(&it.text, []byte(s), it.max, false)
}

// runEnd closes the run: its outcome (said, else from its errors and
// kills), its wall time and its last entry.
func (t *Writer) runEnd(r *run, a *agent, at int64) {
	ev, h := &t.ev, r.head
	h.outcome = ev.FieldText(event.Outcome, &t.sbuf)
	if h.outcome == "" {
		h.outcome = "ok"
		if h.tot.errors > 0 || h.tot.kills > 0 {
			h.outcome = "error"
		}
	}
	if us, ok := eventtext.SecondsUS(ev.Field(event.Wall)); ok {
		h.wallUS, r.hasWall = us, true
	}
	r.add(t, a, &item{kind: kEnd, at: at, outcome: h.outcome})
	t.finish(r)
}

// modelCall is an entry of a model call, counted when it starts, as
// evsum counts it: one that fails before its result was still made.
func (t *Writer) modelCall(r *run, a *agent, at int64) {
	ev := &t.ev
	s, _ := r.life.ModelCall(ev, t.who)
	it := r.add(t, a, &item{kind: kModel, at: at, start: at, model: eventtext.Model(ev.Field(event.Model)), step: eventtext.Number(ev.Field(event.Step)),
		turn: s.Turn})
	s.Data, a.turnText = it, nil
	r.timed = append(r.timed, it)
	r.count(a, totals{models: 1})
}

// modelEnd ends the model turn in flight, failed or not.
func (t *Writer) modelEnd(r *run, a *agent, at int64) {
	ev := &t.ev
	s := r.life.ModelEnd(t.who)
	if s == nil {
		return // a turn's end whose start the stream does not have: nothing to show
	}
	it := s.Data
	it.end, it.stop = at, ev.FieldText(event.Stop, &t.sbuf)
	if ev.Failed() {
		it.failed = true
		t.keep(&it.text, []byte(eventtext.BodyText(ev)), it.max, true)
		r.lastErr = string(it.text.b)
		r.count(a, totals{errors: 1})
	}
}

// modelError fails the model call in flight, and is an entry of its own.
func (t *Writer) modelError(r *run, a *agent, at int64) {
	if s := r.life.ModelError(t.who); s != nil && !s.Data.hasUsage {
		s.Data.failed, s.Data.end = true, at
	}
	it := t.mark(r, a, kError, at, "model", t.ev.Field(event.Body))
	r.lastErr = string(it.text.b)
}

// runOf returns the open run of the event, or a new one (a run that has
// ended and is named again, as raw zot lines without run ids are, is a
// new run).
func (t *Writer) runOf(ev *event.Event) *run {
	l, begun := t.life.Of(ev)
	if !begun {
		return l.Data
	}
	h := &runHead{n: len(t.runs) + 1, id: l.ID}
	r := &run{life: l, head: h, agents: map[string]*agent{}}
	l.Data, h.live = r, r
	t.runs = append(t.runs, h)
	return r
}

// agentOf returns the run's agent of the id, met for the first time when
// needed: the session's events and the run's main agent (package runs
// says which) are the main agent's, whose entries are the run's; another
// agent is a sub-agent, whose entries go in a block of its own under the
// tool call of its parent that spawned it, else after its parent's last
// entry.
func (r *run) agentOf(t *Writer, id string, ev *event.Event) *agent {
	main := r.life.See(id, ev.Meaning)
	if a := r.agents[id]; a != nil {
		return a
	}
	if r.main == nil {
		// Spawned before any other agent spoke: the parent is unnamed.
		r.main = &agent{list: &r.items}
		r.lanes = append(r.lanes, r.main)
	}
	if id == "" || main {
		if id != "" {
			r.main.id = id // the session's events may have come first
		}
		r.agents[id] = r.main
		return r.main
	}
	parent, parentID := r.main, r.life.Main
	if ev.Meaning == event.AgentStart {
		parentID = r.life.Parent(ev, &t.sbuf)
		if p := r.agents[parentID]; p != nil {
			parent = p
		}
	}
	a := &agent{id: id, lane: len(r.lanes)}
	r.lanes = append(r.lanes, a)
	r.agents[id] = a
	b := &item{kind: kAgent, name: id, lane: a.lane, agent: id}
	a.block = b
	a.list = &b.children
	dst := parent.list
	if by := r.life.Spawner(parentID); by != nil && !by.Data.hidden {
		dst = &by.Data.children
	}
	r.place(t, dst, b)
	return a
}

// count adds u to the totals of the agent and of the run.
func (r *run) count(a *agent, u totals) {
	a.tot.add(&u)
	r.head.tot.add(&u)
}

// add puts an entry at the end of the agent's list, or counts it as not
// shown past the run's limit.
func (r *run) add(t *Writer, a *agent, it *item) *item {
	it.lane, it.agent = a.lane, a.id
	r.place(t, a.list, it)
	return it
}

func (r *run) place(t *Writer, dst *[]*item, it *item) {
	r.entries++
	it.max = t.o.MaxText
	t.kept += entryBytes
	if it.kind == kTool {
		// A tool's arguments and output are read less than the talk
		// around them, and are most of a large session's bytes.
		it.max = t.o.MaxText / 4
	}
	if r.entries > t.o.MaxEntries || t.kept > t.o.MaxPage {
		it.max = 0
		it.hidden = true
		r.hidden++
		return
	}
	*dst = append(*dst, it)
}

// text takes assistant text: a piece joins the reply being written; the
// whole text after its pieces replaces them (it is what the model wrote
// in the end); a whole text without pieces is a reply of its own. A whole
// text of tool calls only adds nothing: the calls are entries.
func (t *Writer) text(r *run, a *agent, at int64) {
	ev := &t.ev
	body := ev.Field(event.Body)
	s := eventtext.Text(body)
	if ev.Flags&event.Delta != 0 {
		if a.text == nil {
			a.text = r.add(t, a, &item{kind: kReply, at: at})
			a.turnText = a.text
		}
		t.keep(&a.text.text, []byte(s), a.text.max, false)
		return
	}
	a.text = nil
	if strings.TrimSpace(s) == "" {
		return // blank lines ("\n\n" before tool calls) are no reply
	}
	if it := a.turnText; it != nil && !it.replaced {
		t.keep(&it.text, []byte(s), it.max, true)
		it.replaced = true
		return
	}
	it := r.add(t, a, &item{kind: kReply, at: at})
	t.keep(&it.text, []byte(s), it.max, false)
	it.replaced = true
	a.turnText = it
}

// modelResult completes the model call in flight with what it used, or
// is an entry of its own when no call began.
func (t *Writer) modelResult(r *run, a *agent, at int64) {
	ev := &t.ev
	var it *item
	s, again := r.life.ModelResult(t.who)
	if s != nil && !again {
		it = s.Data
	}
	use := ev.Usage()
	if it == nil {
		it = r.add(t, a, &item{kind: kModel, at: at, start: at})
		// a session's totals (Copilot CLI's) took no time of their own:
		// no bar on the timeline, where it would read as a call
		if !use.OfSession {
			r.timed = append(r.timed, it)
		}
	}
	it.usage, it.hasUsage = use, true
	if m := eventtext.Model(ev.Field(event.Model)); m != "" {
		it.model = m
	}
	if s := eventtext.Number(ev.Field(event.Step)); s != "" {
		it.step = s
	}
	if th := ev.Field(event.Thinking); th != nil {
		t.keep(&it.thinking, []byte(eventtext.Text(th)), it.max, true)
	}
	if !it.turn {
		// A run log's model_result ends its call; a turn (zot's usage)
		// ends at its turn_end.
		it.end = at
	}
	if it.usage.HasLatency && (it.start == 0 || it.start == it.end) && it.end != 0 {
		it.start = it.end - it.usage.LatencyUS
	}
	r.count(a, totals{tokens: it.usage.Tokens[event.TokTotal], costNano: it.usage.CostNano, hasCost: it.usage.HasCost})
}

func (t *Writer) toolStart(r *run, a *agent, at int64) {
	ev := &t.ev
	name := ev.FieldText(event.Name, &t.sbuf)
	args := ev.Field(event.Args)
	s, begun := r.life.ToolStart(&t.life, ev, t.who)
	if !begun {
		// The complete call restates one begun: its arguments complete it.
		c := s.Data
		if len(c.args.b) == 0 && args != nil {
			t.keep(&c.args, eventtext.Args(args), c.max, true)
		}
		c.name = nonEmpty(c.name, name)
		return
	}
	it := r.add(t, a, &item{kind: kTool, at: at, start: at, name: name, id: ev.FieldText(event.ID, &t.sbuf)})
	if args != nil {
		t.keep(&it.args, eventtext.Args(args), it.max, false)
	}
	s.Data = it
	r.timed = append(r.timed, it)
	a.turnText = nil
	r.count(a, totals{tools: 1})
}

func (t *Writer) toolUpdate(r *run) {
	ev := &t.ev
	s := r.life.ToolUpdate(&t.life, ev, t.who)
	if s == nil {
		return // a piece of a call whose start the stream does not have
	}
	c := s.Data
	if piece := ev.Field(event.Args); piece != nil && ev.Flags&event.Delta != 0 {
		p, _ := event.String(piece, &t.sbuf)
		t.keep(&c.args, p, c.max, false)
		return
	}
	if body := ev.Field(event.Body); body != nil {
		t.keep(&c.progress, []byte(eventtext.Text(body)), c.max, false)
	}
}

func (t *Writer) toolEnd(r *run, a *agent, at int64) {
	ev := &t.ev
	name := ev.FieldText(event.Name, &t.sbuf)
	s, started := r.life.ToolEnd(&t.life, ev, t.who)
	c := s.Data
	if !started {
		// Its start is not in the stream: an entry of its own.
		c = r.add(t, a, &item{kind: kTool, at: at, name: name, id: ev.FieldText(event.ID, &t.sbuf)})
		r.count(a, totals{tools: 1})
	}
	c.ended, c.end = true, at
	c.name = nonEmpty(name, c.name)
	if body := ev.Field(event.Body); body != nil {
		t.keep(&c.output, []byte(eventtext.Text(body)), c.max, true)
	}
	if ev.Failed() {
		c.failed = true
		r.count(a, totals{toolFails: 1})
	}
}

// mark is an entry that the timeline marks too: an error, a kill, a
// guardrail.
func (t *Writer) mark(r *run, a *agent, k itemKind, at int64, what string, body []byte) *item {
	it := r.add(t, a, &item{kind: k, at: at, outcome: what})
	t.keep(&it.text, []byte(eventtext.Text(body)), it.max, false)
	r.marks = append(r.marks, it)
	var u totals
	switch k {
	case kError:
		u.errors = 1
	case kKill:
		u.kills = 1
	case kGuardrail:
		u.guards = 1
	}
	r.count(a, u)
	return it
}

// other shows an event no meaning covers, as its kind and payload,
// unless the payload says nothing but its type (zot's assistant_start).
func (t *Writer) other(r *run, a *agent, at int64) {
	ev := &t.ev
	body := ev.Payload
	if ev.Raw || ev.Kind == nil {
		body = ev.Line
	}
	says := false
	jsonscan.Each(body, func(key, _ []byte) bool {
		says = string(key) != "type"
		return !says
	})
	if !says && jsonscan.KindOf(body) == jsonscan.Object {
		return
	}
	it := r.add(t, a, &item{kind: kOther, at: at, name: nonEmpty(string(ev.Name()), "event")})
	if !it.hidden {
		it.payload = append([]byte(nil), body...)
		if len(it.payload) > t.o.MaxText {
			it.payload = it.payload[:0] // shown as its kind only
		}
	}
}
