package zot2gp

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/sources/zot"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// --format pi: zot's events written as the events of pi's RPC protocol
// (the table is event.Pi; docs/zot2gp.md shows it). A zot event gives none,
// one or several pi events, written as soon as zot's stream has said
// enough for them: the state kept is what pi's events carry and zot's
// events do not repeat (the text and the tool calls of the message being
// written, the turn's tool calls until their results, the run's messages
// until agent_end).

// The assistant message's origin, as pi names it: pi's AssistantMessage
// has the API, the provider and the model that answered. zot says none of
// them; a zot event with a "model" member names the model.
const (
	piAPI      = `"zot-rpc"`
	piProvider = `"zot"`
	piNoModel  = `"unknown"`
)

// piZeroUsage is the usage of a message before zot's usage event.
const piZeroUsage = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

// The errorMessage of a run whose done never came, left open by the end
// of the input or by the next prompt.
const (
	errPiEOF    = "zot2gp: the input ended before the run did (no done)"
	errPiPrompt = "zot2gp: zot began the next prompt before this run's done"
)

// piNoResult is the result of a tool call whose turn ended without it, as
// pi gives every call it started a result (an aborted one too).
const piNoResult = `[{"type":"text","text":"zot2gp: zot sent no result for this tool call"}]`

// piConverter writes pi's events for zot's. It uses the converter for the
// timestamps (--ts), and nothing else of it.
type piConverter struct {
	c  *converter
	f  zot.Fields
	ev event.Event

	out []byte // the pi lines of the event being converted

	run  piRun
	turn piTurn
	msg  piMessage

	model   []byte         // the model's name as a JSON string
	dropped map[string]int // zot type -> events dropped
	faults  []byte         // what the line being converted broke, and what was done (fault)
	ms      int64          // the timestamp of the event being converted

	strBuf, idBuf, encBuf []byte

	free  [][]byte // message buffers of ended runs, to reuse (newMessage)
	calls []piCall // the calls of the message being ended (endMessage)

	// What tells a line zot sent once from the same line again (a relay
	// or a transcript repeating it), which is not a new run, turn or
	// prompt: settled, a run ended and no prompt began another since (a
	// done then has no run to end); user, the hash of the last
	// user_message line since zot last acknowledged a command; prev, the
	// step of the line before.
	settled bool
	user    uint64
	seed    maphash.Seed
	prev    event.PiStep
}

// piRun is the state of one prompt's run: agent_start to agent_end.
type piRun struct {
	active  bool
	aborted bool     // a successful abort came during the run
	msgs    [][]byte // the run's messages, for agent_end: each is made once, in a buffer of its own
	failed  bool     // the run's last assistant message has stopReason error

	// step is the raw step of the run's last turn_start, nil for none
	step []byte

	// ended holds the ids (as written) of the calls of the run's turns
	// that ended, and of the last run's until the next one starts: zot's
	// events for them come too late for pi, whose call is over.
	ended map[string]bool
}

// piTurn is the state of one turn: turn_start to turn_end.
type piTurn struct {
	open    bool
	fresh   bool   // opened for the user's message; zot's turn_start takes it
	message []byte // the turn's (last) assistant message, one of the run's
	failed  bool   // that message has stopReason error
	held    bool   // zot's turn_end came: pi's waits for the tool results
	calls   []piCall
}

// piCall is one tool call of the turn, from tool_execution_start to its
// toolResult message.
type piCall struct {
	id, name []byte // JSON strings
	args     []byte // a JSON object
	ended    bool   // tool_execution_end written
	written  bool   // its toolResult message written
	output   []byte // the output so far (tool_progress), encoded as in a JSON string
	result   []byte // its toolResult message, the run's once written
}

// piMessage is the assistant message being written: message_start to
// message_end.
type piMessage struct {
	open   bool
	ts     int64
	usage  []byte // pi's usage object
	blocks []piBlock
}

// piBlock is one content block of the message being written.
type piBlock struct {
	call     bool
	open     bool
	text     []byte // the text (encoded as in a JSON string), or the call's arguments text, so far
	id, name []byte // a call's, as JSON strings
	args     []byte // a call's arguments, once complete
	argsErr  []byte // why its arguments text is not an object, as a JSON string
}

func newPiConverter(c *converter) *piConverter {
	return &piConverter{c: c, model: []byte(piNoModel), dropped: map[string]int{}, run: piRun{ended: map[string]bool{}}, seed: maphash.MakeSeed()}
}

// format returns the functions that convert one line and end the input in
// the format: --format pi's, or the converter's own (which has nothing to
// write at the end).
func (c *converter) format(format string, stderr io.Writer) (
	convert func(dst, line []byte) ([]byte, bool, error), finish func(out *jsonl.Writer) error) {
	if format != "pi" {
		return c.convert, func(*jsonl.Writer) error { return nil }
	}
	p := newPiConverter(c)
	return p.convert, func(out *jsonl.Writer) error {
		open := p.run.active
		out.Write(p.finish(nil))
		if err := out.Flush(); err != nil {
			return err
		}
		if open {
			fmt.Fprintf(stderr, "%s: --format pi: the input ended inside a run (no done): zot2gp ended it\n", name)
		}
		p.report(stderr)
		return nil
	}
}

// convert appends the pi lines for one zot line to dst. written is false
// when the event gives none. A non-nil error is the reason the line is
// bad: a line that is not a zot event appends nothing and leaves the state
// unchanged; an event that breaks zot's protocol (a call's result twice,
// its progress after its turn) is dropped or repaired so that pi's
// protocol holds, and what is appended is to be written all the same.
func (p *piConverter) convert(dst, line []byte) (out []byte, written bool, err error) {
	f := &p.f
	if err := zot.Scan(line, f); err != nil {
		return dst, false, err
	}
	ms := millis(p.c.ts(f.Time))
	p.out, p.ms, p.faults = dst, ms, p.faults[:0]
	p.ev.Classify(f.Name, line, true)
	step, prev := event.PiStepOf(f.Name), p.prev
	p.prev = step
	switch step {
	case event.PiResponse:
		p.response(line)
	case event.PiUserMessage:
		p.userMessageOnce(line, ms)
	case event.PiTurnStart:
		p.turnStartOnce(line, prev)
	case event.PiMessageStart:
		p.setModel(line)
		p.closeMessage()
		p.openMessage(ms)
	case event.PiTextDelta:
		p.textDelta(ms)
	case event.PiToolCallStart:
		p.toolCallStart(ms)
	case event.PiToolCallDelta:
		p.toolCallArgs(ms)
	case event.PiToolCallEnd:
		if b := p.callBlock(ms, p.ev.Field(event.ID), "tool_use_end"); b != nil {
			p.closeBlock(b)
		}
	case event.PiUsage:
		p.usage(ms, line)
	case event.PiMessageEnd:
		p.setModel(line)
		p.ensureMessage(ms)
		p.endMessage("", nil, nil, p.ev.Field(event.Body), true)
	case event.PiToolCall:
		p.toolCall()
	case event.PiTurnEnd:
		p.turnEnd(ms)
	case event.PiToolUpdate:
		p.toolProgress()
	case event.PiToolEnd:
		p.toolResult()
	case event.PiError:
		p.runError(ms)
	case event.PiRunEnd:
		p.runDone()
	default:
		p.dropped[string(f.Name)]++
	}
	if len(line) > maxKept {
		p.forgetLine()
	}
	if len(p.faults) > 0 {
		err = errors.New(string(p.faults))
	}
	return p.out, len(p.out) > len(dst), err
}

