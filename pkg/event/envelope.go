package event

import (
	"github.com/evtools/evtools/internal/jsontext"
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
}

// Scan checks that line is one JSON object and reads its members. The
// error is jsonscan's reason, for a bad-line report.
func (e *Envelope) Scan(line []byte) error {
	if e.fn == nil {
		e.fn = e.member
	}
	e.Line = line
	e.SeqAt = e.SeqAt[:0]
	e.Seq, e.TS, e.RunID, e.AgentID, e.Kind, e.Payload, e.Type = nil, nil, nil, nil, nil, nil, nil
	return jsonscan.Members(line, e.fn)
}

func (e *Envelope) member(key, value []byte) {
	if hasEscape(key) {
		// The one place an escaped key is decoded: "s\u0065q" is seq.
		e.quoted = append(append(append(e.quoted[:0], '"'), key...), '"')
		k, ok := jsonscan.Unquote(e.keyBuf[:0], e.quoted)
		if !ok {
			return
		}
		e.keyBuf, key = k, k
	}
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
	case "type":
		e.Type = value
	}
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
