package cursor

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Resumer decides, event by event, what comes after a cursor. The rule:
//
//   - The cursor's event is the first line whose seq, run_id and ts are
//     those of the cursor and whose bytes hash the same. Every event after
//     it is new, whatever its seq or ts: that covers a log that grew and a
//     producer that restarted and counts from 1 again.
//   - Until that line is found (it may be gone: the log was rotated or
//     truncated), an event is new when it is newer than the cursor: a
//     higher ts, or the same ts in the same run with a higher seq. Without
//     a numeric ts on both sides, only an event of the same run_id (both
//     absent counts as the same) with a higher seq is newer.
//
// The decision is made as each event streams by, so memory stays flat.
// A nil cursor passes everything.
type Resumer struct {
	From  *Cursor
	found bool
	hash  [sha256.Size]byte
}

// NewResumer returns a Resumer after c (nil: no cursor yet).
func NewResumer(c *Cursor) *Resumer {
	r := &Resumer{From: c}
	if c != nil {
		hex.Decode(r.hash[:], []byte(c.Hash))
	}
	return r
}

// Pass reports whether the scanned event, whose seq is valid, comes after
// the cursor.
func (r *Resumer) Pass(e *Event) bool {
	if r.From == nil || r.found {
		return true
	}
	if r.isCursor(e) {
		r.found = true
		return false
	}
	return r.newer(e)
}

// Found reports whether the cursor's event was seen.
func (r *Resumer) Found() bool { return r.found }

func (r *Resumer) isCursor(e *Event) bool {
	c := r.From
	return bytes.Equal(e.Seq, c.Seq) && bytes.Equal(e.RunID, c.RunID) && bytes.Equal(e.TS, c.TS) &&
		sha256.Sum256(e.Line) == r.hash
}

func (r *Resumer) newer(e *Event) bool {
	c := r.From
	if isNumber(e.TS) && isNumber(c.TS) {
		switch CompareNumber(e.TS, c.TS) {
		case 1:
			return true
		case -1:
			return false
		}
	}
	return bytes.Equal(e.RunID, c.RunID) && CompareSeq(e.Seq, c.Seq) > 0
}

func isNumber(v []byte) bool { return v != nil && jsonscan.KindOf(v) == jsonscan.Number }

// CompareNumber compares two JSON numbers exactly: -1, 0 or +1. float64
// rounding is monotone, so different floats decide at once; equal floats
// (1758800000.1234567 and ...568 round alike) are compared as exact
// decimals when written without an exponent, digit by digit, in time
// linear in their length.
func CompareNumber(a, b []byte) int {
	x, errA := strconv.ParseFloat(string(a), 64)
	y, errB := strconv.ParseFloat(string(b), 64)
	if errA == nil && errB == nil && x != y {
		return cmp.Compare(x, y)
	}
	if bytes.Equal(a, b) || bytes.ContainsAny(a, "eE") || bytes.ContainsAny(b, "eE") {
		// An exponent could stand for 10^999999999: equal floats are
		// close enough then.
		return 0
	}
	return compareDecimal(a, b)
}

// compareDecimal compares two JSON numbers without an exponent exactly.
func compareDecimal(a, b []byte) int {
	negA, negB := len(a) > 0 && a[0] == '-', len(b) > 0 && b[0] == '-'
	if negA {
		a = a[1:]
	}
	if negB {
		b = b[1:]
	}
	ia, fa, _ := bytes.Cut(a, []byte("."))
	ib, fb, _ := bytes.Cut(b, []byte("."))
	ia, ib = bytes.TrimLeft(ia, "0"), bytes.TrimLeft(ib, "0")
	fa, fb = bytes.TrimRight(fa, "0"), bytes.TrimRight(fb, "0")
	if len(ia)+len(fa) == 0 { // -0 is 0
		negA = false
	}
	if len(ib)+len(fb) == 0 {
		negB = false
	}
	if negA != negB {
		if negA {
			return -1
		}
		return 1
	}
	c := cmp.Compare(len(ia), len(ib))
	if c == 0 {
		c = bytes.Compare(ia, ib)
	}
	if c == 0 {
		c = bytes.Compare(fa, fb) // fractions: a prefix is the smaller
	}
	if negA {
		return -c
	}
	return c
}
