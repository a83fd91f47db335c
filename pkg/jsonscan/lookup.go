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
	if len(path) == 0 {
		return v, len(v) > 0
	}
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	value, found, _ = lookupIn(v, 0, path)
	return value, found
}

// lookupIn scans the object at data[i] for path[0] and, when it matches,
// searches the rest of the path inside the value while passing over it, so
// that every byte is visited once. It returns the index just past the object,
// or -1 if the input ends first. It recurses once per path element, never per
// nesting level of the data.
func lookupIn(data []byte, i int, path []string) (value []byte, found bool, end int) {
	i = skipWS(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil, false, i + 1
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, false, -1
		}
		ke, _ := StringEnd(data, i+1)
		if ke < 0 {
			return nil, false, -1
		}
		k := data[i+1 : ke-1]
		i = skipWS(data, ke)
		if i >= len(data) || data[i] != ':' {
			return nil, false, -1
		}
		vs := skipWS(data, i+1)
		var ve int
		if KeyIs(k, path[0]) {
			// The last member with the key decides, so a hit resets the result.
			value, found = nil, false
			switch {
			case len(path) == 1:
				if ve = skipValue(data, vs); ve >= 0 {
					value, found = data[vs:ve], true
				}
			case vs < len(data) && data[vs] == '{':
				value, found, ve = lookupIn(data, vs, path[1:])
			default:
				ve = skipValue(data, vs)
			}
		} else {
			ve = skipValue(data, vs)
		}
		if ve < 0 {
			return nil, false, -1
		}
		i = skipWS(data, ve)
		if i >= len(data) {
			return nil, false, -1
		}
		switch data[i] {
		case ',':
			i = skipWS(data, i+1)
		case '}':
			return value, found, i + 1
		default:
			return nil, false, -1
		}
	}
}

// StringEnd returns the index just past the closing quote of the JSON
// string whose content starts at data[i] (just after its opening quote),
// or -1 if the string does not end; escaped reports whether the content
// holds a backslash. Like Lookup it trusts data to be JSON and does not
// validate the content, which lets it read eight bytes at a time.
func StringEnd(data []byte, i int) (end int, escaped bool) {
	n := len(data)
	for {
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(data[i:])
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			// The lowest byte flagged is exact: a '"' or a '\\'.
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
			return -1, escaped
		}
	special:
		if data[i] == '"' {
			return i + 1, escaped
		}
		escaped = true
		i += 2 // the escaped byte cannot end the string
		if i > n {
			return -1, escaped
		}
	}
}

// skipValue returns the index just past the value starting at i, without
// validating it, or -1 if the input ends first.
func skipValue(data []byte, i int) int {
	n := len(data)
	if i >= n {
		return -1
	}
	switch data[i] {
	case '"':
		end, _ := StringEnd(data, i+1)
		return end
	case '{', '[':
		depth := 0
		for i < n {
			switch data[i] {
			case '"':
				if i, _ = StringEnd(data, i+1); i < 0 {
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
			i = nextStructural(data, i+1)
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

// nextStructural returns the index of the first '"', '{', '}', '[' or ']'
// at or after i, or len(data). '[' and '{' (and ']' and '}') differ only in
// bit 0x20, so two comparisons find all four brackets.
func nextStructural(data []byte, i int) int {
	n := len(data)
	for i+8 <= n {
		x := binary.LittleEndian.Uint64(data[i:])
		y := x | lsb*0x20
		q := x ^ (lsb * '"')
		o := y ^ (lsb * '{')
		c := y ^ (lsb * '}')
		if m := ((q-lsb)&^q | (o-lsb)&^o | (c-lsb)&^c) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < n {
		switch data[i] {
		case '"', '{', '}', '[', ']':
			return i
		}
		i++
	}
	return n
}
