// Package jsonscan is a fast, allocation-free scanner for single-line JSON
// objects. The evtools filters use it on their hot paths instead of decoding
// whole events: it says whether a line is a JSON object (and, if not, why),
// lists the object's top-level members as raw sub-slices, and finds a value
// by path without building anything. Each and Elements walk an object or an
// array already checked, and StringEnd finds where a string ends, for the
// callers that scan JSON text themselves.
//
// Acceptance is exactly encoding/json's: Check(data) == nil if and only if
// json.Valid(data) holds and the value is an object. That means control
// characters inside strings are rejected, invalid UTF-8 inside strings is
// accepted (encoding/json replaces it with U+FFFD when decoding), numbers
// follow the strict JSON grammar, only space, tab, CR and LF are whitespace,
// a UTF-8 byte order mark is an error (encoding/json rejects it too; the
// framing layer strips one at the start of a file), and nesting is limited
// to 10000 levels.
package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting accepted, the same limit as encoding/json's.
const MaxDepth = 10000

// SyntaxError describes why data is not a single JSON object.
type SyntaxError struct {
	Msg    string // what is wrong, for a user; includes the column where there is one
	Offset int    // 0-based byte offset of the problem in data (len(data) at end of input)
}

// Error returns Msg.
func (e *SyntaxError) Error() string { return e.Msg }

// errCode is what the scanner found; the message is built only on failure so
// that the success path does not allocate.
type errCode uint8

const (
	codeOK        errCode = iota
	codeEmpty             // only whitespace
	codeNotObject         // the value does not start with '{'
	codeChar              // invalid character at offset
	codeAfterTop          // something after the object
	codeEOF               // input ended inside the object
	codeDepth             // nesting deeper than MaxDepth
)

// strStop is the byte class table of the string loop's tail (the body reads
// eight bytes at a time, see stopMask): true bytes end a run of plain content.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// isSpace reports JSON whitespace.
var isSpace = func() (t [256]bool) {
	t[' '], t['\t'], t['\n'], t['\r'] = true, true, true, true
	return t
}()

func isDigit(c byte) bool { return c-'0' < 10 }

// skipWS returns the index of the first non-whitespace byte at or after i.
func skipWS(data []byte, i int) int {
	for i < len(data) && isSpace[data[i]] {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stopMask flags (in the high bit of each byte) the bytes of x that are '"',
// '\\' or below 0x20. Only the lowest flagged byte is exact (a borrow can
// flag bytes above a true hit), which is all the callers use.
func stopMask(x uint64) uint64 {
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((x-lsb*0x20)&^x | (q-lsb)&^q | (b-lsb)&^b) & msb
}

// scanString scans string content starting just after the opening quote at
// i-1. It returns the index just past the closing quote, or the offset and
// code of the first error.
func scanString(data []byte, i int) (int, errCode) {
	n := len(data)
	for {
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(data[i:])
			if m := stopMask(x); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < n && !strStop[data[i]] {
			i++
		}
		if i >= n {
			return n, codeEOF
		}
	special:
		switch data[i] {
		case '"':
			return i + 1, codeOK
		case '\\':
			i++
			if i >= n {
				return n, codeEOF
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= n {
						return n, codeEOF
					}
					if !isHex[data[i]] {
						return i, codeChar
					}
					i++
				}
			default:
				return i, codeChar
			}
		default: // control character
			return i, codeChar
		}
	}
}

// plainMask is stopMask that also flags the bytes from DEL (0x7f) up:
// those of multi-byte runes, which scanStringPlain looks at.
func plainMask(x uint64) uint64 {
	return stopMask(x) | (x|(x+lsb))&msb
}

// scanStringPlain is scanString that also tells whether the string is
// plain (see Tape.Plain): its only escapes are \" \\ \n \r \t, and it
// holds no DEL, no C1 control, no U+2028 or U+2029, and only valid UTF-8.
// What is not plain is no error: the string is as valid as scanString
// finds it.
func scanStringPlain(data []byte, i int) (int, errCode, bool) {
	n := len(data)
	plain := true
	for {
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(data[i:])
			if m := plainMask(x); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < n && !strStop[data[i]] && data[i] < 0x7f {
			i++
		}
		if i >= n {
			return n, codeEOF, false
		}
	special:
		switch c := data[i]; {
		case c == '"':
			return i + 1, codeOK, plain
		case c == '\\':
			i++
			if i >= n {
				return n, codeEOF, false
			}
			switch data[i] {
			case '"', '\\', 'n', 'r', 't':
				i++
			case '/', 'b', 'f':
				i++
				plain = false
			case 'u':
				i++
				plain = false
				for k := 0; k < 4; k++ {
					if i >= n {
						return n, codeEOF, false
					}
					if !isHex[data[i]] {
						return i, codeChar, false
					}
					i++
				}
			default:
				return i, codeChar, false
			}
		case c < 0x20:
			return i, codeChar, false
		case i+1 < n && plain2(c, data[i+1]):
			i += 2
		case i+2 < n && plain3(c, data[i+1], data[i+2]):
			i += 3
		default: // DEL, and the runes the cases above do not tell at a glance
			r, size := utf8.DecodeRune(data[i:])
			if !plainRune(r, size) {
				plain = false
			}
			i += size
		}
	}
}

// plain2 reports whether c, c1 are a two-byte rune that is no C1 control
// (those are C2 80..9F): most of Latin, Greek and Cyrillic.
func plain2(c, c1 byte) bool {
	return c >= 0xc2 && c < 0xe0 && c1&0xc0 == 0x80 && (c != 0xc2 || c1 >= 0xa0)
}

// plain3 reports whether c, c1, c2 are a three-byte rune that is neither
// U+2028 nor U+2029 (E2 80 A8/A9), told without decoding: E0 and ED lead
// the forms that may be overlong or surrogates, and are left to decode.
func plain3(c, c1, c2 byte) bool {
	return c > 0xe0 && c < 0xf0 && c != 0xed && c1&0xc0 == 0x80 && c2&0xc0 == 0x80 &&
		(c != 0xe2 || c1 != 0x80 || c2&^1 != 0xa8)
}

// plainRune reports whether r, decoded from size bytes, is plain: valid
// UTF-8, no DEL or C1 control, not U+2028 or U+2029.
func plainRune(r rune, size int) bool {
	return !(r == utf8.RuneError && size == 1 || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029')
}

var isHex = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = true
	}
	return t
}()

