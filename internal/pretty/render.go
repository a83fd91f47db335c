package pretty

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/term"
	"github.com/evtools/evtools/internal/textfmt"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/mattn/go-runewidth"
)

// run is what the renderer remembers of a run: whose lines are whose, the
// tool calls in flight, and the totals its end shows.
type run struct {
	main   string          // the first agent named: the parent
	subs   map[string]bool // agents spawned by it, or named after it
	first  int64           // the time of its first event (µs), 0 unknown
	turnAt map[string]int64
	calls  map[string]*call

	models, tools, toolFails, errors int
	tokens, costNano                 int64
	hasCost                          bool
}

// call is a tool call in flight.
type call struct {
	name  string
	at    int64  // its start (µs), 0 unknown
	args  []byte // its arguments, joined from their pieces
	shown bool   // its arguments were shown
}

const timeWidth = len("15:04:05.000")

// render draws one line of the input.
func (r *Renderer) render(line []byte) {
	ev := &r.ev
	if err := ev.Read(line); err != nil && err != event.ErrNotEvent {
		// Not a JSON object: shown as it is, escaped, never dropped.
		r.endLine()
		r.prefix(0, "", "")
		r.put(sOther, "?")
		r.field(sNone, string(line))
		r.newline()
		return
	}
	t := r.timeOf(ev)
	runID, agent := r.str(ev.RunID), r.str(ev.AgentID)
	rn := r.track(runID, agent, t)
	key := runID + "\x00" + agent
	switch ev.Meaning {
	case event.Text:
		r.text(ev, t, runID, agent, key)
		return
	case event.ToolStart:
		r.toolStart(ev, t, rn, runID, agent, key)
		return
	case event.ToolUpdate:
		r.toolUpdate(ev, t, rn, runID, agent, key)
		return
	}
	r.endLine()
	r.prefix(t, runID, agent)
	switch ev.Meaning {
	case event.UserMessage:
		r.tag(sUser, "user")
		r.paragraph(sNone, textOf(ev.Field(event.Body)))
		return
	case event.ModelCall:
		r.modelCall(ev, t, rn, agent)
	case event.ModelResult:
		r.modelResult(ev, t, rn, agent)
	case event.ModelEnd:
		r.modelEnd(ev, rn, agent)
	case event.ModelError:
		rn.errors++
		r.tag(sBad, "ERROR")
		r.put(sNone, "model")
		r.field(sNone, oneLine(textOf(ev.Field(event.Body))))
	case event.Error:
		rn.errors++
		r.tag(sBad, "ERROR")
		r.put(sNone, oneLine(textOf(ev.Field(event.Body))))
	case event.Kill:
		rn.errors++
		r.tag(sKill, "KILLED")
		r.put(sNone, oneLine(textOf(ev.Field(event.Body))))
	case event.Guardrail:
		r.tag(sWarn, "GUARDRAIL")
		r.put(sNone, r.strField(ev, event.Body))
		if tool := r.strField(ev, event.Name); tool != "" {
			r.field(sNone, "tool "+tool)
		}
		r.field(sDim, r.strField(ev, event.Outcome))
	case event.AgentStart:
		r.tag(sAgent, "agent")
		r.put(sBold, nonEmpty(r.strField(ev, event.Name), agent))
		r.field(sNone, "started")
		r.field(sDim, modelName(ev.Field(event.Model)))
		r.field(sNone, oneLine(textOf(ev.Field(event.Body))))
	case event.AgentEnd:
		r.tag(sAgent, "agent")
		r.put(sBold, agent)
		r.outcome(nonEmpty(r.strField(ev, event.Outcome), "ended"))
		r.field(sDim, seconds(ev.Field(event.Wall)))
		r.field(sNone, oneLine(textOf(ev.Field(event.Body))))
	case event.Decision:
		r.tag(sDecide, "decide")
		r.put(sBold, r.strField(ev, event.Outcome))
		r.field(sNone, oneLine(textOf(ev.Field(event.Body))))
	case event.Ack:
		r.ack(ev, rn)
	case event.RunStart:
		r.tag(sRun, "run")
		r.put(sNone, "started")
		r.field(sDim, modelName(ev.Field(event.Model)))
	case event.ToolEnd:
		r.toolEnd(ev, t, rn, agent)
	case event.RunEnd:
		r.runEnd(ev, t, rn, runID)
	default:
		r.generic(ev, line)
	}
	r.newline()
}

