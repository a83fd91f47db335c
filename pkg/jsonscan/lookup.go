package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// Kind is the type of a raw JSON value, known from its first byte.
type Kind uint8

// The kinds of JSON values.
const (
	Invalid Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "false", "true", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// KindOf returns the kind of a raw value by its first byte; it does not
// validate the rest. An empty value is Invalid.
func KindOf(value []byte) Kind {
	if len(value) == 0 {
		return Invalid
	}
	switch value[0] {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// Lookup descends a valid object along path (object keys only, compared after
// unescaping) and returns the raw value, a sub-slice of data. At each step
// the last member with the key wins, as in encoding/json. found is false when
// a key is missing or a step is not an object. With no path it returns data
// without surrounding whitespace.
//
// Lookup trusts data to be valid (Check it first): it skips values without
// validating them, which is what makes it fast. On invalid data it returns
// something unspecified but never panics.
func Lookup(data []byte, path ...string) (value []byte, found bool) {
	start := skipWS(data, 0)
	end := len(data)
	for end > start && isSpace[data[end-1]] {
		end--
	}
	v := data[start:end]
	if len(v) == 0 {
		return nil, false
	}
	for _, name := range path {
		if v[0] != '{' {
			return nil, false
		}
		var hit []byte
		ok := false
		i := skipWS(v, 1)
		if i < len(v) && v[i] == '}' {
			return nil, false
		}
		for {
			if i >= len(v) || v[i] != '"' {
				return nil, false
			}
			ke := skipString(v, i+1)
			if ke < 0 {
				return nil, false
			}
			k := v[i+1 : ke-1]
			i = skipWS(v, ke)
			if i >= len(v) || v[i] != ':' {
				return nil, false
			}
			vs := skipWS(v, i+1)
			ve := skipValue(v, vs)
			if ve < 0 {
				return nil, false
			}
			if KeyIs(k, name) {
				hit, ok = v[vs:ve], true
			}
			i = skipWS(v, ve)
			if i >= len(v) {
				return nil, false
			}
			if v[i] == ',' {
				i = skipWS(v, i+1)
				continue
			}
			if v[i] == '}' {
				break
			}
			return nil, false
		}
		if !ok {
			return nil, false
		}
		v = hit
	}
	return v, true
}

// skipString returns the index just past the closing quote of a string whose
// content starts at i, without validating it, or -1 if there is none.
func skipString(data []byte, i int) int {
	n := len(data)
	for {
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(data[i:])
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			if m := ((q-lsb)&^q | (b-lsb)&^b) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < n && data[i] != '"' && data[i] != '\\' {
			i++
		}
		if i >= n {
			return -1
		}
	special:
		if data[i] == '"' {
			return i + 1
		}
		i += 2 // the escaped byte cannot end the string
		if i > n {
			return -1
		}
	}
}

// structural marks the bytes that matter when skipping a container.
var structural = func() (t [256]bool) {
	for _, c := range []byte(`"{}[]`) {
		t[c] = true
	}
	return t
}()

// skipValue returns the index just past the value starting at i, without
// validating it, or -1 if the input ends first.
func skipValue(data []byte, i int) int {
	n := len(data)
	if i >= n {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i+1)
	case '{', '[':
		depth := 0
		for i < n {
			switch data[i] {
			case '"':
				if i = skipString(data, i+1); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
			for i < n && !structural[data[i]] {
				i++
			}
		}
		return -1
	}
	// A number or literal: it ends at a delimiter.
	start := i
	for i < n {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if i == start {
				return -1
			}
			return i
		}
		i++
	}
	return i
}