// scanNumber scans a number starting at i (data[i] is '-' or a digit) and
// returns the index just past it.
func scanNumber(data []byte, i int) (int, errCode) {
	n := len(data)
	if data[i] == '-' {
		i++
		if i >= n {
			return n, codeEOF
		}
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case c-'1' < 9:
		i = digitsEnd(data, i+1)
	default:
		return i, codeChar
	}
	if i < n && data[i] == '.' {
		i++
		if i >= n {
			return n, codeEOF
		}
		if !isDigit(data[i]) {
			return i, codeChar
		}
		i = digitsEnd(data, i+1)
	}
	if i < n && data[i]|0x20 == 'e' {
		i++
		if i >= n {
			return n, codeEOF
		}
		if data[i] == '+' || data[i] == '-' {
			i++
			if i >= n {
				return n, codeEOF
			}
		}
		if !isDigit(data[i]) {
			return i, codeChar
		}
		i = digitsEnd(data, i+1)
	}
	return i, codeOK
}

// digitsEnd returns the index of the first byte at or after i that is not
// an ASCII digit, eight bytes at a time: a byte is a digit when its high
// nibble is 3 and stays 3 after adding 6. (A byte of 0xfa or more carries
// into the next one, but it is itself no digit, and only the first
// non-digit counts.)
func digitsEnd(data []byte, i int) int {
	for i+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[i:])
		m := (x&(lsb*0xf0) ^ lsb*0x30) | ((x+lsb*6)&(lsb*0xf0) ^ lsb*0x30)
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

// literals are the literal values by their first byte.
var literals = [256]string{'t': "true", 'f': "false", 'n': "null"}

// scanLiteral checks that lit starts at data[i].
func scanLiteral(data []byte, i int, lit string) (int, errCode) {
	if i+len(lit) <= len(data) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), codeOK
	}
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) {
			return len(data), codeEOF
		}
		if data[i+k] != lit[k] {
			return i + k, codeChar
		}
	}
	panic("unreachable")
}

// stack records, for each open container, whether it is an object. The first
// 64 levels live in a register; deeper levels borrow a pooled array, so that
// the common case neither allocates nor zeroes a 10000-level stack.
type stack struct {
	lo   uint64
	deep *deepStack
}

type deepStack [(MaxDepth + 63) / 64]uint64