// modelCall shows a turn's or a model call's start, and notes when the
// agent's turn began.
func (r *Renderer) modelCall(ev *event.Event, t int64, rn *run, agent string) {
	if ev.Flags&event.Turn != 0 {
		r.tag(sModel, "turn")
	} else {
		r.tag(sModel, "model")
		r.put(sNone, modelName(ev.Field(event.Model)))
	}
	if s := r.num(ev.Field(event.Step)); s != "" {
		r.field(sDim, "step "+s)
	}
	if t != 0 {
		rn.turnAt[agent] = t
	}
}

// modelEnd shows a turn's end: an error when it failed, else its stop
// reason.
func (r *Renderer) modelEnd(ev *event.Event, rn *run, agent string) {
	if ev.Failed() {
		rn.errors++
		r.tag(sBad, "ERROR")
		r.put(sNone, "turn failed")
		r.field(sNone, oneLine(textOf(ev.Field(event.Body))))
	} else {
		r.tag(sModel, "turn")
		r.put(sDim, "end")
		if stop := r.strField(ev, event.Stop); stop != "" {
			r.field(sDim, "stop "+stop)
		}
	}
	delete(rn.turnAt, agent)
}

// ack shows a command's acknowledgement: quiet, unless it failed.
func (r *Renderer) ack(ev *event.Event, rn *run) {
	cmd := r.lookupString(ev.Body, "command")
	if ev.Failed() {
		rn.errors++
		r.tag(sBad, "ERROR")
		r.put(sNone, nonEmpty(cmd, "command")+" failed")
		r.field(sNone, oneLine(textOf(ev.Field(event.Body))))
		return
	}
	r.tag(sDim, "ack")
	r.put(sDim, cmd)
}

// generic shows an event no meaning covers: its kind (or type) and its
// payload (or the whole raw line), compact.
func (r *Renderer) generic(ev *event.Event, line []byte) {
	name := string(ev.Name())
	if name == "" {
		name = "event"
	}
	r.tag(sOther, name)
	body := ev.Payload
	if ev.Raw || ev.Kind == nil {
		body = line
	}
	r.put(sDim, compact(body))
}

// prefix starts a line: the time (and the date, on a line of its own,
// when it changes), then whose event it is when the stream has several
// runs or agents.
func (r *Renderer) prefix(t int64, runID, agent string) {
	if t != 0 {
		tm := time.UnixMicro(t).In(r.o.Loc)
		if day := tm.Format("2006-01-02 Mon"); day != r.lastDay {
			r.lastDay = day
			r.put(sBold, "── "+day+" ")
			r.put(sDim, strings.Repeat("─", max(0, r.o.Width-r.col)))
			r.newline()
		}
		r.put(sDim, tm.Format("15:04:05.000"))
	} else {
		r.space(timeWidth)
	}
	r.space(1)
	if !r.many {
		return
	}
	if r.manyRn {
		r.put(sDim, fit(runID, 10))
		r.space(1)
	}
	rn := r.runs[runID]
	who := agent
	if rn != nil && rn.subs[agent] {
		who = "└ " + agent
		if !r.o.Color {
			who = "  " + agent
		}
	}
	r.put(agentStyle(agent), fit(who, min(18, max(10, r.o.Width/6))))
	r.space(1)
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
	switch o {
	case "ok", "done", "completed", "success", "ended":
		r.put(sOK, o)
	case "running":
		r.put(sWarn, o)
	default:
		r.put(sBad, strings.ToUpper(o))
	}
}

// track notes the event's run and agent, and whether the stream now has
// several of them.
func (r *Renderer) track(runID, agent string, t int64) *run {
	rn := r.runs[runID]
	if rn == nil {
		rn = &run{subs: map[string]bool{}, turnAt: map[string]int64{}, calls: map[string]*call{}}
		r.runs[runID] = rn
		if len(r.runs) > 1 {
			r.many, r.manyRn = true, true
		}
	}
	if agent != "" {
		k := runID + "\x00" + agent
		if !r.agents[k] {
			r.agents[k] = true
			if len(r.agents) > 1 {
				r.many = true
			}
			switch {
			case r.ev.Meaning == event.AgentStart:
				// Spawned: a sub-agent, even when the stream shows
				// it before its parent (a log read from the middle).
				rn.subs[agent] = true
			case rn.main == "":
				rn.main = agent
			default:
				rn.subs[agent] = true
			}
		}
	}
	if t != 0 && rn.first == 0 {
		rn.first = t
	}
	return rn
}

