// Package jsontext is the one home of the JSON bytes evtools writes itself:
// quoted strings, fixed-point decimals, and decimal counters of any size.
// Everything that reads JSON is in pkg/jsonscan; everything the tools pass
// through from their input is copied byte for byte and never re-quoted.
//
// # Quoting policy
//
// AppendString writes a JSON string that any JSON reader decodes to the
// same text, and that is safe to show on a terminal and to embed in a page
// or a line-oriented tool:
//
//   - '"' and '\' are escaped; '\n', '\r' and '\t' use their short forms;
//   - every other C0 control, DEL (U+007F) and every C1 control
//     (U+0080..U+009F, among them U+009B, a terminal's CSI) become \u00XX;
//   - U+2028 and U+2029 become \u2028 and \u2029: JavaScript and some
//     line splitters take them for line ends;
//   - a byte that is not part of valid UTF-8 becomes \ufffd, as
//     encoding/json does, so the output is always valid UTF-8;
//   - '<', '>' and '&' stay as they are: evtools writes no HTML through it.
package jsontext

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// safe[c] is true for the ASCII bytes that AppendString copies as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a quoted JSON string, by the policy in the
// package comment.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	return append(AppendStringContent(append(dst, '"'), s), '"')
}

// AppendStringContent appends what AppendString puts between the quotes.
// For valid UTF-8 the content of texts joined is their contents joined, so
// that a text can be encoded a piece at a time.
func AppendStringContent[S ~string | ~[]byte](dst []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i = plainRun(s, i); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = AppendEscape(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		// Two- and three-byte runes that need no escape (most of Latin,
		// Greek, Cyrillic, CJK) are told apart from the few that do
		// without decoding; the rest go through decodeRune.
		if i+1 < len(s) && plain2(c, s[i+1]) {
			i += 2
			continue
		}
		if i+2 < len(s) && plain3(c, s[i+1], s[i+2]) {
			i += 3
			continue
		}
		r, size := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r >= 0x80 && r <= 0x9f, r == '\u2028', r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = AppendU(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// plain2 reports whether c, c1 are a two-byte rune that AppendString
// copies as it is: one that is no C1 control (those are C2 80..9F).
func plain2(c, c1 byte) bool {
	return c >= 0xc2 && c < 0xe0 && c1&0xc0 == 0x80 && (c != 0xc2 || c1 >= 0xa0)
}

// plain3 reports whether c, c1, c2 are a three-byte rune that AppendString
// copies as it is, told without decoding: neither U+2028 nor U+2029 (E2 80
// A8/A9); E0 and ED lead the forms that may be overlong or surrogates, and
// are left to decode.
func plain3(c, c1, c2 byte) bool {
	return c > 0xe0 && c < 0xf0 && c != 0xed && c1&0xc0 == 0x80 && c2&0xc0 == 0x80 &&
		(c != 0xe2 || c1 != 0x80 || c2&^1 != 0xa8)
}

func decodeRune[S ~string | ~[]byte](s S) (rune, int) {
	// utf8.DecodeRune and DecodeRuneInString differ only in their argument.
	n := min(len(s), utf8.UTFMax)
	var b [utf8.UTFMax]byte
	for i := 0; i < n; i++ {
		b[i] = s[i]
	}
	return utf8.DecodeRune(b[:n])
}

// AppendEscape appends the escape of the ASCII byte c, one that a JSON
// string cannot hold as it is (a quote, a backslash, a control): the
// short forms \n \r \t \" \\ where JSON has them, else \u00XX.
func AppendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return AppendU(dst, rune(c))
}

// AppendU appends r, a rune of the Basic Multilingual Plane (or half of a
// surrogate pair), as the escape \uXXXX.
func AppendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// pow10 holds the scales of fixed-point numbers, 10^0 to 10^9.
var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

// MaxScale is the largest scale ParseFixed and AppendFixed take.
const MaxScale = len(pow10) - 1

// ParseFixed reads a JSON number as an integer count of 10^-scale units
// (scale 0 to MaxScale), without going through float64 for plain
// decimals, so that sums of costs and times are exact and the same in
// whatever order they are added. Digits past the scale are dropped (not
// rounded); a number with an exponent, or too large for int64 as plain
// digits, goes through float64 and is rounded. ok is false for anything
// that is not a JSON number or does not fit.
func ParseFixed(b []byte, scale int) (v int64, ok bool) {
	if len(b) <= 18 {
		return parseShortFixed(b, scale)
	}
	return parseLongFixed(b, scale)
}

// parseLongFixed is ParseFixed checking for overflow digit by digit.
func parseLongFixed(b []byte, scale int) (v int64, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
	}
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > math.MaxInt64/100 {
			return parseFloatFixed(b, scale)
		}
		v = v*10 + int64(b[i]-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if frac < scale {
				if v > math.MaxInt64/100 {
					return parseFloatFixed(b, scale) // v*10 would wrap
				}
				v = v*10 + int64(b[i]-'0')
				frac++
			}
		}
	}
	return endFixed(b, i, v, frac, scale, neg)
}

