// Package event reads the events evtools works on and says what each one
// means, whichever agent's vocabulary wrote it.
//
// An event arrives as one JSON object on a line. Most are envelopes,
//
//	{"seq":12,"ts":1758800000.12,"run_id":"r_1","agent_id":"parent","kind":"tool_call","payload":{...}}
//
// and some are the bare objects of an agent's own protocol, such as zot's
// RPC stream, which name their type in a "type" member. Envelope.Scan reads
// a line once, without decoding it, into its parts: sub-slices of the line.
//
// What an event means is a small closed set (Meaning): a run starting or
// ending, the user's message, assistant text, a model call and its result,
// a tool call starting, progressing and ending, an error, a kill, a
// guardrail. A Vocabulary is a table from each kind (or type) it knows to
// its meaning and to the payload members that hold the meaning's fields
// (Field). Three vocabularies are built in, one file each: the glasspane
// kinds that zot2gp writes around zot payloads (glasspane.go), the kinds of
// a multi-agent run log (runlog.go), and zot's own types, for raw zot lines
// (zot.go). A fourth agent's log is one more file of the same shape.
//
// Reading and classifying an event allocates nothing: Event keeps its
// buffers from one line to the next.
package event

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Meaning is what an event means, whatever its vocabulary calls it.
type Meaning uint8

// The meanings. Every event has exactly one; an event no vocabulary knows
// is Other.
const (
	Other       Meaning = iota // a kind no vocabulary gives a meaning: shown, counted, never dropped
	RunStart                   // a run began (its model resolved)
	RunEnd                     // a run ended; Outcome and Wall where the vocabulary says
	UserMessage                // the user's message, as accepted; Text
	Text                       // assistant text: a piece of it (Delta) or the whole message
	ModelCall                  // a request to the model began; Model, Step
	ModelResult                // the model answered: tokens, cost, latency (see Usage)
	ModelEnd                   // a model turn ended; Stop, and Failed when it stopped on an error
	ModelError                 // a model request failed; Text
	ToolStart                  // a tool call began; ID, Name, Args
	ToolUpdate                 // a tool call progressed: a piece of its arguments or of its output
	ToolEnd                    // a tool call ended; ID, Name, Failed, Text (the output)
	Error                      // the run or a command failed; Text
	Kill                       // a kill request, a budget or a loop detector stopped the run; Text
	Guardrail                  // a rule stopped an answer; Name (the tool required), Text
	AgentStart                 // a sub-agent was spawned; Name (its role), Model
	AgentEnd                   // a sub-agent ended; Outcome, Wall
	Decision                   // a parent decided how to handle the message; Text
	Ack                        // a command was acknowledged; Failed when it failed
	numMeanings
)

var meaningNames = [numMeanings]string{
	"other", "run_start", "run_end", "user_message", "text", "model_call",
	"model_result", "model_end", "model_error", "tool_start", "tool_update",
	"tool_end", "error", "kill", "guardrail", "agent_start", "agent_end",
	"decision", "ack",
}

// String is the meaning's name in snake case, as docs and tests show it.
func (m Meaning) String() string {
	if m < numMeanings {
		return meaningNames[m]
	}
	return fmt.Sprintf("Meaning(%d)", uint8(m))
}

// Flags refine a meaning.
type Flags uint8

const (
	// Delta marks a piece of a text, or of a tool call's arguments or
	// output: more pieces follow, and the whole comes later or never.
	Delta Flags = 1 << iota
	// Restated marks a ToolStart that repeats a call another event of the
	// same vocabulary starts: count it only when that event is missing.
	Restated
	// Final marks the run's answer or its failure, which the run's end
	// must follow in a Strict vocabulary.
	Final
	// Turn marks the ModelCall and ModelEnd that open and close a model
	// turn; the model's latency is the time between them.
	Turn
)

// Field names a value a meaning carries. A vocabulary's row says which
// payload member holds it.
type Field uint8

// The fields.
const (
	ID       Field = iota + 1 // a tool call's id
	Name                      // a tool's name, or a sub-agent's role
	Args                      // a tool call's arguments: an object, or with Delta a piece of their JSON text
	Body                      // text: the prompt, the reply or a piece of it, a tool's output, an error message
	Outcome                   // how a run or a sub-agent ended (ok, error, killed, ...)
	Model                     // the model's name
	Step                      // the step or turn number
	Wall                      // the wall time in seconds
	Stop                      // why a model turn stopped (end, tool_use, error)
	IsError                   // true when the call or command failed
	OK                        // false when the call or command failed
	Latency                   // the model's latency in milliseconds
	Thinking                  // the model's reasoning, as text, where the log keeps it
	Parent                    // the agent that spawned a sub-agent
	Provider                  // the model's provider (deepseek, anthropic, ...)
	numFields
)