// endLine ends an open line: a text flow, or a tool call whose arguments
// did not come.
func (r *Renderer) endLine() {
	if r.open == closed {
		return
	}
	if r.open == toolLine {
		if rn := r.runs[strings.SplitN(r.openKey, "\x00", 2)[0]]; rn != nil {
			if c := rn.calls[r.openID]; c != nil && len(c.args) > 0 && !c.shown {
				c.shown = true
				r.field(sNone, bestArg(c.args))
			}
		}
	}
	r.open, r.openKey, r.openID = closed, "", ""
	r.newline()
}

// text draws assistant text: a piece joins the text flowing on the open
// line of its agent; the whole text after its pieces ends that line; a
// whole text without pieces is a paragraph.
func (r *Renderer) text(ev *event.Event, t int64, runID, agent, key string) {
	s := textOf(ev.Field(event.Body))
	if ev.Flags&event.Delta != 0 {
		if r.open != textLine || r.openKey != key {
			r.endLine()
			r.prefix(t, runID, agent)
			r.open, r.openKey = textLine, key
			r.indent = min(r.col, r.o.Width/2)
			r.spaced = true
		}
		r.flow(s)
		return
	}
	if r.open == textLine && r.openKey == key {
		r.endLine() // the text was shown as it came
		return
	}
	r.endLine()
	r.prefix(t, runID, agent)
	if strings.TrimSpace(s) == "" {
		// A reply of tool calls only: name them.
		r.tag(sDim, "reply")
		r.put(sDim, callsOf(ev.Field(event.Body)))
		r.newline()
		return
	}
	r.paragraph(sNone, s)
}

// paragraph writes s wrapped to the width, its lines aligned at the
// cursor's column, and ends the line.
func (r *Renderer) paragraph(st string, s string) {
	r.indent, r.spaced = min(r.col, r.o.Width/2), true
	r.flowStyle = st
	r.flow(s)
	r.flowStyle = sNone
	r.newline()
}

// flow writes text as a stream: words wrap at the width, lines of the text
// start new lines at the indent. A word cut between two pieces may be
// broken where the width falls, since what was written stays written.
func (r *Renderer) flow(s string) {
	for s != "" {
		c, n := utf8.DecodeRuneInString(s)
		switch {
		case c == '\n':
			r.gap = false
			r.newline()
			r.space(r.indent)
			r.spaced = true
		case c == ' ' || c == '\t':
			// Written before the next word, if it fits on this line.
			r.gap = r.gap || r.col > r.indent
			r.spaced = true
		default:
			// A word: up to the next space or newline.
			end := strings.IndexAny(s, " \t\n")
			if end < 0 {
				end = len(s)
			}
			n = end
			r.word(s[:end])
			r.spaced = false
		}
		s = s[n:]
	}
}