// parseShortFixed is ParseFixed for at most 18 bytes: its digits fit in
// an int64 as they are read, so only the scaling needs a check.
func parseShortFixed(b []byte, scale int) (v int64, ok bool) {
	n := len(b)
	if n == 0 {
		return 0, false
	}
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
	}
	start := i
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		v = v*10 + int64(c)
	}
	if i == start {
		return 0, false
	}
	frac := 0
	if i < n && b[i] == '.' {
		for i++; i < n; i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			if frac < scale {
				v = v*10 + int64(c)
				frac++
			}
		}
	}
	return endFixed(b, i, v, frac, scale, neg)
}

// endFixed ends both paths of ParseFixed: v holds the digits read up to
// b[i], frac of them after the point. What follows must be nothing, or
// an exponent (read through float64); v is then scaled to scale places.
func endFixed(b []byte, i int, v int64, frac, scale int, neg bool) (int64, bool) {
	if i < len(b) {
		if b[i] == 'e' || b[i] == 'E' {
			return parseFloatFixed(b, scale)
		}
		return 0, false
	}
	if v > math.MaxInt64/pow10[scale-frac] {
		return parseFloatFixed(b, scale)
	}
	v *= pow10[scale-frac]
	if neg {
		v = -v
	}
	return v, true
}

func parseFloatFixed(b []byte, scale int) (int64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	f = math.Round(f * float64(pow10[scale]))
	if f >= math.MaxInt64 || f < math.MinInt64 {
		return 0, false
	}
	return int64(f), true
}

// AppendFixed appends v/10^scale as a JSON number with no trailing zeros
// after the point (and no point for a whole number): 1.5, not 1.500000000.
// Every format that prints a fixed-point value (JSON, CSV, the table) goes
// through it, so they all print the same digits.
func AppendFixed(dst []byte, v int64, scale int) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u // two's complement: right for math.MinInt64 too
	}
	p := uint64(pow10[scale])
	dst = strconv.AppendUint(dst, u/p, 10)
	frac := u % p
	if frac == 0 {
		return dst
	}
	dst = append(dst, '.')
	for d := scale - 1; d >= 0 && frac != 0; d-- {
		dst = append(dst, byte('0'+frac/uint64(pow10[d])))
		frac %= uint64(pow10[d])
	}
	return dst
}

// Counter is a non-negative integer of any size held as its decimal
// digits, for seq numbers: Inc touches only the digits that change, so
// counting past 2^64 costs nothing special and never loses a digit. The
// zero Counter is ready to use: it has no digits until the first Set, and
// Inc takes it to 1.
type Counter struct {
	digits []byte
}

// NewCounter returns a counter at start, which must be decimal digits;
// leading zeros are dropped ("007" counts from 7).
func NewCounter(start []byte) *Counter {
	for len(start) > 1 && start[0] == '0' {
		start = start[1:]
	}
	return &Counter{digits: append(make([]byte, 0, len(start)+8), start...)}
}

// Set moves the counter to v, which must be canonical decimal digits (no
// leading zero but in "0"), reusing its buffer: a checker that follows a
// stream through its gaps sets it at each one without allocating.
func (c *Counter) Set(v []byte) { c.digits = append(c.digits[:0], v...) }

// Bytes is the current value's digits; they change with the next Inc.
func (c *Counter) Bytes() []byte { return c.digits }