var deepPool = sync.Pool{New: func() any { return new(deepStack) }}

// pushObject and pushArray record the kind of level d (1-based).
func (s *stack) pushObject(d int) {
	if d > 64 {
		s.setDeep(d, true)
		return
	}
	s.lo |= 1 << (d - 1)
}

func (s *stack) pushArray(d int) {
	if d > 64 {
		s.setDeep(d, false)
		return
	}
	s.lo &^= 1 << (d - 1)
}

func (s *stack) setDeep(d int, obj bool) {
	if s.deep == nil {
		s.deep = deepPool.Get().(*deepStack)
	}
	w, bit := (d-1)>>6, uint64(1)<<((d-1)&63)
	if obj {
		s.deep[w] |= bit
	} else {
		s.deep[w] &^= bit
	}
}

// isObject reports whether level d (1-based) is an object.
func (s *stack) isObject(d int) bool {
	if d <= 64 {
		return s.lo>>(d-1)&1 != 0
	}
	return s.deep[(d-1)>>6]>>((d-1)&63)&1 != 0
}

func (s *stack) release() {
	if s.deep != nil {
		deepPool.Put(s.deep)
		s.deep = nil
	}
}

// scan validates data as one JSON object and, when fn is not nil, reports
// each top-level member as soon as its value ends; fn2, when not nil, each
// member of a top-level member's object value, before that top-level member.
//
// The members of the top two levels are walked by scanMembers, the only
// place that calls back; anything deeper goes to scanContainer, which
// validates without calling back. Keeping the two apart keeps each loop's
// live values few, so that they stay in registers around the calls to
// scanString instead of being saved and reloaded at every token.
func scan(data []byte, st *stack, fn func(key, value []byte), fn2 func(parent, key, value []byte), in *Inner) (int, errCode) {
	n := len(data)
	i := skipWS(data, 0)
	if i == n {
		return 0, codeEmpty
	}
	if data[i] != '{' {
		return i, codeNotObject
	}
	i, code := scanMembers(data, i, st, 1, nil, fn, fn2, in, nil)
	if code != codeOK {
		return i, code
	}
	if i = skipWS(data, i); i < n {
		return i, codeAfterTop
	}
	return n, codeOK
}

// scanMembers validates the object at data[i] == '{', at depth d (1 or 2),
// and returns the index just past its '}'. At depth 1 it calls fn(key,
// value) for each member and walks an object value at depth 2 itself when
// fn2 or in is set; at depth 2 it records each member in in, or calls
// fn2(parent, key, value). Deeper containers are recorded in in.Deep, if
// set and it wants the top-level member they are in; at depth 2, tape
// is where.
func scanMembers(data []byte, i int, st *stack, d int, parent []byte, fn func(key, value []byte), fn2 func(parent, key, value []byte), in *Inner, tape *Tape) (int, errCode) {
	n := len(data)
	var code errCode
	i = skipWS(data, i+1)
	if i >= n {
		return n, codeEOF
	}
	if data[i] == '}' {
		return i + 1, codeOK
	}
	for {
		if data[i] != '"' {
			return i, codeChar
		}
		keyStart := i + 1
		if i, code = scanString(data, keyStart); code != codeOK {
			return i, code
		}
		keyEnd := i - 1
		if i < n && data[i] == ':' {
			i = skipWS(data, i+1)
		} else if i, code = colon(data, i); code != codeOK {
			return i, code
		}
		if i >= n {
			return n, codeEOF
		}
		valStart := i
		switch c := data[i]; c {
		case '"':
			if tape != nil && tape.NotePlain {
				i, code = tape.plainString(data, i)
			} else {
				i, code = scanString(data, i+1)
			}
		case '{', '[':
			if c == '{' && d == 1 && (fn2 != nil || in != nil) {
				i, code = scanMembers(data, i, st, 2, data[keyStart:keyEnd], nil, fn2, in, deep(in, data[keyStart:keyEnd]))
			} else {
				i, code = scanContainer(data, i, st, d, valueTape(d, in, data[keyStart:keyEnd], tape))
			}
		case 't', 'f', 'n':
			i, code = scanLiteral(data, i, literals[c])
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			i, code = scanNumber(data, i)
		default:
			return i, codeChar
		}
		if code != codeOK {
			return i, code
		}
		switch {
		case d == 1:
			if fn != nil {
				fn(data[keyStart:keyEnd], data[valStart:i])
			}
		case in != nil:
			// No call: a call would save and reload every value live here.
			if len(in.Spans) < cap(in.Spans) {
				in.Spans = append(in.Spans, Span{keyStart, keyEnd, valStart, i})
			} else {
				in.Full = true
			}
		default: // depth 2 is walked only when fn2 or in is set
			fn2(parent, data[keyStart:keyEnd], data[valStart:i])
		}
		i = skipWS(data, i)
		if i >= n {
			return n, codeEOF
		}
		switch data[i] {
		case ',':
			if i = skipWS(data, i+1); i >= n {
				return n, codeEOF
			}
		case '}':
			return i + 1, codeOK
		default:
			return i, codeChar
		}
	}
}