// word writes a word of a flow, on the next line when it does not fit and
// starts there; a word longer than a line is broken.
func (r *Renderer) word(w string) {
	esc := escapeText(w)
	wd := runewidth.StringWidth(esc)
	gap := 0
	if r.gap {
		gap = 1
	}
	if r.spaced && r.col > r.indent && r.col+gap+wd > r.o.Width {
		r.newline()
		r.space(r.indent)
	} else if r.gap {
		r.out = append(r.out, ' ')
		r.col++
	}
	r.gap = false
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
func (r *Renderer) toolStart(ev *event.Event, t int64, rn *run, runID, agent, key string) {
	name := r.strField(ev, event.Name)
	id := callKey(r.strField(ev, event.ID), agent, name)
	args := ev.Field(event.Args)
	c := rn.calls[id]
	if ev.Flags&event.Restated != 0 && c != nil {
		// The call was drawn at its start; its arguments complete it.
		if !c.shown && args != nil {
			r.completeTool(c, nonEmpty(name, c.name), args, t, runID, agent, key, id)
		}
		return
	}
	if c == nil {
		c = &call{name: name, at: t}
		rn.calls[id] = c
		rn.tools++
	}
	r.endLine()
	r.prefix(t, runID, agent)
	r.tag(sTool, "tool")
	r.put(sBold, nonEmpty(name, "?"))
	if args != nil {
		c.shown = true
		r.field(sNone, bestArg(args))
		r.newline()
		return
	}
	r.open, r.openKey, r.openID = toolLine, key, id
}

// completeTool shows a call's arguments once they are whole: on its
// start's line when that is still open, else on a line of their own.
func (r *Renderer) completeTool(c *call, name string, args []byte, t int64, runID, agent, key, id string) {
	c.shown = true
	if r.open == toolLine && r.openID == id && r.openKey == key {
		r.field(sNone, bestArg(args))
		r.open, r.openKey, r.openID = closed, "", ""
		r.newline()
		return
	}
	r.endLine()
	r.prefix(t, runID, agent)
	r.tag(sTool, "tool")
	r.put(sBold, name)
	r.field(sNone, bestArg(args))
	r.newline()
}

// toolUpdate draws a piece of a call's output; a piece of its arguments
// joins the others, and the end of the pieces completes the call's line.
func (r *Renderer) toolUpdate(ev *event.Event, t int64, rn *run, runID, agent, key string) {
	id := callKey(r.strField(ev, event.ID), agent, r.strField(ev, event.Name))
	c := rn.calls[id]
	if piece := ev.Field(event.Args); piece != nil && ev.Flags&event.Delta != 0 {
		if c == nil {
			c = &call{at: t}
			rn.calls[id] = c
		}
		s, _ := event.String(piece, &r.sbuf)
		c.args = append(c.args, s...)
		return
	}
	if ev.Flags&event.Delta == 0 && ev.Field(event.Body) == nil {
		// The end of the arguments.
		if c != nil && !c.shown && len(c.args) > 0 {
			r.completeTool(c, nonEmpty(c.name, "?"), c.args, t, runID, agent, key, id)
			return
		}
	}
	r.endLine()
	r.prefix(t, runID, agent)
	r.tag(sDim, "…")
	name := "?"
	if c != nil && c.name != "" {
		name = c.name
	}
	r.put(sDim, name)
	if body := ev.Field(event.Body); body != nil {
		out, _ := firstLine(textOf(body))
		r.field(sDim, out)
	} else {
		r.field(sDim, compact(ev.Body))
	}
	r.newline()
}

// toolEnd draws a call's end: ok or FAILED, how long it took, and the
// first line of its output.
func (r *Renderer) toolEnd(ev *event.Event, t int64, rn *run, agent string) {
	name := r.strField(ev, event.Name)
	id := callKey(r.strField(ev, event.ID), agent, name)
	c := rn.calls[id]
	if c != nil {
		name = nonEmpty(name, c.name)
		delete(rn.calls, id)
	}
	if ev.Failed() {
		rn.toolFails++
		r.tag(sBad, "FAILED")
	} else {
		r.tag(sOK, "ok")
	}
	if name == "" && strings.HasPrefix(id, "#") {
		name = "call " + id[1:] // its start is not in the stream
	}
	r.put(sBold, nonEmpty(name, "?"))
	if c != nil && c.at != 0 && t > c.at {
		r.field(sDim, duration(t-c.at))
	}
	out, more := firstOutput(textOf(ev.Field(event.Body)))
	if more {
		out += " …"
	}
	r.field(sNone, out)
}

// modelResult draws what a model call used: tokens in and out, cache
// reads, cost and latency.
func (r *Renderer) modelResult(ev *event.Event, t int64, rn *run, agent string) {
	u := ev.Usage()
	rn.models++
	rn.tokens += u.Tokens[event.TokTotal]
	rn.costNano += u.CostNano
	rn.hasCost = rn.hasCost || u.HasCost
	r.tag(sModel, "model")
	r.field(sNone, "in "+textfmt.Thousands(u.Tokens[event.TokInput])+" out "+textfmt.Thousands(u.Tokens[event.TokOutput]))
	if n := u.Tokens[event.TokCacheRead]; n > 0 {
		r.field(sDim, "cache "+textfmt.Thousands(n))
	}
	if u.HasCost {
		r.field(sNone, cost(u.CostNano))
	}
	switch at := rn.turnAt[agent]; {
	case u.HasLatency:
		r.field(sDim, duration(u.LatencyUS))
	case at != 0 && t > at:
		r.field(sDim, duration(t-at))
	}
	// The name last: on a narrow terminal it is what is cut.
	r.field(sDim, modelName(ev.Field(event.Model)))
}

// runEnd draws a run's end: its outcome and its totals.
func (r *Renderer) runEnd(ev *event.Event, t int64, rn *run, runID string) {
	r.tag(sRun, "run")
	o := r.strField(ev, event.Outcome)
	if o == "" {
		o = "ok"
		if rn.errors > 0 {
			o = "error"
		}
	}
	r.outcome(o)
	// Most telling first: a narrow terminal cuts the end.
	var parts []string
	if w := seconds(ev.Field(event.Wall)); w != "" {
		parts = append(parts, w)
	} else if rn.first != 0 && t > rn.first {
		parts = append(parts, duration(t-rn.first))
	}
	if rn.hasCost {
		parts = append(parts, cost(rn.costNano))
	}
	if rn.tokens > 0 {
		parts = append(parts, textfmt.Thousands(rn.tokens)+" tokens")
	}
	// Counts of what was seen: a filtered stream may show a run's end
	// without its calls, and "0 model calls" would be a claim.
	if rn.models > 0 {
		parts = append(parts, textfmt.PluralThousands(int64(rn.models), "model call"))
	}
	if rn.tools > 0 {
		tools := textfmt.PluralThousands(int64(rn.tools), "tool call")
		if rn.toolFails > 0 {
			tools += fmt.Sprintf(" (%d failed)", rn.toolFails)
		}
		parts = append(parts, tools)
	}
	r.field(sNone, strings.Join(parts, " · "))
	delete(r.runs, runID)
}

// timeOf is the event's time in µs, 0 when not known: an envelope's ts,
// or a raw line's RFC 3339 "time".
func (r *Renderer) timeOf(ev *event.Event) int64 {
	if us, known, _ := ev.Micros(); known {
		return us
	}
	if ev.Raw {
		if v, ok := jsonscan.Lookup(ev.Line, "time"); ok {
			if s, ok := event.String(v, &r.sbuf); ok {
				if tm, err := time.Parse(time.RFC3339Nano, string(s)); err == nil {
					return tm.UnixMicro()
				}
			}
		}
	}
	return 0
}

// str decodes a raw JSON string ("" when it is not one).
func (r *Renderer) str(raw []byte) string {
	s, _ := event.String(raw, &r.sbuf)
	return string(s)
}

// strField is field f as a string; a number or a boolean is shown as
// written.
func (r *Renderer) strField(ev *event.Event, f event.Field) string {
	v := ev.Field(f)
	switch jsonscan.KindOf(v) {
	case jsonscan.String:
		return r.str(v)
	case jsonscan.Number, jsonscan.True, jsonscan.False:
		return string(v)
	}
	return ""
}

func (r *Renderer) num(v []byte) string {
	if jsonscan.KindOf(v) == jsonscan.Number {
		return string(v)
	}
	return ""
}

func (r *Renderer) lookupString(body []byte, name string) string {
	v, _ := jsonscan.Lookup(body, name)
	return r.str(v)
}

// callKey names a call in flight: by its id, else (a log without ids) by
// its agent and tool, the last such call started.
func callKey(id, agent, name string) string {
	if id != "" {
		return "#" + id
	}
	return agent + "/" + name
}

// escapeText escapes what a flow must not send to the terminal.
func escapeText(s string) string {
	if plainASCII(s) {
		return s
	}
	return term.Escape(s)
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// duration is a time span, short: 850ms, 2.37s, 1m52s, 1h02m.
func duration(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%dµs", us)
	case us < 1_000_000:
		return fmt.Sprintf("%dms", us/1000)
	case us < 60_000_000:
		return fmt.Sprintf("%.2fs", float64(us)/1e6)
	default:
		return textfmt.Seconds(us / 1_000_000)
	}
}

// seconds is a number of seconds (a JSON number) as a duration.
func seconds(raw []byte) string {
	if jsonscan.KindOf(raw) != jsonscan.Number {
		return ""
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f <= 0 || f > 1e12 { // 0: a sub-agent skipped, no time spent worth a figure
		return ""
	}
	return duration(int64(f * 1e6))
}