// Inc adds one.
func (c *Counter) Inc() {
	d := c.digits
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] != '9' {
			d[i]++
			return
		}
		d[i] = '0'
	}
	c.digits = append(c.digits, 0)
	copy(c.digits[1:], c.digits)
	c.digits[0] = '1'
}

// IsDigits reports whether s is a non-empty string of ASCII decimal
// digits: what NewCounter takes.
func IsDigits[S ~string | ~[]byte](s S) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Canonical reports whether quoted, a JSON string as read (its quotes
// included), is the very bytes AppendString writes for the text it holds:
// then a tool may copy it as it is instead of decoding it and quoting it
// again (evimport does so with the output of tools, most of what it
// writes). Whatever is not a string is not canonical.
func Canonical(quoted []byte) bool {
	n := len(quoted)
	if n < 2 || quoted[0] != '"' || quoted[n-1] != '"' {
		return false
	}
	s := quoted[1 : n-1]
	i := 0
	for {
		// A tool's output has an escape every dozen bytes or so (a \n, a
		// \t): the words and what stops them are taken in this one loop,
		// with no call between them, as plainRun's would be one an escape.
		for i+8 <= len(s) {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if m := plainMask(x); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
			i += 8
		}
		for i < len(s) && s[i] < utf8.RuneSelf && safe[s[i]] {
			i++
		}
		if i == len(s) {
			return true
		}
	stop:
		switch c := s[i]; {
		case c == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', 'n', 'r', 't':
				i += 2
			case 'u':
				if !canonicalU(s[i:]) {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < utf8.RuneSelf:
			return false // a control, DEL, or a quote that ends the string early
		case i+1 < len(s) && plain2(c, s[i+1]):
			i += 2 // as in AppendStringContent
		case i+2 < len(s) && plain3(c, s[i+1], s[i+2]):
			i += 3
		default:
			r, size := utf8.DecodeRune(s[i:])
			if escaped(r, size) {
				return false
			}
			i += size
		}
	}
}

// escaped reports whether AppendString writes the rune r, decoded from
// size bytes, as an escape: invalid UTF-8, a C1 control, U+2028 or U+2029.
func escaped(r rune, size int) bool {
	return r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029'
}

// canonicalU reports whether s starts with a \uXXXX escape as AppendU
// writes it: lower-case hex, for a rune AppendString escapes so and only
// for one.
func canonicalU(s []byte) bool {
	if len(s) < 6 {
		return false
	}
	var r rune
	for _, h := range s[2:6] {
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a' && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		default:
			return false // upper case is not what AppendU writes
		}
	}
	return r != '\n' && r != '\r' && r != '\t' && (r < 0x20 || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029')
}

// plainRun returns the index of the first byte of s from i on that is
// not plain ASCII AppendString copies as it is (a quote, a backslash, a
// control, DEL, or a byte of a multi-byte rune), or len(s): eight bytes
// at a time, the lowest flagged byte of a word being exact.
func plainRun[S ~string | ~[]byte](s S, i int) int {
	for ; i+8 <= len(s); i += 8 {
		// a word of a slice of length 8: one load, no bounds checks
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if m := plainMask(x); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || !safe[c] {
			return i
		}
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainMask flags (in the high bit of each byte) the bytes of x that
// are not plain ASCII AppendString copies as they are: exact for the
// lowest flagged byte.
func plainMask(x uint64) uint64 {
	return hasLess(x, 0x20) | hasLess(x^(lsb*'"'), 1) | hasLess(x^(lsb*'\\'), 1) | (x|(x+lsb))&msb
}

// hasLess is non-zero when some byte of x is below b (b at most 0x80):
// exact for the lowest such byte, which is all Canonical asks.
func hasLess(x uint64, b uint64) uint64 { return (x - lsb*b) &^ x & msb }

// EscapeControls rewrites the DEL and C1 controls of JSON text as \u00XX
// escapes, as AppendString writes them: for JSON copied from the input
// and shown on a terminal. Outside strings JSON has only ASCII, so they
// are always inside a string, and the escaped text decodes to the same
// value.
func EscapeControls(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || r >= 0x80 && r <= 0x9f {
			if out == nil {
				out = append(make([]byte, 0, len(b)+8), b[:i]...)
			}
			out = append(out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}