// Members says, per field, which payload member holds it. "a|b" names
// alternatives: the first one present is read. (Index 0 is no field.)
type Members [numFields]string

// Entry is one row of a vocabulary: what events of one kind mean.
type Entry struct {
	Kind    string // the kind (or the type, in a Raw vocabulary)
	Type    string // when set, the row holds only for a payload whose "type" is this
	Needs   Field  // when set, the row holds only for a payload that has this field
	Meaning Meaning
	Flags   Flags
	Members Members

	// For a Raw vocabulary that zot2gp converts into envelopes: the kind
	// glasspane classifies the type as ("" when glasspane does not map
	// it, and the type is kept as the kind), and whether the event belongs
	// to the session rather than to an agent (agent_id "").
	Glasspane string
	Session   bool

	members [numFields][]string // Members split at '|'
	names   []member            // every member named, for one pass over a payload
	lens    uint64              // bit n set: a name of n bytes is among them
	vocab   *Vocabulary
}

// member is one payload member a row reads: the field it fills, and its
// rank among the field's alternatives (0 is preferred).
type member struct {
	name  string
	field Field
	rank  uint8
}

// Vocabulary is one agent's names for its events, as a table.
type Vocabulary struct {
	Name string // as docs show it: "glasspane", "run-log", "zot"
	// Raw vocabularies are bare objects keyed by "type"; the others are
	// envelopes keyed by "kind".
	Raw bool
	// Strict vocabularies end every run with exactly one RunEnd, after a
	// Final event; a run without one is a problem to report.
	Strict  bool
	Entries []Entry

	// FailedType, for a Raw vocabulary, is the type whose events with
	// "success":false glasspane classifies as FailedKind.
	FailedType, FailedKind string
}

// rows holds, per kind, the rows of every vocabulary of one form (envelope
// or raw): the conditional rows first, then at most one plain row.
type rows map[string][]*Entry

var (
	envelopeRows = rows{}
	rawRows      = rows{}
	vocabularies []*Vocabulary
)

// register adds a vocabulary's rows to the index. Each vocabulary's file
// calls it once, from a package-level variable.
func register(v *Vocabulary) *Vocabulary {
	idx := envelopeRows
	if v.Raw {
		idx = rawRows
	}
	for i := range v.Entries {
		e := &v.Entries[i]
		for f, spec := range e.Members {
			if spec != "" {
				e.members[f] = strings.Split(spec, "|")
				for k, name := range e.members[f] {
					e.names = append(e.names, member{name, Field(f), uint8(k)})
					if len(name) >= 64 {
						panic("event: member name " + name + " is longer than fill looks at")
					}
					e.lens |= 1 << len(name)
				}
			}
		}
		if e.Needs != 0 && e.members[e.Needs] == nil {
			panic("event: row " + e.Kind + " needs a field it names no member for")
		}
		rs := idx[e.Kind]
		if e.Type == "" && e.Needs == 0 {
			for _, r := range rs {
				if r.Type == "" && r.Needs == 0 {
					panic("event: two plain rows for kind " + e.Kind)
				}
			}
			idx[e.Kind] = append(rs, e)
		} else {
			idx[e.Kind] = append([]*Entry{e}, rs...)
		}
		e.vocab = v
	}
	vocabularies = append(vocabularies, v)
	return v
}

// Vocabularies lists the vocabularies known, in registration order.
func Vocabularies() []*Vocabulary { return vocabularies }

// Lookup returns the row for events of the kind (a type, when raw) whose
// payload is body, or nil when no vocabulary of that form knows the kind.
// Event.Read does the same and keeps what it read of the payload.
func Lookup(kind []byte, body []byte, raw bool) *Entry {
	idx := envelopeRows
	if raw {
		idx = rawRows
	}
	return choose(idx[string(kind)], body, nil, false, func(r *Entry) bool {
		return has(body, r.members[r.Needs])
	})
}

