package pretty

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/folds/runs"
	"github.com/evtools/evtools/internal/views/eventtext"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/mattn/go-runewidth"
)

// run is what the renderer remembers of a run: whose lines are whose, the
// tool calls in flight, what was said, and the totals its end shows.
type run struct {
	life    *runs.Run[*run, call] // its calls in flight and its main agent (its own, unlabelled)
	id      string
	num     int  // its number in the stream, from 1: the heading of its lines
	noUsage int  // its model calls whose log kept no usage
	headed  bool // its heading was shown, with its id
	begun   bool // its first event was the session's: the run was seen from its start
	labels  map[string]string
	first   int64             // the time of its first event (µs), 0 unknown
	said    map[string]uint64 // per agent, a digest of the text shown in pieces since its last whole text
	lastErr string            // the last failure shown: an event of another meaning saying the same is not shown again
	errFrom event.Meaning     // the meaning of the event that said it

	models, tools, toolFails, errors int
	tokens, costNano                 int64
	hasCost                          bool
}

// call is a model or tool call in flight.
type call struct {
	name     string
	at       int64  // its start (µs), 0 unknown
	args     []byte // its arguments, joined from their pieces
	shown    bool   // its arguments were shown
	progress string // the last progress line shown
}

// inFlight is a call in flight, as package runs follows it.
type inFlight = runs.Span[call]

const timeWidth = len("15:04:05.000")

// render draws one line of the input. The stream's first event, when it
// has no time (zot's acknowledgement of the prompt), waits for the next
// one: the date that heads the view is then the next one's, and goes
// above it, not below.
func (r *Renderer) render(line []byte) {
	if r.held != nil {
		t := int64(0)
		if err := r.ev.Read(line); err == nil || err == event.ErrNotEvent {
			t = r.ev.UnixMicro(&r.sbuf)
		}
		r.drawHeld(t)
	} else if !r.seen {
		r.seen = true
		if err := r.ev.Read(line); err == nil && r.ev.UnixMicro(&r.sbuf) == 0 && holdable(&r.ev) {
			r.held = append([]byte(nil), line...)
			return
		}
	}
	r.draw(line)
}

// holdable says whether an event may wait for the next one: an event
// drawn on a line of its own, not a piece of a flow or a call that a
// later event completes.
func holdable(ev *event.Event) bool {
	switch ev.Meaning {
	case event.Text, event.ToolStart, event.ToolUpdate:
		return false
	}
	return true
}

// drawHeld draws the held first event, under the date of t.
func (r *Renderer) drawHeld(t int64) {
	if r.held == nil {
		return
	}
	held := r.held
	r.held = nil
	r.dayHint = t
	r.draw(held)
	r.dayHint = 0
}

