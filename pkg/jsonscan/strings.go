package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// plain marks bytes that stand for themselves in a JSON string: the ASCII
// bytes that do not stop the scanner's string loop (strStop). Bytes >= 0x80
// need a UTF-8 check first.
var plain = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = !strStop[c]
	}
	return t
}()

// plainEnd returns the index of the first byte of s from i on that is
// not plain, or len(s): eight bytes at a time, as scanString looks for
// what stops it, and a byte of a multi-byte rune stops it too.
func plainEnd(s []byte, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		if m := stopMask(x) | x&msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// unescape decodes the escape sequence starting at s[i] == '\\' as
// encoding/json does, including its handling of surrogates: a valid pair is
// one rune, any other surrogate becomes U+FFFD. It returns the rune and the
// index just past the sequence, or ok=false for an invalid escape.
func unescape(s []byte, i int) (r rune, next int, ok bool) {
	if i+1 >= len(s) {
		return 0, 0, false
	}
	switch s[i+1] {
	case '"', '\\', '/':
		return rune(s[i+1]), i + 2, true
	case 'b':
		return '\b', i + 2, true
	case 'f':
		return '\f', i + 2, true
	case 'n':
		return '\n', i + 2, true
	case 'r':
		return '\r', i + 2, true
	case 't':
		return '\t', i + 2, true
	case 'u':
		r = hex4(s, i+2)
		if r < 0 {
			return 0, 0, false
		}
		i += 6
		if utf16.IsSurrogate(r) {
			if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2 := hex4(s, i+2); r2 >= 0 {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return dec, i + 6, true
					}
				}
			}
			// The next escape, if any, is decoded on its own.
			r = utf8.RuneError
		}
		return r, i, true
	}
	return 0, 0, false
}

// hex4 decodes four hex digits at s[i:], or returns -1.
func hex4(s []byte, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Unquote decodes a raw JSON string value (with its quotes) and appends the
// result to dst, exactly as encoding/json would decode it: invalid UTF-8 and
// lone surrogates become U+FFFD. ok is false, and dst is returned unchanged,
// if value is not exactly one valid JSON string.
func Unquote(dst []byte, value []byte) (out []byte, ok bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return dst, false
	}
	return AppendUnescaped(dst, value[1:len(value)-1])
}

// AppendUnescaped decodes the content of a JSON string (without its
// quotes) as Unquote does and appends the result to dst. Content split
// outside its escapes and UTF-8 sequences (and not inside a surrogate
// pair's two escapes) decodes to the pieces' texts joined.
func AppendUnescaped(dst, s []byte) (out []byte, ok bool) {
	out = dst
	for i := 0; i < len(s); {
		start := i
		i = plainEnd(s, i)
		out = append(out, s[start:i]...)
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '\\':
			r, next, ok := unescape(s, i)
			if !ok {
				return dst, false
			}
			out = utf8.AppendRune(out, r)
			i = next
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		default: // '"' or a control character
			return dst, false
		}
	}
	return out, true
}

// StringEquals reports whether the raw JSON string value (with its quotes)
// is valid and decodes to s. It does not allocate.
func StringEquals(value []byte, s string) bool {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return false
	}
	return contentEquals(value[1:len(value)-1], s)
}

// KeyIs reports whether a raw key, as Members gives it (the bytes between
// the quotes), equals name after JSON unescaping: `k\u0069nd` is "kind".
func KeyIs(rawKey []byte, name string) bool {
	// Most keys a caller asks about differ from name in their first byte,
	// which decodes to itself when it is plain ASCII.
	if len(rawKey) > 0 && plain[rawKey[0]] && (len(name) == 0 || rawKey[0] != name[0]) {
		return false
	}
	// Fast path. A key of plain ASCII decodes to itself; without a backslash
	// only invalid UTF-8 (which grows into U+FFFD) can change its length.
	if len(rawKey) >= len(name) {
		if len(rawKey) == len(name) && string(rawKey) == name {
			for _, c := range rawKey {
				if !plain[c] {
					return contentEquals(rawKey, name)
				}
			}
			return true
		}
		for _, c := range rawKey {
			if c == '\\' || c >= utf8.RuneSelf {
				return contentEquals(rawKey, name)
			}
		}
		return false
	}
	return contentEquals(rawKey, name)
}

// contentEquals compares string content (between the quotes) with s after
// decoding, without allocating. Invalid content is never equal.
func contentEquals(b []byte, s string) bool {
	i, j := 0, 0
	for i < len(b) {
		c := b[i]
		if plain[c] {
			if j >= len(s) || s[j] != c {
				return false
			}
			i++
			j++
			continue
		}
		var r rune
		switch {
		case c == '\\':
			var ok bool
			r, i, ok = unescape(b, i)
			if !ok {
				return false
			}
		case c >= utf8.RuneSelf:
			var size int
			r, size = utf8.DecodeRune(b[i:])
			i += size
		default:
			return false
		}
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		if len(s)-j < n || string(buf[:n]) != s[j:j+n] {
			return false
		}
		j += n
	}
	return j == len(s)
}