// choose returns the first of a kind's rows whose condition holds for the
// body: its "type" is the row's (typ when typed, else looked up), or it
// has the field the row needs (has says).
func choose(rs []*Entry, body, typ []byte, typed bool, has func(*Entry) bool) *Entry {
	for _, r := range rs {
		switch {
		case r.Type != "":
			if !typed {
				typ, _ = jsonscan.Lookup(body, "type")
				typed = true
			}
			if !jsonscan.StringEquals(typ, r.Type) {
				continue
			}
		case r.Needs != 0:
			if !has(r) {
				continue
			}
		}
		return r
	}
	return nil
}

// has reports whether body has a member of one of the names.
func has(body []byte, names []string) bool {
	for _, m := range names {
		if _, ok := jsonscan.Lookup(body, m); ok {
			return true
		}
	}
	return false
}

// Vocabulary returns the vocabulary the row belongs to.
func (e *Entry) Vocabulary() *Vocabulary { return e.vocab }

// Meanings is a set of meanings.
type Meanings uint32

// MeaningsOf returns the set of the meanings given.
func MeaningsOf(ms ...Meaning) Meanings {
	var s Meanings
	for _, m := range ms {
		s |= 1 << m
	}
	return s
}

// A Meanings has a bit for every meaning.
var _ [32 - numMeanings]struct{}

// Has reports whether m is in the set.
func (s Meanings) Has(m Meaning) bool { return s&(1<<m) != 0 }

// marks are the flags that matter whatever the meaning.
const marks = Restated | Final | Turn

// Event is one event read and classified. Its slices point into the line
// and into buffers the Event owns: they are valid until the next Read.
type Event struct {
	Envelope
	Raw     bool   // a bare object of a Raw vocabulary, not an envelope
	Body    []byte // where the fields are: the payload, or the whole raw line
	Entry   *Entry // the row that says what it means; nil for Other
	Vocab   *Vocabulary
	Meaning Meaning
	Flags   Flags

	// Want, when not empty, is what the reader acts on: the meanings in it
	// and the marks Restated, Final and Turn. An event whose every possible
	// reading is outside it may then be read as its kind's plain row
	// (often Other) without looking into the payload: glasspane's
	// message_update is a user message or a text delta according to its
	// payload's type, which a summary that counts neither need not read.
	Want Meanings

	name []byte // the decoded kind or type
	buf  []byte

	kinds [32]struct { // rowsOf's cache
		rows []*Entry
		raw  bool
	}

	// The row's fields, read from Body in one pass on first use.
	filled bool
	vals   [numFields][]byte
	ranks  [numFields]uint8
}

// ErrNotEvent says a JSON object has neither a "kind" (an envelope) nor a
// "type" (a raw event).
var ErrNotEvent = fmt.Errorf(`neither "kind" nor "type": not an event`)

// Read scans line and classifies it. The error is jsonscan's when the
// line is not a JSON object, or ErrNotEvent.
func (e *Event) Read(line []byte) error {
	e.keep = recordPayload
	if err := e.Envelope.Scan(line); err != nil {
		return err
	}
	switch {
	case e.Kind != nil:
		e.name = e.str(e.Kind, &e.buf)
		e.classify(e.name, e.Payload, false, nil, false)
	case e.Type != nil:
		e.name = e.str(e.Type, &e.buf)
		e.classify(e.name, line, true, e.Type, true)
	default:
		e.name = nil
		e.classify(nil, nil, false, nil, true)
		e.setMeaning()
		return ErrNotEvent
	}
	e.setMeaning()
	return nil
}

// Name is the decoded kind (or raw type); nil when not a string.
func (e *Event) Name() []byte { return e.name }

// Classify sets the event's meaning from its kind (decoded) and body, as
// Read does; callers that scan the envelope themselves use it.
func (e *Event) Classify(kind, body []byte, raw bool) {
	e.classify(kind, body, raw, nil, false)
	e.setMeaning()
}

// setMeaning copies the row's meaning to the event.
func (e *Event) setMeaning() {
	if e.Entry == nil {
		e.Vocab, e.Meaning, e.Flags = nil, Other, 0
		return
	}
	e.Vocab, e.Meaning, e.Flags = e.Entry.vocab, e.Entry.Meaning, e.Entry.Flags
}