// userMessageOnce converts a user_message, unless it is the same line as
// the last one since zot acknowledged a command: a line said again (by a
// relay or a transcript) is not a new prompt.
func (p *piConverter) userMessageOnce(line []byte, ms int64) {
	h := maphash.Bytes(p.seed, line)
	if h == p.user {
		p.fault("user_message again, the same line as the last since zot acknowledged a command: dropped")
		return
	}
	p.user = h
	p.userMessage(ms)
}

// turnStartOnce converts a turn_start, unless it repeats the step of the
// open run, or, with no step, comes right after another turn_start (prev
// is the step of the line before): a line said again is not a new turn.
func (p *piConverter) turnStartOnce(line []byte, prev event.PiStep) {
	s, _ := jsonscan.Lookup(line, "step")
	if s != nil && p.run.active && bytes.Equal(s, p.run.step) || s == nil && prev == event.PiTurnStart {
		if s != nil {
			p.fault("turn_start of step %s again: dropped", s)
		} else {
			p.fault("turn_start again, with no step between: dropped")
		}
		return
	}
	p.setModel(line)
	p.turnStart()
	p.run.step = append(p.run.step[:0], s...)
}

// toolCallStart converts a tool_use_start into a tool call block of the
// message, unless the call began already.
func (p *piConverter) toolCallStart(ms int64) {
	if id := p.ev.Field(event.ID); p.callKnown(id) {
		p.fault("tool_use_start of call %s, which began already: dropped", p.idOf(id))
		return
	}
	p.ensureMessage(ms)
	p.closeTextBlock()
	p.addCall(p.ev.Field(event.ID), p.ev.Field(event.Name))
}

// toolCallArgs converts a tool_use_args into a toolcall_delta of its
// call's block.
func (p *piConverter) toolCallArgs(ms int64) {
	b := p.callBlock(ms, p.ev.Field(event.ID), "tool_use_args")
	if b == nil {
		return
	}
	// The arguments' text is kept decoded, to be parsed at the end.
	delta := p.ev.Field(event.Args)
	b.text = grow(b.text, len(delta))
	if jsonscan.KindOf(delta) == jsonscan.String {
		b.text, _ = jsonscan.AppendUnescaped(b.text, delta[1:len(delta)-1])
	} else {
		b.text = append(b.text, p.text(delta)...)
	}
	p.updateHead(`{"type":"toolcall_delta","contentIndex":`, p.blockIndex(b), `,"delta":`)
	p.writeText(delta)
	p.out = append(p.out, "\"}}\n"...)
}

// runDone ends the run at zot's done, unless the last run ended and no
// prompt began another: that done is a line said again, with no run to
// end.
func (p *piConverter) runDone() {
	if !p.run.active && p.settled {
		p.fault("done with no run open (the last one ended, and no prompt began another): dropped")
		return
	}
	p.ensureRun()
	p.endRun()
}

// forgetLine lets a huge line go once converted: the event's fields and
// the scan's point into it until the next line, or, after the last, while
// finish ends the run.
func (p *piConverter) forgetLine() {
	p.ev.Forget()
	p.f = zot.Fields{}
	for _, b := range []*[]byte{&p.strBuf, &p.encBuf, &p.idBuf} {
		if cap(*b) > maxKept {
			*b = nil
		}
	}
}

// fault says what the line being converted broke of zot's protocol and
// what zot2gp did instead, for the line's report on stderr.
func (p *piConverter) fault(format string, args ...any) {
	if len(p.faults) > 0 {
		p.faults = append(p.faults, "; "...)
	}
	p.faults = fmt.Appendf(p.faults, format, args...)
}

// finish appends what the end of the input gives: a run left open (its
// done lost) ends as failed, so that a pi client waiting for
// agent_settled is not left waiting.
func (p *piConverter) finish(dst []byte) []byte {
	p.out = dst
	p.abandon(errPiEOF)
	return p.out
}

// abandon ends the open run, if any, whose done never came. Its message
// being written, or its turn without one, fails with errMsg; a run whose
// turns ended just ends.
func (p *piConverter) abandon(errMsg string) {
	if !p.run.active {
		return
	}
	switch {
	case p.msg.open:
		p.endMessage("error", jsontext.AppendString(nil, errMsg), nil, nil, false)
	case p.turn.open && len(p.turn.message) == 0:
		p.errorMessage(p.ms, jsontext.AppendString(nil, errMsg))
	}
	p.endRun()
}

// report writes the count of dropped events to stderr, if any.
func (p *piConverter) report(stderr io.Writer) {
	if len(p.dropped) == 0 {
		return
	}
	list, total := textfmt.Tally(p.dropped, true, typeName)
	fmt.Fprintf(stderr, "%s: --format pi: dropped %s of types pi has no event for: %s\n", name, textfmt.Plural(int64(total), "event"), list)
}

// typeName shows a zot type in a message: as it is when it is a plain
// name, quoted as JSON otherwise.
func typeName(t string) string {
	for _, c := range []byte(t) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return string(jsontext.AppendString(nil, t))
		}
	}
	return t
}

// --- runs and turns

// line writes a line of pi's that holds nothing but s.
func (p *piConverter) line(s string) {
	p.out = append(p.out, s...)
	p.out = append(p.out, '\n')
}

// ensureRun writes agent_start when no run is open.
func (p *piConverter) ensureRun() {
	if p.run.active {
		return
	}
	clear(p.run.ended)
	for _, m := range p.run.msgs {
		if cap(m) <= maxKept && len(p.free) < maxFree {
			p.free = append(p.free, m[:0])
		}
	}
	clear(p.run.msgs) // a huge message is let go
	p.run = piRun{active: true, msgs: p.run.msgs[:0], ended: p.run.ended}
	p.turn = piTurn{calls: p.turn.calls[:0]}
	p.line(`{"type":"agent_start"}`)
}

