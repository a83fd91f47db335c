package event

import (
	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// The envelope's members, in the order the tools write them.
const (
	KeySeq     = "seq"
	KeyTS      = "ts"
	KeyRunID   = "run_id"
	KeyAgentID = "agent_id"
	KeyKind    = "kind"
	KeyPayload = "payload"
)

// Envelope is one line read into its parts: the raw JSON values of its
// top-level members, sub-slices of the line, nil when absent. When a key
// repeats, the last one wins, as in encoding/json. Keys are compared after
// unescaping, so "k\u0069nd" is "kind". An Envelope is reused from line
// to line and allocates nothing once its buffers have grown.
type Envelope struct {
	Line    []byte
	Seq     []byte   // the last seq value
	SeqAt   [][2]int // byte ranges of every top-level seq value, in order
	TS      []byte
	RunID   []byte
	AgentID []byte
	Kind    []byte
	Payload []byte
	Type    []byte // a top-level "type": the key of a raw (non-envelope) event

	fn     func(key, value []byte)
	keyBuf []byte
	quoted []byte

	// With keep (Event sets it), the scan also records the members of
	// each top-level object as it passes them (in inner, from mark on),
	// and keeps those of the payload (inner.Spans[pay[0]:pay[1]],
	// complete when payOK), so that reading the payload's fields needs no
	// second pass over its bytes. A member is recorded as offsets into the
	// line: no pointers, no allocation, nothing for the collector, and no
	// call per member.
	keep  bool
	inner jsonscan.Inner
	mark  int
	pay   [2]int
	payOK bool
}

// maxKept bounds the members recorded of one object: a payload of more
// members (a huge line's) is read again when its fields are asked for.
const maxKept = 64

// Scan checks that line is one JSON object and reads its members. The
// error is jsonscan's reason, for a bad-line report.
func (e *Envelope) Scan(line []byte) error {
	if e.fn == nil {
		e.fn = e.member
	}
	e.Line = line
	e.SeqAt = e.SeqAt[:0]
	e.Seq, e.TS, e.RunID, e.AgentID, e.Kind, e.Payload, e.Type = nil, nil, nil, nil, nil, nil, nil
	if !e.keep {
		return jsonscan.Members(line, e.fn)
	}
	if cap(e.inner.Spans) == 0 {
		e.inner.Spans = make([]jsonscan.Span, 0, maxKept)
	}
	e.inner.Spans, e.inner.Full = e.inner.Spans[:0], false
	e.mark, e.payOK = 0, false
	return jsonscan.NestedSpans(line, e.fn, &e.inner)
}

// payloadMembers returns the payload's members as the scan recorded
// them, when it did and body is the payload; ok is false otherwise.
func (e *Envelope) payloadMembers(body []byte) (ms []jsonscan.Span, ok bool) {
	if !e.payOK || len(body) != len(e.Payload) || len(body) == 0 || &body[0] != &e.Payload[0] {
		return nil, false
	}
	return e.inner.Spans[e.pay[0]:e.pay[1]], true
}

func (e *Envelope) member(key, value []byte) {
	payload := e.read(key, value)
	if e.keep {
		// The members the scan recorded since the last top-level member
		// are this one's: kept if it is the payload, else let go.
		if payload {
			e.pay = [2]int{e.mark, len(e.inner.Spans)}
			e.payOK = !e.inner.Full
			e.mark = len(e.inner.Spans)
		} else {
			e.inner.Spans = e.inner.Spans[:e.mark]
		}
		e.inner.Full = false
	}
}

// read sets the part key names; payload says it was the payload.
func (e *Envelope) read(key, value []byte) (payload bool) {
	switch string(key) {
	case KeySeq:
		off := jsonscan.OffsetOf(e.Line, value)
		e.SeqAt = append(e.SeqAt, [2]int{off, off + len(value)})
		e.Seq = value
	case KeyTS:
		e.TS = value
	case KeyRunID:
		e.RunID = value
	case KeyAgentID:
		e.AgentID = value
	case KeyKind:
		e.Kind = value
	case KeyPayload:
		e.Payload = value
		payload = true
	case "type":
		e.Type = value
	default:
		// A key equal to a name has no backslash: only a key that is
		// none of them is looked at again, decoded if it has escapes,
		// the one place one is: "s\u0065q" is seq.
		if !hasEscape(key) {
			return false
		}
		e.quoted = append(append(append(e.quoted[:0], '"'), key...), '"')
		k, ok := jsonscan.Unquote(e.keyBuf[:0], e.quoted)
		if !ok || hasEscape(k) {
			return false
		}
		e.keyBuf = k
		return e.read(k, value)
	}
	return payload
}

// SeqInt returns seq as an int64; ok is false when it is absent or not
// an integer that fits.
func (e *Envelope) SeqInt() (seq int64, ok bool) {
	if e.Seq == nil {
		return 0, false
	}
	return jsontext.ParseFixed(e.Seq, 0)
}

// Micros returns ts as Unix microseconds, exactly (no float64 on the
// way). known is false when ts is absent, null or 0: 0 is what a
// converter writes before it has seen any time, so it means "no time
// known". bad is true when ts is present but not a number.
func (e *Envelope) Micros() (us int64, known, bad bool) {
	if e.TS == nil || jsonscan.KindOf(e.TS) == jsonscan.Null {
		return 0, false, false
	}
	us, ok := jsontext.ParseFixed(e.TS, 6)
	if !ok {
		return 0, false, true
	}
	return us, us != 0, false
}