// classify finds the row: the first of the kind's rows whose condition
// holds, the plain row last.
// typ is the body's "type" when typed (the envelope scan read it), else
// it is looked up when a row needs it.
func (e *Event) classify(kind, body []byte, raw bool, typ []byte, typed bool) {
	e.Body, e.Raw, e.Entry, e.filled = body, raw, nil, false
	if kind == nil {
		return
	}
	rs := e.rowsOf(kind, raw)
	if e.Want != 0 && len(rs) > 1 && rs[0].Type != "" && rs[len(rs)-1].Type == "" && !e.wants(rs) {
		e.Entry = rs[len(rs)-1]
		return
	}
	if !typed && len(rs) > 0 && rs[0].Type != "" {
		// the body's "type", the last of that name, from the members the
		// scan recorded when it can
		if ms, ok := e.payloadMembers(body); ok {
			typ, typed = nil, true
			for _, m := range ms {
				if jsonscan.KeyIs(e.Line[m.KeyStart:m.KeyEnd], "type") {
					typ = e.Line[m.ValueStart:m.ValueEnd]
				}
			}
		}
	}
	var filledFor *Entry
	r := choose(rs, body, typ, typed, func(r *Entry) bool {
		// The row's fields are read as they would be if it held, and
		// kept if it does.
		e.Entry, e.filled, filledFor = r, false, r
		return e.Field(r.Needs) != nil
	})
	e.Entry, e.filled = r, r != nil && r == filledFor
}

// rowsOf returns the rows of kind, from the event's small cache of the
// kinds it met when it can: a stream has a few kinds, met again and again,
// and a comparison costs less than hashing the kind for the map.
func (e *Event) rowsOf(kind []byte, raw bool) []*Entry {
	if len(kind) == 0 {
		return nil // no row has an empty kind
	}
	c := &e.kinds[(len(kind)+int(kind[0])+int(kind[len(kind)-1])*7)%len(e.kinds)]
	if len(c.rows) > 0 && c.raw == raw && c.rows[0].Kind == string(kind) {
		return c.rows
	}
	idx := envelopeRows
	if raw {
		idx = rawRows
	}
	rs := idx[string(kind)]
	if len(rs) > 0 {
		c.rows, c.raw = rs, raw
	}
	return rs
}

// wants reports whether any of the rows is one the reader acts on.
func (e *Event) wants(rs []*Entry) bool {
	for _, r := range rs {
		if e.Want.Has(r.Meaning) || r.Flags&marks != 0 {
			return true
		}
	}
	return false
}

// fill reads every member the row names from the body, in one pass.
func (e *Event) fill() {
	e.filled = true
	e.vals = [numFields][]byte{}
	if e.Entry == nil || len(e.Body) == 0 || len(e.Entry.names) == 0 {
		return
	}
	names, lens := e.Entry.names, e.Entry.lens
	e.eachBody(func(key, value []byte) bool {
		if len(key) < 64 && lens&(1<<len(key)) != 0 {
			found := false
			for i := range names {
				if m := &names[i]; len(key) == len(m.name) && string(key) == m.name {
					e.take(m, value)
					found = true
				}
			}
			if found {
				return true // the bytes are the name: no backslash, no other name
			}
		}
		if !hasEscape(key) {
			return true // a plain key that is none of the names
		}
		for i := range names {
			if m := &names[i]; len(key) > len(m.name) && jsonscan.KeyIs(key, m.name) {
				e.take(m, value)
			}
		}
		return true
	})
}

// take sets the field m names to value, if m is its preferred member; among
// duplicates of one member the last wins, as in encoding/json.
func (e *Event) take(m *member, value []byte) {
	if e.vals[m.field] == nil || m.rank <= e.ranks[m.field] {
		e.vals[m.field], e.ranks[m.field] = value, m.rank
	}
}

// Forget drops the event's references into the line read last, so that
// the line's buffer can be collected while the Event is kept (a reader
// does it after a huge line).
func (e *Event) Forget() {
	line := &e.Envelope
	e.Envelope = Envelope{fn: line.fn, keyBuf: line.keyBuf, quoted: line.quoted, SeqAt: line.SeqAt[:0],
		inner: jsonscan.Inner{Spans: line.inner.Spans[:0]}}
	e.Body, e.name, e.filled, e.vals = nil, nil, false, [numFields][]byte{}
}

// recordPayload is whether Read records the payload's members in its
// scan; the tests compare both ways.
var recordPayload = true

// eachBody calls fn for the members of Body, as jsonscan.Each does, from
// the members the scan recorded when they are Body's.
func (e *Event) eachBody(fn func(key, value []byte) bool) {
	ms, ok := e.payloadMembers(e.Body)
	if !ok {
		jsonscan.Each(e.Body, fn)
		return
	}
	for _, m := range ms {
		if !fn(e.Line[m.KeyStart:m.KeyEnd], e.Line[m.ValueStart:m.ValueEnd]) {
			return
		}
	}
}

