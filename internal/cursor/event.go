package cursor

import (
	"errors"
	"io"

	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Event is what evcursor needs of one line, found in one pass of
// jsonscan.Members without decoding the event: where every top-level seq
// value sits, and the raw seq, run_id and ts (the last duplicate wins, as
// in encoding/json). An Event is reused line after line, so scanning does
// not allocate.
type Event struct {
	Line  []byte   // the line scanned
	Spans [][2]int // byte ranges of every top-level seq value, in order
	Seq   []byte   // raw value of the last seq member; nil if none
	RunID []byte   // raw value of the last run_id member; nil if none
	TS    []byte   // raw value of the last ts member; nil if none

	fn func(key, value []byte)
}

// Scan validates line as one JSON object and records its seq, run_id and ts
// members. The error is jsonscan's reason, for a bad-line report.
func (e *Event) Scan(line []byte) error {
	if e.fn == nil {
		e.fn = e.member
	}
	e.Line = line
	e.Spans = e.Spans[:0]
	e.Seq, e.RunID, e.TS = nil, nil, nil
	return jsonscan.Members(line, e.fn)
}

func (e *Event) member(key, value []byte) {
	// Envelope keys are plain ASCII; the byte compare is the fast path and
	// KeyIs catches escaped spellings such as "s\u0065q".
	switch {
	case isKey(key, event.KeySeq):
		off := jsonscan.OffsetOf(e.Line, value)
		e.Spans = append(e.Spans, [2]int{off, off + len(value)})
		e.Seq = value
	case isKey(key, event.KeyRunID):
		e.RunID = value
	case isKey(key, event.KeyTS):
		e.TS = value
	}
}

func isKey(raw []byte, name string) bool {
	if string(raw) == name {
		return true
	}
	for _, c := range raw {
		if c == '\\' {
			return jsonscan.KeyIs(raw, name)
		}
	}
	return false
}

// ErrNoSeq says an event has no seq member.
var ErrNoSeq = errors.New("no seq")

// SeqValue returns the event's seq as canonical digits, or an error a user
// can read: "no seq" or "seq "x" is not a non-negative integer".
func (e *Event) SeqValue() ([]byte, error) {
	if e.Seq == nil {
		return nil, ErrNoSeq
	}
	d, err := ParseSeq(e.Seq)
	if err != nil {
		return nil, &SeqError{Raw: string(e.Seq)}
	}
	return d, nil
}

// SeqError is a seq value that is not a non-negative integer.
type SeqError struct{ Raw string }

func (e *SeqError) Error() string {
	raw := e.Raw
	if len(raw) > 40 {
		raw = raw[:37] + "..."
	}
	return "seq " + raw + " is not a non-negative integer"
}

func (e *SeqError) Unwrap() error { return ErrNotSeq }

// WriteRenumbered writes the scanned line with every top-level seq value
// replaced by seq, or, when it has none, with "seq":N as its first member.
// Every other byte stays. Every duplicate seq is rewritten, not only the
// last, so that whichever one a reader honours it sees the new number.
func WriteRenumbered(w io.Writer, e *Event, seq []byte) error {
	line := e.Line
	if len(e.Spans) == 0 {
		i := 0
		for i < len(line) && line[i] != '{' {
			i++
		}
		i++ // just past '{'
		j := i
		for j < len(line) && isSpace(line[j]) {
			j++
		}
		sep := `,`
		if j < len(line) && line[j] == '}' {
			sep = ``
		}
		return writeAll(w, line[:i], []byte(`"seq":`), seq, []byte(sep), line[i:])
	}
	last := 0
	for _, s := range e.Spans {
		if _, err := w.Write(line[last:s[0]]); err != nil {
			return err
		}
		if _, err := w.Write(seq); err != nil {
			return err
		}
		last = s[1]
	}
	_, err := w.Write(line[last:])
	return err
}

func writeAll(w io.Writer, parts ...[]byte) error {
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// AppendRenumbered is WriteRenumbered into a byte slice.
func AppendRenumbered(dst []byte, e *Event, seq []byte) []byte {
	b := appendWriter{dst}
	WriteRenumbered(&b, e, seq)
	return b.b
}

type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
