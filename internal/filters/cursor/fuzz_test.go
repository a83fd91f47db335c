package cursor

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// FuzzRenumber: for any line that is a JSON object, the re-numbered line
// is still a valid object whose seq is the new number, and it equals the
// input everywhere except at the seq values (or the inserted first member).
func FuzzRenumber(f *testing.F) {
	for _, s := range []string{
		`{"seq":12,"ts":1758800000.12,"run_id":"r_1","kind":"tool_call","payload":{"seq":3}}`,
		`{}`, ` { } `, `{"a":1}`, `{"seq":1,"seq":2}`, `{"s\u0065q":"x"}`, `{"seq":{"a":[1,{"seq":2}]}}`,
		`{"seq" : 9007199254740993 , "x":1.5e3}`, `[1]`, `{"seq":1`,
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, line []byte, n uint64) {
		var e Event
		if err := e.Scan(line); err != nil {
			return
		}
		seq := []byte(json.Number(uintString(n)))
		out := appendRenumbered(nil, &e, seq)
		if err := jsonscan.Check(out); err != nil {
			t.Fatalf("output is not an object: %v\nin  %q\nout %q", err, line, out)
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON\nin  %q\nout %q", line, out)
		}
		var o Event
		if err := o.Scan(out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(o.Seq, seq) {
			t.Fatalf("seq of the output is %s, want %s\nout %q", o.Seq, seq, out)
		}
		if len(e.SeqAt) == 0 {
			// The only difference is the inserted first member.
			if len(o.SeqAt) != 1 {
				t.Fatalf("%d seq members after insertion", len(o.SeqAt))
			}
			start := o.SeqAt[0][0] - len(`"seq":`)
			end := o.SeqAt[0][1]
			if end < len(out) && out[end] == ',' {
				end++
			}
			if rest := append(append([]byte(nil), out[:start]...), out[end:]...); !bytes.Equal(rest, line) {
				t.Fatalf("bytes other than the new member changed\nin  %q\nout %q", line, out)
			}
			return
		}
		if len(o.SeqAt) != len(e.SeqAt) {
			t.Fatalf("%d seq members became %d", len(e.SeqAt), len(o.SeqAt))
		}
		if !bytes.Equal(withoutSpans(line, e.SeqAt), withoutSpans(out, o.SeqAt)) {
			t.Fatalf("bytes other than seq changed\nin  %q\nout %q", line, out)
		}
	})
}

func withoutSpans(b []byte, spans [][2]int) []byte {
	var out []byte
	last := 0
	for _, s := range spans {
		out = append(out, b[last:s[0]]...)
		out = append(out, 0) // marks where a value was
		last = s[1]
	}
	return append(out, b[last:]...)
}

func uintString(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// FuzzParseState: the state parser never panics, and what it accepts
// survives Marshal and ParseState unchanged.
func FuzzParseState(f *testing.F) {
	c := `{"seq":5,"run_id":"r_1","ts":1758800000.12,"sha256":"` + string(bytes.Repeat([]byte("ab"), 32)) + `","file":"x","line":3}`
	for _, s := range []string{
		"", "{}", `{"version":1,"cursor":null}`,
		`{"version":1,"cursor":` + c + `}`,
		`{"version":1,"cursor":` + c + `,"pending":` + c + `}`,
		`{"version":1,"cursor":{"seq":1e3}}`,
		`{"version":1,"cursor":{"seq":7,"run_id":{"a": [1, "<&>"]},"ts":1.5e9,"sha256":"` + string(bytes.Repeat([]byte("0f"), 32)) + `"}}`, `{"version":1,"cursor":{"seq":5,"run_id":null,"sha256":""}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseState(data)
		if err != nil {
			return
		}
		again, err := ParseState(s.Marshal())
		if err != nil {
			t.Fatalf("re-reading a marshalled state: %v\n%s", err, s.Marshal())
		}
		if !again.Equal(s) {
			t.Fatalf("round trip changed the state\n%s\n%s", s.Marshal(), again.Marshal())
		}
		if !bytes.Equal(again.Marshal(), s.Marshal()) {
			t.Fatalf("the file changes on a second save\n%s\n%s", s.Marshal(), again.Marshal())
		}
	})
}
