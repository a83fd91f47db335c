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
	"math/big"
	"strconv"

	"github.com/evtools/evtools/internal/jsontext"
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
// a uint64 and does not touch math/big.
func Missing(a, b []byte) string {
	x, errA := strconv.ParseUint(string(a), 10, 64)
	y, errB := strconv.ParseUint(string(b), 10, 64)
	// equivalent mutant: the uint64 path only saves math/big; both give the same count
	if errA == nil && errB == nil {
		if y <= x {
			return "0"
		}
		return strconv.FormatUint(y-x-1, 10)
	}
	var bx, by big.Int
	bx.SetString(string(a), 10)
	by.SetString(string(b), 10)
	by.Sub(&by, &bx)
	by.Sub(&by, big.NewInt(1))
	if by.Sign() < 0 { // equivalent mutant: zero prints "0" either way
		return "0"
	}
	return by.String()
}