// colon passes the ':' after a key that ends just before i, when
// whitespace comes first (the scanning loops pass a ':' right after the
// key themselves), and the whitespace after it: it returns where the
// value starts.
func colon(data []byte, i int) (int, errCode) {
	i = skipWS(data, i)
	if i >= len(data) {
		return len(data), codeEOF
	}
	if data[i] != ':' {
		return i, codeChar
	}
	return skipWS(data, i+1), codeOK
}

// deep is the tape in records the containers in the top-level member
// key to, if any.
func deep(in *Inner, key []byte) *Tape {
	if in == nil || in.Deep == nil || !in.Deep.wants(key) {
		return nil
	}
	return in.Deep
}

// valueTape is the tape the containers in the value of the member key,
// at depth d, are recorded in: at depth 1 the one that wants key, at
// depth 2 tape, the one of the top-level member it is in.
func valueTape(d int, in *Inner, key []byte, tape *Tape) *Tape {
	if d == 1 {
		return deep(in, key)
	}
	return tape
}

// scanContainer validates the object or array at data[i] ('{' or '['),
// held by a container at depth base, and returns the index just past its
// end. It does not call back; it records what it walks in tape, if set.
//
// It walks the nesting with gotos over a stack of bits, not by recursion:
// MaxDepth levels cost a bit each, not a stack frame each. Entering and
// leaving a container are functions of their own; a key and a value stay
// inline, where a call for each cost about 5% of Check's time.
func scanContainer(data []byte, i int, st *stack, base int, tape *Tape) (int, errCode) {
	n := len(data)
	depth := base
	var c byte
	var code errCode

open: // data[i] is '{' or '['
	depth++
	c = data[i]
	if i, code = enterContainer(data, i, st, depth, tape); code != codeOK {
		return i, code
	}
	if data[i] == c+2 { // '}' is '{'+2, and ']' is '['+2
		goto closeContainer
	}
	if c == '[' {
		goto value
	}

key: // data[i] should be '"'
	if i >= n {
		return n, codeEOF
	}
	if data[i] != '"' {
		return i, codeChar
	}
	if tape != nil {
		tape.key(i + 1)
	}
	if i, code = scanString(data, i+1); code != codeOK {
		return i, code
	}
	if tape != nil {
		tape.keyEnd(i - 1)
	}
	if i < n && data[i] == ':' {
		i = skipWS(data, i+1)
	} else if i, code = colon(data, i); code != codeOK {
		return i, code
	}

value:
	if i >= n {
		return n, codeEOF
	}
	if tape != nil {
		tape.value(i)
	}
	switch c = data[i]; c {
	case '"':
		if tape != nil && tape.NotePlain {
			i, code = tape.plainString(data, i)
		} else {
			i, code = scanString(data, i+1)
		}
	case '{', '[':
		goto open
	case 't', 'f', 'n':
		i, code = scanLiteral(data, i, literals[c])
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		i, code = scanNumber(data, i)
	default:
		return i, codeChar
	}
	if code != codeOK {
		return i, code
	}

afterValue: // i is just past a complete value at the current depth
	if tape != nil {
		tape.valueEnd(i)
	}
	i = skipWS(data, i)
	if i >= n {
		return n, codeEOF
	}
	switch data[i] {
	case ',':
		i = skipWS(data, i+1)
		if st.isObject(depth) {
			goto key
		}
		goto value
	case '}', ']':
		goto closeContainer
	default:
		return i, codeChar
	}

closeContainer: // data[i] is '}' or ']'
	if i, code = leaveContainer(data, i, st, depth, tape); code != codeOK {
		return i, code
	}
	if depth--; depth > base {
		goto afterValue
	}
	return i, codeOK
}

