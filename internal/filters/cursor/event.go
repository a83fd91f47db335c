package cursor

import (
	"errors"
	"io"

	"github.com/evtools/evtools/pkg/event"
)

// Event is what evcursor needs of one line: the envelope's parts, read in
// one pass without decoding the event (every top-level seq value's place
// in SeqAt, the last seq, run_id and ts). An Event is reused line after
// line, so scanning does not allocate.
type Event struct {
	event.Envelope
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
	return WriteRenumberedAt(w, e.Line, e.SeqAt, seq)
}

// WriteRenumberedAt is WriteRenumbered for a line scanned elsewhere: seqAt
// holds the byte ranges of its top-level seq values (Event.SeqAt).
func WriteRenumberedAt(w io.Writer, line []byte, seqAt [][2]int, seq []byte) error {
	if len(seqAt) == 0 {
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
	for _, s := range seqAt {
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