// maxKept is the capacity up to which a buffer is kept for reuse once its
// contents are written (a message after its run, a block's text after its
// message); a longer one, a huge line's, is let go, so that the memory of
// --format pi follows its longest run, not its longest line ever. maxFree
// is the number of message buffers kept.
const (
	maxKept = 1 << 20
	maxFree = 256
)

// newMessage returns an empty buffer to make a message in; the message
// belongs to the run from addMessage on.
func (p *piConverter) newMessage() []byte {
	if n := len(p.free); n > 0 {
		m := p.free[n-1]
		p.free = p.free[:n-1]
		return m
	}
	return nil
}

// raw appends a part of the output line: a long one (a message, a text)
// is written out as it is, with the line so far, instead of copied into
// the line (see converter.raw).
func (p *piConverter) raw(part []byte) { p.out = p.c.raw(p.out, part) }

// grow returns b with room for n more bytes. Before it takes a huge
// buffer, it collects the garbage: a huge line converted just before (the
// input line, a text or message now written) is most likely dropped, and
// its memory can take this buffer instead of the heap growing to hold
// both, as the collector would wait for the heap to double (jsonl's reader
// does the same before a huge line).
// A buffer grows as append grows one (twice its size, a quarter more
// past 1 MiB), or to exactly what is needed when that is more: a huge
// text in one delta takes a buffer of its size.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	size := 2 * cap(b)
	if cap(b) > maxKept {
		size = cap(b) + cap(b)/4
	}
	size = max(size, len(b)+n)
	if size >= hugeBuf {
		runtime.GC()
	}
	g := make([]byte, len(b), size)
	copy(g, b)
	return g
}

// hugeBuf is the size from which grow collects the garbage first.
const hugeBuf = 16 << 20

// endRun ends the open turn and the run: agent_end, agent_settled.
func (p *piConverter) endRun() {
	p.endTurn()
	p.out = append(p.out, `{"type":"agent_end","messages":[`...)
	for i, m := range p.run.msgs {
		if i > 0 {
			p.out = append(p.out, ',')
		}
		p.raw(m)
	}
	p.out = append(p.out, `],"willRetry":false}`+"\n"...)
	p.out = strconv.AppendBool(append(p.out, `{"type":"agent_settled","aborted":`...), p.run.aborted)
	p.out = append(p.out, "}\n"...)
	p.run.active, p.settled = false, true
}

// addMessage adds a message to the run's, for agent_end: the run has it
// from then on, not a copy of it.
func (p *piConverter) addMessage(m []byte) {
	p.run.msgs = append(p.run.msgs, m)
}

// writeTurnStart opens a turn (and a run if none is open).
func (p *piConverter) writeTurnStart(fresh bool) {
	p.ensureRun()
	p.turn = piTurn{open: true, fresh: fresh, calls: p.turn.calls[:0]}
	p.line(`{"type":"turn_start"}`)
}

// ensureTurn opens a turn unless one is open and zot has not ended it.
func (p *piConverter) ensureTurn() {
	if p.turn.open && p.turn.held {
		p.endTurn()
	}
	if !p.turn.open {
		p.writeTurnStart(false)
	}
}

func (p *piConverter) turnStart() {
	if p.turn.open && p.turn.fresh {
		p.turn.fresh = false // the user's message opened it
		return
	}
	p.endTurn()
	p.writeTurnStart(false)
}

// endTurn ends the open turn, whatever zot has said of it: the message is
// ended, the results there are are written, and turn_end.
func (p *piConverter) endTurn() {
	if !p.turn.open {
		return
	}
	p.closeMessage()
	if len(p.turn.message) == 0 {
		p.emptyMessage("stop")
	}
	for i := range p.turn.calls {
		if c := &p.turn.calls[i]; !c.ended {
			p.endCall(c, nil, []byte(piNoResult), true)
		}
	}
	p.writeResults()
	p.out = append(p.out, `{"type":"turn_end","message":`...)
	p.raw(p.turn.message)
	p.out = append(p.out, `,"toolResults":[`...)
	n := 0
	for i := range p.turn.calls {
		if c := &p.turn.calls[i]; c.written {
			if n > 0 {
				p.out = append(p.out, ',')
			}
			p.raw(c.result)
			n++
		}
	}
	p.out = append(p.out, "]}\n"...)
	for i := range p.turn.calls {
		p.run.ended[string(p.turn.calls[i].id)] = true
	}
	p.turn.open, p.turn.held, p.turn.fresh = false, false, false
}

func (p *piConverter) turnEnd(ms int64) {
	p.ensureRun()
	if !p.turn.open {
		p.writeTurnStart(false)
	}
	stopRaw := p.ev.Field(event.Stop)
	stop := p.text(stopRaw)
	reason, known := event.PiStopReasons[string(stop)]
	var raw []byte
	if !known {
		reason = "stop"
		if stopRaw != nil {
			raw = jsontext.AppendString(nil, stop)
		}
	}
	var errMsg []byte
	if reason == "error" {
		errMsg = p.errorText(p.ev.Field(event.Body))
	}
	switch {
	case p.msg.open:
		p.endMessage(reason, errMsg, raw, nil, false)
	case reason == "error" && !p.turn.failed:
		p.errorMessage(ms, errMsg)
	case len(p.turn.message) == 0:
		p.emptyMessage(reason)
	}
	p.turn.held = true
	if p.allEnded() {
		p.endTurn()
	}
}

// allEnded reports whether every tool call of the turn has its result.
func (p *piConverter) allEnded() bool {
	for i := range p.turn.calls {
		if !p.turn.calls[i].ended {
			return false
		}
	}
	return true
}

func (p *piConverter) runError(ms int64) {
	p.ensureRun()
	if p.turn.failed || !p.turn.open && p.run.failed {
		return // zot's turn_end said so already
	}
	errMsg := p.errorText(p.ev.Field(event.Body))
	if p.msg.open {
		p.endMessage("error", errMsg, nil, nil, false)
	} else {
		p.ensureTurn()
		p.errorMessage(ms, errMsg)
	}
	p.endTurn()
}

// errorText is the errorMessage for a raw error value, as a JSON string.
func (p *piConverter) errorText(raw []byte) []byte {
	t := p.text(raw)
	if len(t) == 0 {
		t = []byte("zot reported an error without a message")
	}
	return jsontext.AppendString(nil, t)
}