// str decodes a raw JSON string without allocating when it has no
// escapes; nil when raw is not a string.
func (e *Event) str(raw []byte, buf *[]byte) []byte {
	s, ok := String(raw, buf)
	if !ok {
		return nil
	}
	return s
}

// Field returns the raw JSON value of field f in the body, or nil when the
// row names no member for it or the body has none.
func (e *Event) Field(f Field) []byte {
	if !e.filled {
		e.fill()
	}
	return e.vals[f]
}

// Has reports whether the row names a member for field f: whether the
// event's vocabulary can say it at all.
func (e *Event) Has(f Field) bool { return e.Entry != nil && e.Entry.members[f] != nil }

// FieldString returns field f decoded as a string, using buf when it has
// escapes; ok is false when it is absent or not a string.
func (e *Event) FieldString(f Field, buf *[]byte) ([]byte, bool) {
	return String(e.Field(f), buf)
}

// FieldText is field f as text to show: a string decoded (into buf when
// it has escapes), a number or a boolean as written, "" for anything else.
func (e *Event) FieldText(f Field, buf *[]byte) string {
	v := e.Field(f)
	switch jsonscan.KindOf(v) {
	case jsonscan.String:
		return StringOf(v, buf)
	case jsonscan.Number, jsonscan.True, jsonscan.False:
		return string(v)
	}
	return ""
}

// UnixMicro is the event's time in Unix microseconds, 0 when it is not
// known: an envelope's ts, or a raw line's RFC 3339 "time" (decoded into
// buf when it has escapes).
func (e *Event) UnixMicro(buf *[]byte) int64 {
	if us, known, _ := e.Micros(); known {
		return us
	}
	if e.Raw {
		if v, ok := jsonscan.Lookup(e.Line, "time"); ok {
			if s, ok := String(v, buf); ok {
				if tm, err := time.Parse(time.RFC3339Nano, string(s)); err == nil {
					return tm.UnixMicro()
				}
			}
		}
	}
	return 0
}

// Failed reports whether the event says what it reports failed: its
// IsError member is true, its OK member false, or it stopped on an error.
func (e *Event) Failed() bool {
	if v := e.Field(IsError); v != nil && jsonscan.KindOf(v) == jsonscan.True {
		return true
	}
	if v := e.Field(OK); v != nil && jsonscan.KindOf(v) == jsonscan.False {
		return true
	}
	if v := e.Field(Stop); v != nil && jsonscan.StringEquals(v, "error") {
		return true
	}
	return false
}

// String decodes a raw JSON string value: a sub-slice of raw when it has
// no escapes and is valid UTF-8, else decoded into *buf (invalid UTF-8
// becoming U+FFFD, as encoding/json decodes it). ok is false when raw is
// not a string.
func String(raw []byte, buf *[]byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	if plainASCII(body) || bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return body, true
	}
	out, ok := jsonscan.Unquote((*buf)[:0], raw)
	if !ok {
		return nil, false
	}
	*buf = out
	return out, true
}

// StringOf is raw, a JSON string, decoded to a string (through buf when
// it has escapes), "" when raw is not one.
func StringOf(raw []byte, buf *[]byte) string {
	s, _ := String(raw, buf)
	return string(s)
}

// plainASCII reports whether a string's raw content is ASCII without a
// backslash, which it decodes to as it is: one loop over the few bytes of
// a kind or an id, where a search for the backslash and a check of the
// UTF-8 would be two calls.
func plainASCII(b []byte) bool { return plainBytes(b, msb) }

// hasEscape reports whether a raw key has a backslash; keys are short,
// so a loop beats a call to bytes.IndexByte.
func hasEscape(key []byte) bool { return !plainBytes(key, 0) }

const lsb, msb = 0x0101010101010101, 0x8080808080808080

// plainBytes reports whether b has no backslash, nor a byte past ASCII
// when high is msb. It looks at eight bytes at a time (a word whose bytes
// are each a backslash xored with itself has a zero byte), as the ids and
// names it looks at on every event are 8 to 40 bytes: a byte at a time,
// this was a twentieth of ev2otlp's instructions.
func plainBytes(b []byte, high uint64) bool {
	for ; len(b) >= 8; b = b[8:] {
		x := binary.LittleEndian.Uint64(b)
		y := x ^ lsb*'\\'
		if (x&high|(y-lsb)&^y)&msb != 0 {
			return false
		}
	}
	for _, c := range b {
		if c == '\\' || c&byte(high) != 0 {
			return false
		}
	}
	return true
}
