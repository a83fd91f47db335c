// Package cursor is the concern behind evcursor: the envelope's seq as a
// decimal integer of any size, re-numbering it in place without decoding
// events, the cursor state file (read, atomic save, lock, pending and
// commit), the decision of what comes after a cursor, and the checker that
// finds gaps, repeats and restarts.
package cursor

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strconv"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// A seq is held as its canonical decimal digits (no sign, no leading zero
// except "0" itself), so that any size keeps every digit: a JSON number
// such as 9007199254740993 does not survive a float64. Comparing two
// canonical forms is a length compare then a byte compare.

// ErrNotSeq says a seq value is not a non-negative integer.
var ErrNotSeq = errors.New("not a non-negative integer")

// ParseSeq returns the canonical digits of a raw JSON seq value. Only a
// plain JSON integer is accepted: 0, 17, 9007199254740993. A string, a
// negative number, a fraction (1.0) or an exponent (1e3) is ErrNotSeq:
// producers write seq as a plain integer, and anything else is a sign the
// line is not what it seems.
func ParseSeq(raw []byte) ([]byte, error) {
	if !jsontext.IsDigits(raw) {
		return nil, ErrNotSeq
	}
	if raw[0] == '0' && len(raw) > 1 {
		return nil, ErrNotSeq // not valid JSON either
	}
	return raw, nil
}

// ParseSeqArg parses a seq given on the command line (--start, --after):
// decimal digits, leading zeros allowed and dropped.
func ParseSeqArg(s string) ([]byte, error) {
	if !jsontext.IsDigits(s) {
		return nil, fmt.Errorf("%q is %w", s, ErrNotSeq)
	}
	i := 0
	for i < len(s)-1 && s[i] == '0' {
		i++
	}
	return []byte(s[i:]), nil
}

// CompareSeq compares two canonical seqs: -1 if a < b, 0 if equal, +1 if
// a > b.
func CompareSeq(a, b []byte) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// Missing returns how many seqs lie strictly between a and b (b > a+1),
// as decimal digits: the "N missing" of a gap report. The common case fits
// a uint64; beyond it the digits are subtracted one by one, in time linear
// in their length (math/big's decimal conversion is quadratic: a seq of
// millions of digits took it a minute).
func Missing(a, b []byte) string {
	x, errA := strconv.ParseUint(string(a), 10, 64)
	y, errB := strconv.ParseUint(string(b), 10, 64)
	if errA == nil && errB == nil {
		if y <= x {
			return "0"
		}
		return strconv.FormatUint(y-x-1, 10)
	}
	if CompareSeq(b, a) <= 0 {
		return "0"
	}
	// d = b - a - 1, digit by digit from the right; the 1 is the first
	// borrow. b > a, so the result is not negative.
	d := make([]byte, len(b))
	borrow := 1
	for i := 1; i <= len(b); i++ {
		v := int(b[len(b)-i]-'0') - borrow
		if i <= len(a) {
			v -= int(a[len(a)-i] - '0')
		}
		borrow = 0
		if v < 0 {
			v += 10
			borrow = 1
		}
		d[len(d)-i] = byte('0' + v)
	}
	i := 0
	for i < len(d)-1 && d[i] == '0' {
		i++
	}
	return string(d[i:])
}

// Short cuts a long value (a seq, a count, a ts of any size) for a
// message: its first and last digits and how long it is, so that a
// million-digit seq does not flood stderr.
func Short[S ~string | ~[]byte](v S) string {
	const head, tail = 20, 10
	if len(v) <= head+tail+20 {
		return string(v)
	}
	return string(v[:head]) + "..." + string(v[len(v)-tail:]) + " (" + strconv.Itoa(len(v)) + " characters)"
}