// --- commands

func (p *piConverter) response(line []byte) {
	f := &p.f
	ok := !f.Failed()
	prompt := f.Command != nil && jsonscan.StringEquals(f.Command, zot.CommandPrompt)
	disposition := `"started"`
	if started, found := jsonscan.Lookup(line, "data", "started"); found && jsonscan.KindOf(started) == jsonscan.False {
		disposition = `"handled"` // no run started for it
	}
	if ok && prompt && disposition == `"started"` {
		if p.run.active {
			p.fault("zot began a prompt before the run's done: zot2gp ended that run")
		}
		p.abandon(errPiPrompt)
		p.settled = false // the client waits for this prompt's run
	}
	if ok {
		p.user = 0 // a prompt or a steer: its user_message is new
	}
	p.out = append(p.out, '{')
	if id, found := jsonscan.Lookup(line, "id"); found {
		p.out = append(p.out, `"id":`...)
		p.out = append(p.out, id...)
		p.out = append(p.out, ',')
	}
	p.out = append(p.out, `"type":"response","command":`...)
	if f.Command != nil {
		p.out = append(p.out, f.Command...)
	} else {
		p.out = append(p.out, `""`...)
	}
	switch {
	case !ok:
		p.out = append(p.out, `,"success":false,"error":`...)
		t := p.text(p.ev.Field(event.Body))
		if len(t) == 0 {
			t = []byte("zot reported the command failed, without a message")
		}
		p.out = jsontext.AppendString(p.out, t)
	case prompt:
		p.out = append(p.out, `,"success":true,"data":{"disposition":`...)
		p.out = append(p.out, disposition...)
		p.out = append(p.out, '}')
	default:
		p.out = append(p.out, `,"success":true`...)
		if data, found := jsonscan.Lookup(line, "data"); found && !event.PiNoData[string(p.text(f.Command))] {
			p.out = append(p.out, `,"data":`...)
			p.out = append(p.out, data...)
		}
	}
	p.out = append(p.out, "}\n"...)
	if ok && p.run.active && f.Command != nil && jsonscan.StringEquals(f.Command, event.ZotCommandAbort) {
		p.run.aborted = true
	}
}

func (p *piConverter) userMessage(ms int64) {
	switch {
	case !p.run.active:
		p.writeTurnStart(true)
	case p.turn.open && !p.turn.fresh:
		p.closeMessage() // a message during a turn: pi steers with it
	default:
		p.ensureTurn()
		p.turn.fresh = true
	}
	body := p.ev.Field(event.Body)
	m := grow(p.newMessage(), len(body)+64)
	m = append(m, `{"role":"user","content":`...)
	m = p.appendTextBlocks(m, body)
	m = append(m, `,"timestamp":`...)
	m = appendInt(m, ms)
	m = append(m, '}')
	p.startEnd(m)
	p.addMessage(m)
}

// startEnd writes message_start and message_end of a whole message.
func (p *piConverter) startEnd(m []byte) {
	p.wrapped(`{"type":"message_start","message":`, m)
	p.wrapped(`{"type":"message_end","message":`, m)
}

// wrapped writes a line of head, then m (a message), then the line's
// end.
func (p *piConverter) wrapped(head string, m []byte) {
	p.out = append(p.out, head...)
	p.raw(m)
	p.out = append(p.out, "}\n"...)
}

// setModel takes the model's name from a zot event that names it.
func (p *piConverter) setModel(line []byte) {
	if v, found := jsonscan.Lookup(line, "model"); found && jsonscan.KindOf(v) == jsonscan.String {
		p.model = jsontext.AppendString(p.model[:0], p.text(v))
	}
}

// --- the assistant message

func (p *piConverter) openMessage(ms int64) {
	p.ensureTurn()
	p.turn.fresh = false
	p.msg.open, p.msg.ts = true, ms
	p.msg.usage = append(p.msg.usage[:0], piZeroUsage...)
	p.msg.blocks = p.msg.blocks[:0]
	p.messageStart("pending", nil, ms)
}

// messageStart writes the message_start of an assistant message with
// no content yet: its stopReason reason and errorMessage errMsg (nil for
// none) as they are so far.
func (p *piConverter) messageStart(reason string, errMsg []byte, ms int64) {
	p.out = append(p.out, `{"type":"message_start","message":{"role":"assistant","content":[]`...)
	p.out = p.appendMessageEnd(p.out, reason, errMsg, ms)
	p.out = append(p.out, "}}\n"...)
}

// appendMessageEnd appends the members of an assistant message after its
// content: its origin, usage, stopReason, timestamp and errorMessage.
func (p *piConverter) appendMessageEnd(m []byte, reason string, errMsg []byte, ms int64) []byte {
	m = append(m, `,"api":`...)
	m = p.origin(m)
	m = append(m, `,"usage":`...)
	m = append(m, p.msg.usage...)
	m = append(m, `,"stopReason":"`...)
	m = append(m, reason...)
	m = append(m, `","timestamp":`...)
	m = appendInt(m, ms)
	if errMsg != nil {
		m = append(m, `,"errorMessage":`...)
		m = append(m, errMsg...)
	}
	return m
}

// origin appends the api, provider and model values (api's first).
func (p *piConverter) origin(dst []byte) []byte {
	dst = append(dst, piAPI...)
	dst = append(dst, `,"provider":`...)
	dst = append(dst, piProvider...)
	dst = append(dst, `,"model":`...)
	return append(dst, p.model...)
}

func (p *piConverter) ensureMessage(ms int64) {
	if !p.msg.open {
		p.openMessage(ms)
	}
}

// closeMessage ends the open message, if any, with the stop reason its
// content says.
func (p *piConverter) closeMessage() {
	if p.msg.open {
		p.endMessage("", nil, nil, nil, false)
	}
}

// update writes a message_update whose assistant event is the parts with
// the block index after the first and the JSON string's content enc (the
// text encoded, without its quotes) last.
func (p *piConverter) update(head string, index int, mid string, enc []byte) {
	p.updateHead(head, index, mid)
	p.raw(enc)
	p.out = append(p.out, "\"}}\n"...)
}

// updateHead writes update's line up to the string's content.
func (p *piConverter) updateHead(head string, index int, mid string) {
	p.updateStart(head, index)
	p.out = append(p.out, mid...)
	p.out = append(p.out, '"')
}