// enterContainer passes the '{' or '[' at data[i] that opens a container
// at depth, and the whitespace after it: it returns where the first
// member, element or the end is.
func enterContainer(data []byte, i int, st *stack, depth int, tape *Tape) (int, errCode) {
	if depth > MaxDepth {
		return i, codeDepth
	}
	if tape != nil {
		tape.openAt(i)
	}
	if data[i] == '{' {
		st.pushObject(depth)
	} else {
		st.pushArray(depth)
	}
	if i = skipWS(data, i+1); i >= len(data) {
		return len(data), codeEOF
	}
	return i, codeOK
}

// leaveContainer passes the '}' or ']' at data[i] that closes the
// container at depth, which must be of its kind: it returns the index
// just past it.
func leaveContainer(data []byte, i int, st *stack, depth int, tape *Tape) (int, errCode) {
	if (data[i] == '}') != st.isObject(depth) {
		return i, codeChar
	}
	i++
	if tape != nil {
		tape.closeAt(i)
	}
	return i, codeOK
}

// Check reports whether data is exactly one JSON object, optionally
// surrounded by JSON whitespace. It returns nil or a *SyntaxError whose text
// tells a user what is wrong.
func Check(data []byte) error { return validate(data, nil, nil, nil) }

// validate is Check with scan's callbacks.
func validate(data []byte, fn func(key, value []byte), fn2 func(parent, key, value []byte), in *Inner) error {
	var st stack
	off, code := scan(data, &st, fn, fn2, in)
	st.release()
	if code == codeOK {
		return nil
	}
	return newError(data, off, code)
}

// Members validates data exactly as Check does and calls fn for every
// top-level member of the object, in order, as soon as the member's value
// ends. key is the raw key between the quotes (escapes untouched, compare it
// with KeyIs); value is the raw value, a sub-slice of data (see OffsetOf).
// Duplicate keys are all reported; callers let the last one win, as
// encoding/json does. If data is not valid, fn may have been called for the
// members before the error, and Members returns the error Check would.
func Members(data []byte, fn func(key, value []byte)) error {
	return validate(data, fn, nil, nil)
}

// Nested is Members that also reports the members one level down: for a
// top-level member whose value is an object, fn2 is called with the raw key
// of that top-level member (parent), the member's raw key and its raw value,
// before fn is called for the top-level member itself. It lets a caller read
// payload.tool while validating the line in a single pass, instead of a pass
// to validate and another to look the field up. As with Members, duplicates
// are all reported in order; a caller that lets the last one win must drop
// what fn2 reported for an earlier top-level member of the same name.
func Nested(data []byte, fn func(key, value []byte), fn2 func(parent, key, value []byte)) error {
	return validate(data, fn, fn2, nil)
}

// A Span is where one member of an object is in the data a scan read: its
// raw key is data[KeyStart:KeyEnd] (between the quotes), its raw value
// data[ValueStart:ValueEnd].
type Span struct{ KeyStart, KeyEnd, ValueStart, ValueEnd int }

// Inner receives from NestedSpans the members of the top-level members'
// object values, as offsets into the line: no call per member, no
// pointers for the collector.
type Inner struct {
	// Spans gets each such member, in order, while it has room: it is
	// appended to up to its capacity and never beyond, so the scan does
	// not allocate (give it a capacity once, and reuse it).
	Spans []Span
	// Full is set when a member did not fit.
	Full bool
	// Deep, when set, is emptied and records the containers below those
	// levels (see Tape).
	Deep *Tape
}

// NestedSpans is Nested with the members one level down recorded in in
// instead of reported by calls: when fn is called for a top-level member
// whose value is an object, that object's members are the spans appended
// to in.Spans since the previous call of fn, all of them unless in.Full.
// fn may shorten in.Spans (to let go of the members of an object it has no
// use for) and clear in.Full.
func NestedSpans(data []byte, fn func(key, value []byte), in *Inner) error {
	if in.Deep != nil {
		in.Deep.reset()
	}
	return validate(data, fn, nil, in)
}

// OffsetOf returns the byte offset of value inside data, where value is a
// sub-slice of data as returned by Members or Lookup. It returns -1 when the
// arithmetic shows value cannot be such a sub-slice.
func OffsetOf(data, value []byte) int {
	off := cap(data) - cap(value)
	if off < 0 || off+len(value) > len(data) {
		return -1
	}
	return off
}