// draw draws one event.
func (r *Renderer) draw(line []byte) {
	ev := &r.ev
	if err := ev.Read(line); err != nil && err != event.ErrNotEvent {
		// Not a JSON object: shown as it is, escaped, never dropped.
		r.endLine()
		r.prefix(0, nil, "")
		r.put(sOther, "?")
		r.field(sNone, string(line))
		r.newline()
		return
	}
	t := ev.UnixMicro(&r.sbuf)
	runID, agent := event.StringOf(ev.RunID, &r.sbuf), event.StringOf(ev.AgentID, &r.sbuf)
	rn := r.track(agent, t)
	key := runID + "\x00" + agent
	switch ev.Meaning {
	case event.Text:
		r.text(ev, t, rn, agent, key)
		return
	case event.ToolStart:
		r.toolStart(ev, t, rn, agent, key)
		return
	case event.ToolUpdate:
		r.toolUpdate(ev, t, rn, agent, key)
		return
	}
	if q := r.quiet(ev, rn, agent); q == said || q == quietLine && !r.o.All {
		if ev.Meaning == event.ModelEnd && r.open == textLine && r.openKey == key {
			r.endLine() // the turn is over, and so is its text: its last word need not wait
		}
		return
	}
	r.endLine()
	r.prefix(t, rn, agent)
	switch ev.Meaning {
	case event.UserMessage:
		r.tag(sUser, "user")
		r.paragraph(sNone, r.joined(eventtext.BodyText(ev)))
		return
	case event.ModelCall:
		r.modelCall(ev)
	case event.ModelResult:
		r.modelResult(ev, t, rn, agent)
	case event.ModelEnd:
		r.modelEnd(ev)
	case event.ModelError:
		r.tag(sBad, "ERROR")
		r.put(sNone, "model")
		r.field(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
	case event.Error:
		r.tag(sBad, "ERROR")
		r.put(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
	case event.Kill:
		rn.errors++
		r.tag(sKill, "KILLED")
		r.put(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
	case event.Guardrail:
		r.tag(sWarn, "GUARDRAIL")
		r.put(sNone, ev.FieldText(event.Body, &r.sbuf))
		if tool := ev.FieldText(event.Name, &r.sbuf); tool != "" {
			r.field(sNone, "tool "+tool)
		}
		r.field(sDim, ev.FieldText(event.Outcome, &r.sbuf))
	case event.AgentStart:
		r.tag(sAgent, "agent")
		r.put(sBold, r.role(rn, agent, ev.FieldText(event.Name, &r.sbuf)))
		r.field(sNone, "started")
		r.field(sDim, eventtext.Model(ev.Field(event.Model)))
		r.field(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
	case event.AgentEnd:
		r.tag(sAgent, "agent")
		r.put(sBold, r.role(rn, agent, ""))
		r.outcome(eventtext.NonEmpty(ev.FieldText(event.Outcome, &r.sbuf), "ended"))
		r.field(sDim, eventtext.Seconds(ev.Field(event.Wall)))
		r.field(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
	case event.Decision:
		r.tag(sDecide, "decide")
		r.put(sBold, ev.FieldText(event.Outcome, &r.sbuf))
		r.field(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
	case event.Ack:
		r.ack(ev)
	case event.RunStart:
		r.tag(sRun, "run")
		r.put(sNone, "started")
		r.field(sDim, eventtext.Model(ev.Field(event.Model)))
	case event.ToolEnd:
		r.toolEnd(ev, t, rn, agent)
	case event.RunEnd:
		r.runEnd(ev, t, rn, runID)
	default:
		r.other(ev, line)
	}
	r.newline()
}

// How much an event has to say.
type news uint8

const (
	newsLine  news = iota // a line of its own
	quietLine             // a line only in full (Options.All), dim
	said                  // nothing: another event just said it
)

// quiet says whether an event is one the view leaves out unless asked to
// show all (Options.All), and notes what it says for the lines it is
// folded into.
func (r *Renderer) quiet(ev *event.Event, rn *run, agent string) news {
	switch ev.Meaning {
	case event.ModelCall:
		// A call is counted when it starts, as evsum and the transcript
		// count it: one that fails before its result was still made.
		rn.models++
		// Its time is the start of the latency its result shows.
		s, _ := rn.life.ModelCall(ev, agent)
		s.Data.at = ev.UnixMicro(&r.sbuf)
		delete(rn.said, agent)
		return quietLine
	case event.ModelEnd:
		rn.life.ModelEnd(agent)
		if ev.Failed() {
			return r.failure(rn, ev)
		}
		return quietLine
	case event.AgentStart:
		rn.life.AgentStart(agent) // spawned: never the run's own agent
	case event.AgentEnd:
		rn.life.AgentEnd(agent)
	case event.ModelError:
		rn.life.ModelError(agent) // the call ended in it
		return r.failure(rn, ev)
	case event.Error:
		return r.failure(rn, ev)
	case event.Ack:
		if ev.Failed() {
			return r.failure(rn, ev)
		}
		return quietLine
	case event.Other:
		// A kind a vocabulary names without a meaning (an assistant
		// message's start, a piece of thinking): a protocol's marker,
		// not news. A kind no vocabulary knows is shown.
		if ev.Entry != nil {
			return quietLine
		}
	}
	return newsLine
}

// failure counts a failure once, and says whether another event just said
// it in its run (zot's failed turn is followed by an error event with the
// same message): then it is not shown again, even in full. The same event
// repeated (a retry loop) is shown each time.
func (r *Renderer) failure(rn *run, ev *event.Event) news {
	msg := eventtext.OneLine(eventtext.BodyText(ev))
	if msg != "" && msg == rn.lastErr && ev.Meaning != rn.errFrom {
		rn.lastErr = ""
		return said
	}
	rn.errors++
	rn.lastErr, rn.errFrom = msg, ev.Meaning
	return newsLine
}

// role is what an agent's start or end line calls the agent: nothing when
// its label says it already, else its role (or its id).
func (r *Renderer) role(rn *run, agent, role string) string {
	role = eventtext.NonEmpty(role, agent)
	if l := r.label(rn, agent); l != "" && (role == agent || strings.HasPrefix(agent, role)) {
		return ""
	}
	return role
}

// modelCall shows a turn's or a model call's start (only in full: it is
// folded into the result's line).
func (r *Renderer) modelCall(ev *event.Event) {
	if ev.Flags&event.Turn != 0 {
		r.tag(sDim, "turn")
	} else {
		r.tag(sDim, "model")
		r.put(sDim, eventtext.Model(ev.Field(event.Model)))
	}
	if s := eventtext.Number(ev.Field(event.Step)); s != "" {
		r.field(sDim, "step "+s)
	}
}

// modelEnd shows a turn's end: an error when it failed, else (in full) its
// stop reason.
func (r *Renderer) modelEnd(ev *event.Event) {
	if ev.Failed() {
		r.tag(sBad, "ERROR")
		r.put(sNone, "turn failed")
		r.field(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
		return
	}
	r.tag(sDim, "turn")
	r.put(sDim, "end")
	if stop := ev.FieldText(event.Stop, &r.sbuf); stop != "" {
		r.field(sDim, "stop "+stop)
	}
}

// ack shows a command's acknowledgement: an error when it failed, else
// (in full) the command.
func (r *Renderer) ack(ev *event.Event) {
	cmd := r.lookupString(ev.Body, "command")
	if ev.Failed() {
		r.tag(sBad, "ERROR")
		r.put(sNone, eventtext.NonEmpty(cmd, "command")+" failed")
		r.field(sNone, eventtext.OneLine(eventtext.BodyText(ev)))
		return
	}
	r.tag(sDim, "ack")
	r.put(sDim, cmd)
}

// other shows an event no meaning covers. A kind the tools write (a
// context's compaction, which evimport writes) has its own line; a
// protocol's marker (only in full) its kind and type; any other event its
// kind (or type) and its payload (or the whole raw line), compact: an
// event is never dropped.
func (r *Renderer) other(ev *event.Event, line []byte) {
	name := string(ev.Name())
	if name == "" {
		name = "event"
	}
	switch {
	case !ev.Raw && name == "compaction":
		r.tag(sDecide, "compact")
		r.put(sNone, "context summarised")
		if v, _ := jsonscan.Lookup(ev.Body, "pre_tokens"); jsonscan.KindOf(v) == jsonscan.Number {
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				r.field(sNone, "from "+textfmt.Thousands(n)+" tokens")
			}
		}
		r.field(sDim, r.lookupString(ev.Body, "trigger"))
		r.field(sNone, eventtext.OneLine(r.lookupString(ev.Body, "summary")))
		return
	case ev.Entry != nil:
		// The payload's type says more than the kind (zot's
		// assistant_start, under glasspane's message_start).
		r.put(sDim, eventtext.NonEmpty(r.lookupString(ev.Body, "type"), name))
		return
	}
	r.tag(sOther, name)
	body := ev.Payload
	if ev.Raw || ev.Kind == nil {
		body = line
	}
	r.put(sDim, eventtext.Compact(body))
}

// prefix starts a line: a heading when the date or the run changes, the
// time, then whose event it is when the run's own agent does not say it.
func (r *Renderer) prefix(t int64, rn *run, agent string) {
	if r.held != nil {
		r.drawHeld(t)
	}
	r.heading(t, rn)
	if t != 0 {
		r.put(sDim, time.UnixMicro(t).In(r.o.Loc).Format("15:04:05.000"))
	} else {
		r.space(timeWidth)
	}
	r.space(1)
	if l := r.label(rn, agent); l != "" {
		r.space(2)
		r.put(agentStyle(agent), fit(l, r.labelWidth()))
		r.space(1)
	}
}

// heading writes the line that goes above a line whose date differs from
// the last one shown, or whose run differs from the last line's: the
// date, and the run's number (with its id, and its agent when it is not
// known to be the run's own, the first time).
func (r *Renderer) heading(t int64, rn *run) {
	day := ""
	if t == 0 {
		t = r.dayHint
	}
	if t != 0 {
		if d := time.UnixMicro(t).In(r.o.Loc).Format("2006-01-02 Mon"); d != r.lastDay {
			day, r.lastDay = d, d
		}
	}
	var head string
	if rn != nil && rn.id != "" && rn != r.lastRun {
		r.lastRun = rn
		head = "run " + strconv.Itoa(rn.num)
		if rn.num == 0 {
			head = "before the first prompt"
		}
		if !rn.headed {
			rn.headed = true
			head += " · " + rn.id
			if !rn.begun && rn.life.Main != "" {
				head += " · " + rn.life.Main
			}
		}
	}
	if day == "" && head == "" {
		return
	}
	r.put(sDim, "── ")
	if day != "" {
		r.put(sBold, day+" ")
		if head != "" {
			r.put(sDim, "── ")
		}
	}
	if head != "" {
		r.put(sRun, head+" ")
	}
	r.put(sDim, strings.Repeat("─", max(0, r.o.Width-r.col)))
	r.newline()
}

// labelWidth is the width of an agent's label: a sixth of the line, so
// that the text has the rest.
func (r *Renderer) labelWidth() int { return min(16, max(8, r.o.Width/6)) }

// label is what a line of agent says of whose it is: nothing for the
// run's own agent and the session, else a name that tells the run's agents
// apart (a Claude subagent's "Explore:a7f3c21" is "Explore" until a second
// Explore comes), the same for all its lines.
func (r *Renderer) label(rn *run, agent string) string {
	if rn == nil || agent == "" || agent == rn.life.Main {
		return ""
	}
	if l, ok := rn.labels[agent]; ok {
		return l
	}
	l := agent
	if role, _, ok := strings.Cut(agent, ":"); ok && role != "" && runewidth.StringWidth(agent) > r.labelWidth() {
		l = role
		for _, other := range rn.labels {
			if other == role {
				l = agent
			}
		}
	}
	if rn.labels == nil {
		rn.labels = map[string]string{}
	}
	rn.labels[agent] = l
	return l
}

// fit pads or cuts s to w columns.
func fit(s string, w int) string {
	if n := runewidth.StringWidth(s); n <= w {
		return s + strings.Repeat(" ", w-n)
	}
	return cutTo(s, w-1) + ellipsis
}

// agentStyle gives each agent a colour of its own.
func agentStyle(agent string) string {
	if agent == "" {
		return sDim
	}
	var h uint32 = 2166136261
	for i := 0; i < len(agent); i++ {
		h = (h ^ uint32(agent[i])) * 16777619
	}
	return [...]string{"33", "34", "35", "36", "32", "94", "95", "96"}[h%8]
}

// tag writes the word that says what the line is, padded to a column.
func (r *Renderer) tag(st, word string) {
	r.put(st, word)
	r.space(max(1, 7-runewidth.StringWidth(word)))
	r.fresh = true
}

// outcome writes a run's or an agent's outcome: green when ok, else red
// and in capitals, so that it does not rest on colour alone.
func (r *Renderer) outcome(o string) {
	if !r.fresh {
		r.space(1)
	}
	switch {
	case eventtext.EndedWell(o):
		r.put(sOK, o)
	case o == "running":
		r.put(sWarn, o)
	default:
		r.put(sBad, strings.ToUpper(o))
	}
}

// track notes the event's run and agent: a run is numbered when it first
// appears; its own agent is the one package runs names (the first named
// by an event that is not a spawn, and not spawned). A run seen from the
// middle (a filtered log) names its agent in its heading.
func (r *Renderer) track(agent string, t int64) *run {
	l, begun := r.life.Of(&r.ev)
	rn := l.Data
	if begun {
		rn = &run{life: l, id: l.ID, begun: agent == "", said: map[string]uint64{}}
		l.Data = rn
		// evimport files what a session's log holds before its first
		// prompt (Claude Code's warm-up agents) under run SESSION/0: it
		// is headed as such and takes no number, so that run 1 is the
		// first prompt's.
		if rn.id != "" && !(strings.HasSuffix(rn.id, "/0") && r.ev.Meaning != event.UserMessage) {
			r.runNum++
			rn.num = r.runNum
		}
	}
	l.See(agent, r.ev.Meaning)
	if t != 0 && rn.first == 0 {
		rn.first = t
	}
	return rn
}

// endLine ends an open line: a text flow, or a tool call whose arguments
// did not come.
func (r *Renderer) endLine() {
	switch r.open {
	case closed:
		return
	case textLine:
		r.flowEnd()
	case toolLine:
		if c := &r.openCall.Data; len(c.args) > 0 && !c.shown {
			c.shown = true
			r.field(sNone, r.bestArg(c.args))
		}
	}
	r.open, r.openKey, r.openCall = closed, "", nil
	r.newline()
}

// text draws assistant text: a piece joins the text flowing on the open
// line of its agent; the whole text after its pieces is not shown again
// (zot sends the pieces, then the usage, then the whole message); a
// whole text without pieces is a paragraph.
func (r *Renderer) text(ev *event.Event, t int64, rn *run, agent, key string) {
	s := eventtext.BodyText(ev)
	if ev.Flags&event.Delta != 0 {
		if r.open != textLine || r.openKey != key {
			// A reply starts at its first word: blank lines before it
			// (Claude Code's "\n\n" before its tool calls) would draw a
			// time with nothing beside it.
			s = strings.TrimLeft(s, " \t\r\n")
			if s == "" {
				return
			}
			r.endLine()
			r.prefix(t, rn, agent)
			r.open, r.openKey = textLine, key
			r.indent = min(r.col, r.o.Width/2)
			r.lineStart = false
		}
		rn.said[agent] = digest(rn.said[agent], s)
		r.flowAdd(s)
		return
	}
	said, ok := rn.said[agent]
	delete(rn.said, agent)
	if ok && said == digest(emptyDigest, s) {
		if r.open == textLine && r.openKey == key {
			r.endLine() // the text was shown as it came
		}
		return
	}
	if strings.TrimSpace(s) == "" {
		// A reply of tool calls only, whose lines name them.
		if !r.o.All {
			return
		}
		r.endLine()
		r.prefix(t, rn, agent)
		r.tag(sDim, "reply")
		r.put(sDim, eventtext.Calls(ev.Field(event.Body)))
		r.newline()
		return
	}
	r.endLine()
	r.prefix(t, rn, agent)
	r.paragraph(sNone, r.joined(s))
}

// emptyDigest is the digest of no text.
const emptyDigest = 14695981039346656037

// digest adds s to d, a digest of the text's words: the whole text equals
// its pieces when the words are the same, whatever the spaces around them.
func digest(d uint64, s string) uint64 {
	if d == 0 {
		d = emptyDigest
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			d = (d ^ uint64(c)) * 1099511628211
		}
	}
	return d
}

// joined is text the view joined from blocks or pieces, redacted when
// asked.
func (r *Renderer) joined(s string) string {
	if r.o.Redact == nil {
		return s
	}
	r.redacted = r.o.Redact.Text(r.redacted[:0], []byte(s))
	return string(r.redacted)
}

// paragraph writes s wrapped to the width, its lines aligned at the
// cursor's column, and ends the line.
func (r *Renderer) paragraph(st string, s string) {
	r.indent, r.lineStart = min(r.col, r.o.Width/2), false
	r.flowStyle = st
	r.flow(s)
	r.flowStyle = sNone
	r.newline()
}

// maxFlowText bounds the text of a flow held back while redacting: past
// it, its lines so far are drawn.
const maxFlowText = 1 << 20

// flowAdd adds a piece of text to the open flow and draws what is sure:
// up to its last space, since the word after it may go on in the next
// piece and must then move to the next line whole. Redacting, the text
// waits for its end (flowEnd), since a secret may come in pieces.
func (r *Renderer) flowAdd(s string) {
	r.flowText = append(r.flowText, s...)
	sure := -1
	if r.o.Redact == nil {
		sure = bytes.LastIndexAny(r.flowText, " \t\n")
	} else if len(r.flowText) > maxFlowText {
		sure = bytes.LastIndexByte(r.flowText, '\n')
	}
	if sure < 0 {
		return
	}
	r.flow(r.joined(string(r.flowText[:sure+1])))
	n := copy(r.flowText, r.flowText[sure+1:])
	r.flowText = r.flowText[:n]
}

// flowEnd draws the rest of the open flow.
func (r *Renderer) flowEnd() {
	if len(r.flowText) > 0 {
		r.flow(r.joined(string(r.flowText)))
	}
	r.flowText = r.flowText[:0]
	if cap(r.flowText) > maxFlowText {
		r.flowText = nil
	}
}

// flow writes text whose words are whole: they wrap at the width (a word
// longer than a line is broken), and the lines of the text start new
// lines at the indent, keeping their own indentation. A tab is the spaces
// to the next tab stop.
func (r *Renderer) flow(s string) {
	for s != "" {
		c, n := utf8.DecodeRuneInString(s)
		switch {
		case c == '\n' || c == '\r' && strings.HasPrefix(s, "\r\n"):
			if c == '\r' {
				n = 2
			}
			r.newline()
			r.lineStart = true // its indent is written with its first word: an empty line stays empty
		case c == ' ' || c == '\t':
			if r.lineStart && r.col == 0 {
				r.space(r.indent)
			}
			w := 1
			if c == '\t' {
				w = tabStop - (r.col+r.gap-r.indent)%tabStop
			}
			switch {
			case r.lineStart:
				r.space(w) // the text's own indentation
			case r.col > r.indent:
				r.gap += w // written before the next word, if it fits on this line
			}
		default:
			// A word: up to the next space or line end.
			end := strings.IndexAny(s, " \t\n")
			if end < 0 {
				end = len(s)
			}
			if end == 0 {
				end = n // a lone \r
			}
			n = end
			r.word(s[:end])
			r.lineStart = false
		}
		s = s[n:]
	}
}

// word writes a word of a flow, on the next line when it does not fit and
// something is on this one; a word longer than a line is broken.
func (r *Renderer) word(w string) {
	if r.lineStart && r.col == 0 {
		r.space(r.indent)
	}
	esc := escapeText(w)
	wd := runewidth.StringWidth(esc)
	if r.col > r.indent && !r.lineStart && r.col+r.gap+wd > r.o.Width {
		r.newline()
		r.space(r.indent)
	} else {
		for ; r.gap > 0 && r.col < r.o.Width; r.gap-- {
			r.out = append(r.out, ' ')
			r.col++
		}
	}
	r.gap = 0
	for esc != "" {
		part := cutTo(esc, r.o.Width-r.col)
		if part == "" {
			// No room left, or a wide character wider than it: the
			// next line (at most half the width is indent).
			r.newline()
			r.space(r.indent)
			continue
		}
		r.styled(r.flowStyle, part)
		r.col += runewidth.StringWidth(part)
		esc = esc[len(part):]
	}
}

// toolStart draws a tool call's start: its name and the argument that
// says most. When the arguments come later in pieces, the line stays open
// for them; a call restating one already shown draws nothing new.
func (r *Renderer) toolStart(ev *event.Event, t int64, rn *run, agent, key string) {
	name := ev.FieldText(event.Name, &r.sbuf)
	args := ev.Field(event.Args)
	s, begun := rn.life.ToolStart(&r.life, ev, agent)
	c := &s.Data
	if !begun {
		// The call was drawn at its start; its arguments complete it.
		if !c.shown && args != nil {
			r.completeTool(s, eventtext.NonEmpty(name, c.name), args, t, rn, agent, key)
		}
		return
	}
	c.name, c.at = name, t
	rn.tools++
	r.endLine()
	r.prefix(t, rn, agent)
	r.tag(sTool, "tool")
	r.put(sBold, eventtext.NonEmpty(name, "?"))
	if args != nil {
		c.shown = true
		r.field(sNone, eventtext.BestArg(args))
		r.newline()
		return
	}
	r.open, r.openKey, r.openCall = toolLine, key, s
}

// completeTool shows a call's arguments once they are whole: on its
// start's line when that is still open, else on a line of their own.
func (r *Renderer) completeTool(s *inFlight, name string, args []byte, t int64, rn *run, agent, key string) {
	s.Data.shown = true
	if r.open == toolLine && r.openCall == s && r.openKey == key {
		r.field(sNone, r.bestArg(args))
		r.open, r.openKey, r.openCall = closed, "", nil
		r.newline()
		return
	}
	r.endLine()
	r.prefix(t, rn, agent)
	r.tag(sTool, "tool")
	r.put(sBold, name)
	r.field(sNone, r.bestArg(args))
	r.newline()
}

// bestArg is eventtext.BestArg of arguments the view joined from their pieces,
// redacted when asked.
func (r *Renderer) bestArg(args []byte) string {
	if r.o.Redact != nil {
		if out, changed := r.o.Redact.Line(r.redacted[:0], args); changed {
			r.redacted = out
			args = out
		}
	}
	return eventtext.BestArg(args)
}

// toolUpdate draws a piece of a call's output (only in full: its end
// shows the output); a piece of its arguments joins the others, and the
// end of the pieces completes the call's line.
func (r *Renderer) toolUpdate(ev *event.Event, t int64, rn *run, agent, key string) {
	s := rn.life.ToolUpdate(&r.life, ev, agent)
	var c *call
	if s != nil {
		c = &s.Data
	}
	if piece := ev.Field(event.Args); piece != nil && ev.Flags&event.Delta != 0 {
		if c != nil { // else a piece of a call whose start the stream does not have
			p, _ := event.String(piece, &r.sbuf)
			c.args = append(c.args, p...)
		}
		return
	}
	body := ev.Field(event.Body)
	end := ev.Flags&event.Delta == 0 && body == nil
	if end && c != nil && !c.shown && len(c.args) > 0 {
		// The end of the arguments.
		r.completeTool(s, eventtext.NonEmpty(c.name, "?"), c.args, t, rn, agent, key)
		return
	}
	if !r.o.All {
		return
	}
	r.endLine()
	r.prefix(t, rn, agent)
	r.tag(sDim, "…")
	name := "?"
	if c != nil && c.name != "" {
		name = c.name
	}
	r.put(sDim, name)
	switch {
	case body != nil:
		out, _ := firstLine(eventtext.Text(body))
		r.field(sDim, out)
		if c != nil {
			c.progress = out
		}
	case end:
		r.field(sDim, "arguments complete")
	default:
		r.field(sDim, r.lookupString(ev.Body, "type"))
	}
	r.newline()
}

// toolEnd draws a call's end: ok or FAILED, how long it took, and the
// first line of its output, unless its last progress line just said it.
func (r *Renderer) toolEnd(ev *event.Event, t int64, rn *run, agent string) {
	name := ev.FieldText(event.Name, &r.sbuf)
	s, started := rn.life.ToolEnd(&r.life, ev, agent)
	c := &s.Data
	if started {
		name = eventtext.NonEmpty(name, c.name)
	}
	if ev.Failed() {
		rn.toolFails++
		r.tag(sBad, "FAILED")
	} else {
		r.tag(sOK, "ok")
	}
	if id, ok := strings.CutPrefix(s.Key, "#"); ok && name == "" {
		name = "call " + id // its start is not in the stream
	}
	r.put(sBold, eventtext.NonEmpty(name, "?"))
	if c.at != 0 && t > c.at {
		r.field(sDim, eventtext.Duration(t-c.at))
	}
	out, more := firstOutput(r.joined(eventtext.BodyText(ev)))
	if started && out == c.progress && !more {
		return
	}
	if more {
		out += " …"
	}
	r.field(sNone, out)
}

// modelResult draws what a model call used: tokens in and out, cache
// reads, cost and latency.
func (r *Renderer) modelResult(ev *event.Event, t int64, rn *run, agent string) {
	u := ev.Usage()
	rn.tokens += u.Tokens[event.TokTotal]
	rn.costNano += u.CostNano
	rn.hasCost = rn.hasCost || u.HasCost
	r.tag(sModel, "model")
	if u.OfSession {
		r.field(sDim, "session totals") // no call of its own: Copilot CLI's
	}
	if u.NoUsage {
		// The log kept no tokens for this call: "in 0 out 0" would
		// say it was free.
		rn.noUsage++
		r.field(sWarn, "usage not recorded")
	} else {
		r.field(sNone, "in "+textfmt.Thousands(u.Tokens[event.TokInput])+" out "+textfmt.Thousands(u.Tokens[event.TokOutput]))
	}
	if n := u.Tokens[event.TokCacheRead]; n > 0 {
		r.field(sDim, "cache "+textfmt.Thousands(n))
	}
	if u.HasCost {
		r.field(sNone, eventtext.Cost(u.CostNano))
	}
	// The call's first result shows its latency: a result after it
	// without a call of its own (Copilot CLI's session totals) has none.
	at := int64(0)
	if s, again := rn.life.ModelResult(agent); s != nil && !again {
		at = s.Data.at
	}
	switch {
	case u.HasLatency:
		r.field(sDim, eventtext.Duration(u.LatencyUS))
	case at != 0 && t > at:
		r.field(sDim, eventtext.Duration(t-at))
	}
	// The name last: on a narrow terminal it is what is cut.
	r.field(sDim, eventtext.Model(ev.Field(event.Model)))
}

// runEnd draws a run's end: its outcome and its totals.
func (r *Renderer) runEnd(ev *event.Event, t int64, rn *run, runID string) {
	r.tag(sRun, "run")
	o := ev.FieldText(event.Outcome, &r.sbuf)
	if o == "" {
		o = "ok"
		if rn.errors > 0 {
			o = "error"
		}
	}
	r.outcome(o)
	// Most telling first: on a narrow terminal the rest goes on below.
	var parts []string
	if w := eventtext.Seconds(ev.Field(event.Wall)); w != "" {
		parts = append(parts, w)
	} else if rn.first != 0 && t > rn.first {
		parts = append(parts, eventtext.Duration(t-rn.first))
	}
	if rn.hasCost {
		parts = append(parts, eventtext.Cost(rn.costNano))
	}
	if rn.tokens > 0 {
		parts = append(parts, textfmt.Thousands(rn.tokens)+" tokens")
	}
	// Counts of what was seen: a filtered stream may show a run's end
	// without its calls, and "0 model calls" would be a claim.
	if rn.models > 0 {
		models := textfmt.PluralThousands(int64(rn.models), "model call")
		if rn.noUsage > 0 {
			models += fmt.Sprintf(" (%d without usage)", rn.noUsage)
		}
		parts = append(parts, models)
	}
	if rn.tools > 0 {
		tools := textfmt.PluralThousands(int64(rn.tools), "tool call")
		if rn.toolFails > 0 {
			tools += fmt.Sprintf(" (%d failed)", rn.toolFails)
		}
		parts = append(parts, tools)
	}
	r.parts(parts)
	r.life.End(rn.life)
}

// parts writes the parts of a line joined by " · ", going on to a line
// of their own, aligned under the first, where the next would not fit:
// a run's footer says all its totals at any width, each whole (a part
// wider than a line alone is cut).
func (r *Renderer) parts(parts []string) {
	if len(parts) == 0 {
		return
	}
	if !r.fresh {
		r.space(2)
	}
	start := min(r.col, r.o.Width/2)
	for i, p := range parts {
		if i == 0 {
			r.put(sNone, p)
			continue
		}
		if r.col+runewidth.StringWidth(" · "+p) > r.o.Width {
			r.newline()
			r.space(start)
			r.put(sNone, p)
			continue
		}
		r.put(sNone, " · "+p)
	}
}

func (r *Renderer) lookupString(body []byte, name string) string {
	v, _ := jsonscan.Lookup(body, name)
	return event.StringOf(v, &r.sbuf)
}

// escapeText escapes what a flow must not send to the terminal.
func escapeText(s string) string {
	if plainASCII(s) {
		return s
	}
	return term.Escape(s)
}