// updateStart writes a message_update's line up to the block index
// after head, the start of its assistant event.
func (p *piConverter) updateStart(head string, index int) {
	p.out = append(p.out, `{"type":"message_update","usage":`...)
	p.out = append(p.out, p.msg.usage...)
	p.out = append(p.out, `,"assistantMessageEvent":`...)
	p.out = append(p.out, head...)
	p.out = appendInt(p.out, int64(index))
}

// newBlock adds a content block, reusing an earlier block's buffers.
func (p *piConverter) newBlock(call bool) *piBlock {
	bs := p.msg.blocks
	if len(bs) < cap(bs) {
		bs = bs[:len(bs)+1]
	} else {
		bs = append(bs, piBlock{})
	}
	p.msg.blocks = bs
	b := &bs[len(bs)-1]
	// A call's arguments are not reused: the turn's call keeps them.
	*b = piBlock{call: call, open: true, text: b.text[:0], id: b.id[:0], name: b.name[:0]}
	return b
}

func (p *piConverter) blockIndex(b *piBlock) int {
	for i := range p.msg.blocks {
		if &p.msg.blocks[i] == b {
			return i
		}
	}
	return -1
}

func (p *piConverter) textDelta(ms int64) {
	p.ensureMessage(ms)
	var b *piBlock
	if n := len(p.msg.blocks); n > 0 && !p.msg.blocks[n-1].call && p.msg.blocks[n-1].open {
		b = &p.msg.blocks[n-1]
	} else {
		p.closeTextBlock()
		b = p.newBlock(false)
		p.updateStart(`{"type":"text_start","contentIndex":`, len(p.msg.blocks)-1)
		p.out = append(p.out, "}}\n"...)
	}
	body := p.ev.Field(event.Body)
	at := len(b.text)
	b.text = p.appendText(grow(b.text, len(body)), body) // a text block's text is kept encoded
	p.update(`{"type":"text_delta","contentIndex":`, len(p.msg.blocks)-1, `,"delta":`, b.text[at:])
}

// closeTextBlock ends the text block being written, if any: a new block
// begins.
func (p *piConverter) closeTextBlock() {
	for i := range p.msg.blocks {
		if b := &p.msg.blocks[i]; !b.call && b.open {
			p.closeBlock(b)
		}
	}
}

// addCall adds a tool call's block and writes toolcall_start.
func (p *piConverter) addCall(id, toolName []byte) *piBlock {
	b := p.newBlock(true)
	b.id = jsontext.AppendString(b.id, p.text(id))
	b.name = jsontext.AppendString(b.name, p.text(toolName))
	p.updateStart(`{"type":"toolcall_start","contentIndex":`, len(p.msg.blocks)-1)
	p.out = append(p.out, `,"id":`...)
	p.out = append(p.out, b.id...)
	p.out = append(p.out, `,"toolName":`...)
	p.out = append(p.out, b.name...)
	p.out = append(p.out, "}}\n"...)
	return b
}

// callBlock returns the open block of the call with the raw id (the last
// call when the id is absent) for zot's event what, started (with no name)
// when zot never said the call began; nil when the event is to be dropped:
// the call's arguments are complete, or its message has ended.
func (p *piConverter) callBlock(ms int64, id []byte, what string) *piBlock {
	b := p.findBlock(id)
	switch {
	case b != nil && b.open:
		return b
	case b != nil:
		p.fault("%s of call %s after its tool_use_end: dropped", what, p.idOf(id))
		return nil
	case p.callKnown(id):
		p.fault("%s of call %s after its message: dropped", what, p.idOf(id))
		return nil
	}
	p.fault("%s of call %s, which zot never began: begun without a name", what, p.idOf(id))
	p.ensureMessage(ms)
	return p.addCall(id, nil)
}

// callKnown reports whether zot began the call with the raw id before,
// in this run: in the message being written, or in the turn, or in a turn
// that ended. An absent id is never known.
func (p *piConverter) callKnown(id []byte) bool {
	if id == nil {
		return false
	}
	return p.findBlock(id) != nil || p.findCall(id) != nil || p.run.ended[string(p.idOf(id))]
}

// idOf returns the raw id as written (a JSON string), valid until the next
// call of idOf or sameID.
func (p *piConverter) idOf(raw []byte) []byte {
	p.idBuf = jsontext.AppendString(p.idBuf[:0], p.text(raw))
	return p.idBuf
}

// findBlock returns the open message's block of the call with the raw id
// (the last call when the id is absent), or nil.
func (p *piConverter) findBlock(id []byte) *piBlock {
	if !p.msg.open {
		return nil
	}
	for i := len(p.msg.blocks) - 1; i >= 0; i-- {
		b := &p.msg.blocks[i]
		if b.call && (id == nil || p.sameID(b.id, id)) {
			return b
		}
	}
	return nil
}

// sameID reports whether a JSON string as written equals a raw id.
func (p *piConverter) sameID(written, raw []byte) bool {
	return string(written) == string(p.idOf(raw))
}

// closeBlock writes text_end or toolcall_end.
func (p *piConverter) closeBlock(b *piBlock) {
	b.open = false
	i := p.blockIndex(b)
	if !b.call {
		p.update(`{"type":"text_end","contentIndex":`, i, `,"content":`, b.text)
		return
	}
	b.args, b.argsErr = p.parseArgs(grow(nil, len(b.text)), b.text)
	if cap(b.text) > maxKept {
		b.text = nil // parsed: a huge text is let go
	}
	p.updateStart(`{"type":"toolcall_end","contentIndex":`, i)
	p.out = append(p.out, `,"toolCall":`...)
	p.out = appendToolCallHead(p.out, b.id, b.name)
	p.raw(b.args)
	p.out = appendToolCallTail(p.out, b.argsErr)
	p.out = append(p.out, "}}\n"...)
}

// appendToolCallHead appends a ToolCall block up to its arguments, and
// appendToolCallTail the rest after them.
func appendToolCallHead(dst, id, toolName []byte) []byte {
	dst = append(dst, `{"type":"toolCall","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"name":`...)
	dst = append(dst, toolName...)
	return append(dst, `,"arguments":`...)
}

func appendToolCallTail(dst, argsErr []byte) []byte {
	if argsErr != nil {
		dst = append(dst, `,"argumentsError":`...)
		dst = append(dst, argsErr...)
	}
	return append(dst, '}')
}

// parseArgs makes a call's arguments of its JSON text, as pi does: no
// text is {}; text that is not a JSON object is {} with the reason (and
// the text) in argsErr, a JSON string.
func (p *piConverter) parseArgs(dst, text []byte) (args, argsErr []byte) {
	t := trimSpace(text)
	if len(t) == 0 {
		return append(dst, "{}"...), nil
	}
	if err := jsonscan.Check(t); err != nil {
		why := err.Error() + "\n\nReceived arguments:\n" + string(text)
		return append(dst, "{}"...), jsontext.AppendString(nil, why)
	}
	return compact(dst, t), nil
}

