package expr

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Decode turns one valid JSON value (check it first with jsonscan.Check)
// into the Go value gojq reads, exactly as encoding/json with UseNumber
// would: map[string]any (the last of duplicate keys wins), []any, string
// (invalid UTF-8 and lone surrogates become U+FFFD), json.Number, bool, nil.
// It trusts its input to be valid, which makes it several times faster than
// encoding/json; on invalid input the result is unspecified.
func Decode(data []byte) any {
	d := decoder{data: data}
	return d.value()
}

type decoder struct {
	data []byte
	i    int
	buf  []byte
}

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// more steps past what follows a member or an element: true past a ',',
// false past the closing bracket or at the end of the input.
func (d *decoder) more() bool {
	d.ws()
	if d.i >= len(d.data) {
		return false
	}
	c := d.data[d.i]
	d.i++
	return c == ','
}

func (d *decoder) value() any {
	d.ws()
	if d.i >= len(d.data) {
		return nil
	}
	switch c := d.data[d.i]; c {
	case '{':
		d.i++
		m := make(map[string]any)
		d.ws()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return m
		}
		for d.i < len(d.data) {
			d.ws()
			k := d.str()
			d.ws()
			d.i++ // ':'
			m[k] = d.value()
			if !d.more() {
				break
			}
		}
		return m
	case '[':
		d.i++
		a := make([]any, 0, 4)
		d.ws()
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			return a
		}
		for d.i < len(d.data) {
			a = append(a, d.value())
			if !d.more() {
				break
			}
		}
		return a
	case '"':
		return d.str()
	case 't':
		d.i += 4
		return true
	case 'f':
		d.i += 5
		return false
	case 'n':
		d.i += 4
		return nil
	}
	start := d.i
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return json.Number(d.data[start:d.i])
		}
		d.i++
	}
	return json.Number(d.data[start:d.i])
}

// str decodes the string starting at the quote at d.i.
func (d *decoder) str() string {
	start := d.i
	end, escaped := jsonscan.StringEnd(d.data, d.i+1)
	if end < 0 {
		end = len(d.data) // not JSON: the result is unspecified, but in bounds
	}
	d.i = end
	raw := d.data[start:end]
	if !escaped && len(raw) >= 2 && utf8.Valid(raw[1:len(raw)-1]) {
		return string(raw[1 : len(raw)-1])
	}
	var ok bool
	d.buf, ok = jsonscan.Unquote(d.buf[:0], raw)
	if !ok {
		return ""
	}
	return string(d.buf)
}
