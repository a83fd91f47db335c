package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzLine checks that redaction keeps a JSON line JSON: valid, with the
// same keys, the same structure and the same numbers and literals, every
// string either as it was or holding a [REDACTED:RULE]; that a line
// without a secret is left alone; and that redacting twice changes
// nothing more.
func FuzzLine(f *testing.F) {
	for _, text := range corpora() {
		for _, l := range strings.Split(text, "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`{"a":["x",{"password":"s3cret-pw-1"}],"b":"\u0041KIAFAKE4EXAMPLE7KEY","c":-1.5e3,"d":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r := New()
		out, changed := r.Line(nil, line)
		if !changed {
			if len(out) != 0 {
				t.Fatalf("unchanged, but %q appended", out)
			}
			return
		}
		if !json.Valid(line) {
			return // not JSON in, nothing promised but no panic
		}
		if !json.Valid(out) {
			t.Fatalf("not valid JSON:\n%s\n%s", line, out)
		}
		var a, b any
		decode(t, line, &a)
		decode(t, out, &b)
		if !same(a, b) {
			t.Fatalf("the structure changed:\n%s\n%s", line, out)
		}
		if again, changed := New().Line(nil, out); changed {
			t.Fatalf("a second pass changed it:\n%s\n%s", out, again)
		}
	})
}

func decode(t *testing.T, data []byte, v any) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatal(err)
	}
}

// same reports whether b is a with some strings redacted.
func same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !same(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && (x == y || strings.Contains(y, "[REDACTED:"))
	default:
		return a == b
	}
}