// compact appends the valid JSON text t without the whitespace between
// its tokens.
func compact(dst, t []byte) []byte {
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '"':
			end, _ := jsonscan.StringEnd(t, i+1)
			dst = append(dst, t[i:end]...)
			i = end - 1
		case isSpace(c):
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func (p *piConverter) usage(ms int64, line []byte) {
	if !p.msg.open {
		if len(p.turn.message) > 0 {
			p.fault("usage after the message it was for: dropped")
			return
		}
		p.openMessage(ms)
	}
	p.setModel(line)
	u := p.ev.Usage()
	t := &u.Tokens
	m := append(p.msg.usage[:0], `{"input":`...)
	m = appendInt(m, t[event.TokInput])
	m = append(m, `,"output":`...)
	m = appendInt(m, t[event.TokOutput])
	m = append(m, `,"cacheRead":`...)
	m = appendInt(m, t[event.TokCacheRead])
	m = append(m, `,"cacheWrite":`...)
	m = appendInt(m, t[event.TokCacheWrite])
	m = append(m, `,"totalTokens":`...)
	m = appendInt(m, t[event.TokInput]+t[event.TokOutput]+t[event.TokCacheRead]+t[event.TokCacheWrite])
	m = append(m, `,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":`...)
	m = jsontext.AppendFixed(m, u.CostNano, 9)
	p.msg.usage = append(m, "}}"...)
}

// endMessage ends the open message: the blocks still open end, then
// message_end with the whole message, then tool_execution_start of each of
// its calls unless it failed. reason is pi's stopReason ("" for toolUse or
// stop as the content says), errMsg and raw JSON strings or nil; zotContent
// is zot's content of the message when fromZot.
func (p *piConverter) endMessage(reason string, errMsg, raw, zotContent []byte, fromZot bool) {
	for i := range p.msg.blocks {
		if b := &p.msg.blocks[i]; b.open {
			p.closeBlock(b)
		}
	}
	p.msg.open = false
	// The message is made once, in a buffer of its own that the run keeps:
	// its content and its calls' arguments are not copied again.
	size := len(zotContent) + 512
	if !fromZot {
		for i := range p.msg.blocks {
			b := &p.msg.blocks[i]
			size += len(b.text) + len(b.args) + len(b.argsErr) + len(b.id) + len(b.name) + 64
		}
	}
	m := grow(p.newMessage(), size)
	m = append(m, `{"role":"assistant","content":[`...)
	calls := p.calls[:0]
	zot := fromZot && jsonscan.KindOf(zotContent) == jsonscan.Array
	if zot {
		var same bool
		at := len(m)
		m, calls, same = p.appendZotContent(m, calls, zotContent)
		if !same {
			// pi's final message is what it streamed: a client has shown
			// the deltas, and they are not taken back.
			p.fault("the message differs from what zot streamed of it: the streamed one is kept")
			m, calls, zot = m[:at], calls[:0], false
		}
	}
	if !zot {
		for i := range p.msg.blocks {
			b := &p.msg.blocks[i]
			if i > 0 {
				m = append(m, ',')
			}
			if b.call {
				m = appendToolCallTail(append(appendToolCallHead(m, b.id, b.name), b.args...), b.argsErr)
				calls = append(calls, piCall{id: b.id, name: b.name, args: b.args})
			} else {
				m = append(m, `{"type":"text","text":"`...)
				m = append(m, b.text...)
				m = append(m, `"}`...)
			}
		}
	}
	m = append(m, ']')
	for i := range p.msg.blocks {
		if b := &p.msg.blocks[i]; cap(b.text) > maxKept {
			b.text = nil // written: a huge text is let go
		}
	}
	p.calls = calls
	if reason == "" {
		reason = "stop"
		if len(calls) > 0 {
			reason = "toolUse"
		}
	}
	p.finishMessage(m, reason, errMsg, raw, p.msg.ts)
	if reason == "error" || reason == "aborted" {
		return // pi runs no tool of a failed message
	}
	for _, call := range calls {
		if p.run.ended[string(call.id)] {
			p.fault("the message calls %s again, whose turn has ended: not run again", call.id)
			continue
		}
		p.startCall(call.id, call.name, call.args)
	}
}

// finishMessage ends m, an assistant message made up to its content, and
// writes its message_end (its message_start is written); the message is
// the turn's and the run's from then on.
func (p *piConverter) finishMessage(m []byte, reason string, errMsg, raw []byte, ms int64) {
	m = p.appendMessageEnd(m, reason, errMsg, ms)
	if raw != nil {
		m = append(m, `,"rawStopReason":`...)
		m = append(m, raw...)
	}
	m = append(m, '}')
	p.turn.message = m
	p.turn.failed = reason == "error"
	p.run.failed = p.turn.failed
	p.wrapped(`{"type":"message_end","message":`, m)
	p.addMessage(m)
}

// errorMessage writes a whole assistant message that failed, as pi does
// for a request that fails before the model answers.
func (p *piConverter) errorMessage(ms int64, errMsg []byte) {
	p.msg.usage = append(p.msg.usage[:0], piZeroUsage...)
	p.msg.ts = ms
	p.bareMessage("error", errMsg, ms)
}

// emptyMessage writes a whole assistant message with no content: a turn
// that zot ended without one.
func (p *piConverter) emptyMessage(reason string) {
	p.msg.usage = append(p.msg.usage[:0], piZeroUsage...)
	p.bareMessage(reason, nil, p.ms)
}

func (p *piConverter) bareMessage(reason string, errMsg []byte, ms int64) {
	p.messageStart(reason, errMsg, ms)
	p.finishMessage(append(p.newMessage(), `{"role":"assistant","content":[]`...), reason, errMsg, nil, ms)
}

// appendZotContent appends the content blocks of zot's message as pi's:
// text and toolCall blocks (other types are left out), and its calls to
// calls (their arguments are dst's). same is false when the blocks
// streamed of the message are not the first blocks of its content: a text
// that differs, a call of another id, a block missing.
func (p *piConverter) appendZotContent(dst []byte, calls []piCall, content []byte) (_ []byte, _ []piCall, same bool) {
	same = true
	n := 0
	jsonscan.Elements(content, func(el []byte) bool {
		typ, _ := jsonscan.Lookup(el, "type")
		text := jsonscan.StringEquals(typ, event.ZotBlockText)
		if !text && !jsonscan.StringEquals(typ, event.ZotBlockToolCall) {
			return true
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		var b *piBlock
		if n < len(p.msg.blocks) {
			b = &p.msg.blocks[n]
		}
		n++
		if text {
			t, _ := jsonscan.Lookup(el, "text")
			dst = append(dst, `{"type":"text","text":"`...)
			at := len(dst)
			dst = p.appendText(dst, t)
			same = same && (b == nil || !b.call && string(b.text) == string(dst[at:]))
			dst = append(dst, `"}`...)
			return true
		}
		id, _ := jsonscan.Lookup(el, "id")
		nm, _ := jsonscan.Lookup(el, "name")
		a, _ := jsonscan.Lookup(el, "args")
		call := piCall{id: jsontext.AppendString(nil, p.text(id)), name: jsontext.AppendString(nil, p.text(nm))}
		same = same && (b == nil || b.call && string(b.id) == string(call.id))
		dst = appendToolCallHead(dst, call.id, call.name)
		at := len(dst)
		var argsErr []byte
		dst, argsErr = p.parseArgs(dst, p.text(a))
		call.args = dst[at:]
		dst = appendToolCallTail(dst, argsErr)
		calls = append(calls, call)
		return true
	})
	return dst, calls, same && n >= len(p.msg.blocks)
}

// --- tool calls

// startCall writes tool_execution_start of a call and adds it to the
// turn's, unless the turn has it.
func (p *piConverter) startCall(id, toolName, args []byte) *piCall {
	for i := range p.turn.calls {
		if string(p.turn.calls[i].id) == string(id) {
			return &p.turn.calls[i]
		}
	}
	// The call outlives the buffers its id and name come from: they are
	// copied into buffers of its own, reused from turn to turn. Its
	// arguments are the message's, which the run keeps, or a block's,
	// never reused (newBlock).
	n := len(p.turn.calls)
	if n < cap(p.turn.calls) {
		p.turn.calls = p.turn.calls[:n+1]
	} else {
		p.turn.calls = append(p.turn.calls, piCall{})
	}
	c := &p.turn.calls[n]
	output := c.output[:0]
	if cap(output) > maxKept {
		output = nil
	}
	*c = piCall{id: append(c.id[:0], id...), name: append(c.name[:0], toolName...), args: args, output: output}
	p.toolHead("start", c)
	p.out = append(p.out, `,"args":`...)
	p.raw(args)
	p.out = append(p.out, "}\n"...)
	return &p.turn.calls[len(p.turn.calls)-1]
}

// findCall returns the open turn's call with the raw id, or nil.
func (p *piConverter) findCall(raw []byte) *piCall {
	if !p.turn.open {
		return nil
	}
	for i := range p.turn.calls {
		if p.sameID(p.turn.calls[i].id, raw) {
			return &p.turn.calls[i]
		}
	}
	return nil
}

// call returns the turn's running call with the raw id for zot's event
// what, started (with no name or arguments known) if zot never said it
// began; nil when the event is to be dropped: the call has its result, or
// its turn has ended, and pi says nothing of a call after its end.
func (p *piConverter) call(raw []byte, what string) *piCall {
	if p.run.ended[string(p.idOf(raw))] {
		p.fault("%s of call %s after its turn ended: dropped", what, p.idOf(raw))
		return nil
	}
	p.closeMessage()
	if c := p.findCall(raw); c != nil {
		if c.ended {
			p.fault("%s of call %s after its result: dropped", what, c.id)
			return nil
		}
		return c
	}
	p.fault("%s of call %s, which zot never began: begun without a name", what, p.idOf(raw))
	if !p.turn.open {
		p.writeTurnStart(false)
	}
	// zot's progress and result say no tool name: pi's is empty then.
	return p.startCall(jsontext.AppendString(nil, p.text(raw)), []byte(`""`), []byte("{}"))
}

func (p *piConverter) toolCall() {
	id := p.ev.Field(event.ID)
	if id != nil && p.run.ended[string(p.idOf(id))] {
		return // restated after its turn
	}
	if p.msg.open {
		if p.findBlock(id) != nil && id != nil {
			return // streamed
		}
		b := p.addCall(id, p.ev.Field(event.Name))
		b.text = append(b.text[:0], p.text(p.ev.Field(event.Args))...)
		p.closeBlock(b)
		return
	}
	if p.findCall(id) != nil {
		return // in the message, or restated twice
	}
	p.ensureTurn()
	// zot's decoded args: an object as it is, a string as the JSON text
	// of the arguments, nothing as {}
	a, _ := p.parseArgs(nil, p.text(p.ev.Field(event.Args)))
	p.startCall(jsontext.AppendString(nil, p.text(id)), jsontext.AppendString(nil, p.text(p.ev.Field(event.Name))), a)
}

func (p *piConverter) toolProgress() {
	c := p.call(p.ev.Field(event.ID), "tool_progress")
	if c == nil {
		return
	}
	body := p.ev.Field(event.Body)
	c.output = p.appendText(grow(c.output, len(body)), body) // kept encoded
	p.toolHead("update", c)
	p.out = append(p.out, `,"args":`...)
	p.raw(c.args)
	p.out = append(p.out, `,"partialResult":{"content":[{"type":"text","text":"`...)
	p.raw(c.output)
	p.out = append(p.out, `"}],"details":{}}}`+"\n"...)
}

func (p *piConverter) toolResult() {
	c := p.call(p.ev.Field(event.ID), "tool_result")
	if c == nil {
		return
	}
	p.endCall(c, p.ev.Field(event.Body), nil, p.ev.Failed())
	if p.allEnded() {
		p.writeResults()
		if p.turn.held {
			p.endTurn()
		}
	}
}

// endCall makes the toolResult message of a call, for when the turn's
// calls have all ended, and writes its tool_execution_end: the content is
// zot's (body) or, when that is nil, the JSON array content.
func (p *piConverter) endCall(c *piCall, body, content []byte, isError bool) {
	r := grow(p.newMessage(), len(body)+len(content)+len(c.id)+len(c.name)+128)
	r = append(r, `{"role":"toolResult","toolCallId":`...)
	r = append(r, c.id...)
	r = append(r, `,"toolName":`...)
	r = append(r, c.name...)
	r = append(r, `,"content":`...)
	at := len(r)
	if content != nil {
		r = append(r, content...)
	} else {
		r = p.appendTextBlocks(r, body)
	}
	end := len(r)
	r = append(r, `,"isError":`...)
	r = strconv.AppendBool(r, isError)
	r = append(r, `,"timestamp":`...)
	r = appendInt(r, p.ms)
	c.result = append(r, '}')
	c.ended, c.written = true, false
	p.toolHead("end", c)
	p.out = append(p.out, `,"result":{"content":`...)
	p.raw(c.result[at:end])
	p.out = append(p.out, `},"isError":`...)
	p.out = strconv.AppendBool(p.out, isError)
	p.out = append(p.out, "}\n"...)
}

// toolHead writes the line of a tool_execution event of kind (start,
// update, end) up to its call's id and tool name.
func (p *piConverter) toolHead(kind string, c *piCall) {
	p.out = append(p.out, `{"type":"tool_execution_`...)
	p.out = append(p.out, kind...)
	p.out = append(p.out, `","toolCallId":`...)
	p.out = append(p.out, c.id...)
	p.out = append(p.out, `,"toolName":`...)
	p.out = append(p.out, c.name...)
}

// writeResults writes the toolResult message of every call that has
// ended, in the order the calls began, as pi does once the tools of a
// turn have run.
func (p *piConverter) writeResults() {
	for i := range p.turn.calls {
		if c := &p.turn.calls[i]; c.ended && !c.written {
			p.startEnd(c.result)
			p.addMessage(c.result)
			c.written = true
		}
	}
}

// --- values

// text returns the text of a raw JSON value: a string decoded, nothing for
// null or absent, any other value as its JSON text. The result is valid
// until the next call.
func (p *piConverter) text(raw []byte) []byte {
	if len(raw) == 0 || jsonscan.KindOf(raw) == jsonscan.Null {
		return nil
	}
	if s, ok := event.String(raw, &p.strBuf); ok {
		return s
	}
	return raw
}

// appendText appends the text of a raw JSON value (see text) as the
// content of a JSON string, without its quotes. A string is decoded and
// encoded again a piece at a time, so that a huge one is never held
// decoded as well.
func (p *piConverter) appendText(dst, raw []byte) []byte {
	if jsonscan.KindOf(raw) != jsonscan.String {
		return jsontext.AppendStringContent(dst, p.text(raw))
	}
	for s := raw[1 : len(raw)-1]; len(s) > 0; {
		n := pieceEnd(s, textPiece)
		dst = p.appendPiece(dst, s[:n])
		s = s[n:]
	}
	return dst
}

// appendPiece appends a piece of a JSON string's content (see pieceEnd)
// decoded and encoded again.
func (p *piConverter) appendPiece(dst, piece []byte) []byte {
	if bytes.IndexByte(piece, '\\') >= 0 || !utf8.Valid(piece) {
		p.strBuf, _ = jsonscan.AppendUnescaped(p.strBuf[:0], piece)
		piece = p.strBuf
	}
	return jsontext.AppendStringContent(dst, piece)
}

// writeText writes what appendText appends into the output line; a long
// string goes out a piece at a time, never held encoded whole.
func (p *piConverter) writeText(raw []byte) {
	if p.c.direct == nil || len(raw) < directMin || jsonscan.KindOf(raw) != jsonscan.String {
		p.out = p.appendText(p.out, raw)
		return
	}
	p.c.direct.Write(p.out)
	p.out = p.out[:0]
	for s := raw[1 : len(raw)-1]; len(s) > 0; {
		n := pieceEnd(s, textPiece)
		p.encBuf = p.appendPiece(p.encBuf[:0], s[:n])
		p.c.direct.Write(p.encBuf)
		s = s[n:]
	}
}

// textPiece is about how much of a string appendText decodes at a time.
const textPiece = 64 << 10

// pieceEnd returns where the first piece of s, the content of a valid JSON
// string, may end at or after n bytes (or s's end): before a byte that
// starts a character, outside an escape, and not between the two escapes
// of a surrogate pair, so that the pieces decode to the text joined.
func pieceEnd(s []byte, n int) int {
	if len(s) <= n {
		return len(s)
	}
	high := false // the escape just passed is a high surrogate's
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], '\\')
		stop := len(s)
		if j >= 0 {
			stop = i + j
		}
		for k := max(i, n); k < stop; k++ {
			if s[k] < 0x80 || s[k] >= 0xc0 { // not a UTF-8 continuation byte
				return k
			}
		}
		if j < 0 {
			return len(s)
		}
		if stop >= n && !(high && stop == i) {
			return stop
		}
		i, high = stop+2, false
		if s[stop+1] == 'u' { // \uXXXX; D800 to DBFF are high surrogates
			i, high = stop+6, s[stop+2]|0x20 == 'd' && strings.IndexByte("89abAB", s[stop+3]) >= 0
		}
		if i >= len(s) {
			return len(s)
		}
	}
}

// appendTextBlocks appends pi's content of text blocks for zot's content:
// its text blocks (other types are left out), or a string as one block.
func (p *piConverter) appendTextBlocks(dst, raw []byte) []byte {
	dst = append(dst, '[')
	switch jsonscan.KindOf(raw) {
	case jsonscan.String:
		dst = p.appendTextBlock(dst, raw)
	case jsonscan.Array:
		n := 0
		jsonscan.Elements(raw, func(el []byte) bool {
			typ, t := twoMembers(el, "type", "text")
			if !jsonscan.StringEquals(typ, event.ZotBlockText) {
				return true
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = p.appendTextBlock(dst, t)
			n++
			return true
		})
	}
	return append(dst, ']')
}

// appendTextBlock appends a text block of pi's whose text is that of
// the raw JSON value (see appendText).
func (p *piConverter) appendTextBlock(dst, raw []byte) []byte {
	dst = append(dst, `{"type":"text","text":"`...)
	dst = p.appendText(dst, raw)
	return append(dst, `"}`...)
}

// twoMembers returns the raw values of two members of the object obj (the
// last of each, nil when absent), in one pass.
func twoMembers(obj []byte, a, b string) (va, vb []byte) {
	jsonscan.Each(obj, func(key, value []byte) bool {
		switch {
		case jsonscan.KeyIs(key, a):
			va = value
		case jsonscan.KeyIs(key, b):
			vb = value
		}
		return true
	})
	return va, vb
}

// millis reads an envelope ts (Unix seconds, decimals optional) as Unix
// milliseconds, the unit of pi's timestamps; digits past the millisecond
// are dropped.
func millis(ts []byte) int64 {
	v, _ := jsontext.ParseFixed(ts, 3)
	return v
}

func appendInt(dst []byte, v int64) []byte { return jsontext.AppendFixed(dst, v, 0) }
