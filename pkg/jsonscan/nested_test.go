package jsonscan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nestedByTwoPasses is what Nested must report, computed with Members on
// the line and again on every object value.
func nestedByTwoPasses(data []byte) ([]string, error) {
	var out []string
	err := Members(data, func(key, value []byte) {
		if KindOf(value) == Object {
			Members(value, func(k, v []byte) {
				out = append(out, fmt.Sprintf("%s.%s=%s", key, k, v))
			})
		}
		out = append(out, fmt.Sprintf("%s=%s", key, value))
	})
	return out, err
}

func nestedOnePass(data []byte) ([]string, error) {
	var out []string
	err := Nested(data, func(key, value []byte) {
		out = append(out, fmt.Sprintf("%s=%s", key, value))
	}, func(parent, key, value []byte) {
		out = append(out, fmt.Sprintf("%s.%s=%s", parent, key, value))
	})
	return out, err
}

func TestNested(t *testing.T) {
	tests := []string{
		`{"kind":"tool_call","payload":{"tool":"bash","args":{"command":"ls","deep":{"x":[1,{"y":2}]}},"n":[{"a":1}]}}`,
		`{"payload":[{"tool":"x"}],"p2":{"a":{"b":{"c":1}},"d":[1,2]},"e":{}}`,
		`{"payload":{"tool":"a"},"payload":{"tool":"b"}}`,
		`{"a":{"b":1} , "c" : { "d" : "e" , "f":null}}`,
		`{"a":{"b":[{"c":{"d":1}}],"e":true}}`,
		`{"a":{"b":1}`, // truncated: both agree on the error too
	}
	for _, in := range tests {
		want, werr := nestedByTwoPasses([]byte(in))
		got, gerr := nestedOnePass([]byte(in))
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%s: error %v, want %v", in, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", in, diff)
		}
	}
}

func FuzzNested(f *testing.F) {
	for _, s := range []string{`{"a":{"b":{"c":1},"d":[{"e":2}]}}`, `{"p":{"t":"x"},"p":{"t":"y"}}`, `{"a":[{"b":1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := nestedByTwoPasses(data)
		got, gerr := nestedOnePass(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("error %v, want %v", gerr, werr)
		}
		if werr == nil && !cmp.Equal(want, got) {
			t.Fatalf("(-want +got):\n%s", cmp.Diff(want, got))
		}
	})
}

func BenchmarkNested(b *testing.B) {
	line := []byte(`{"seq":12,"ts":1758800000.12,"run_id":"r_0001a3f2","agent_id":"code-reviewer","kind":"tool_call","payload":{"step":3,"tool":"read_file","args":{"path":"` + strings.Repeat("src/x/", 20) + `main.go"}}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		Nested(line, func(key, value []byte) {}, func(parent, key, value []byte) {})
	}
}

// nestedSpans is nestedOnePass through NestedSpans, with room for room
// members: the members of an object that did not all fit are reported as
// the ones that did and "(full)". Each object's spans are let go once
// read, as a caller keeping only the payload's does.
func nestedSpans(data []byte, room int) ([]string, error) {
	var out []string
	in := Inner{Spans: make([]Span, 0, room)}
	err := NestedSpans(data, func(key, value []byte) {
		for _, s := range in.Spans {
			out = append(out, fmt.Sprintf("%s.%s=%s", key, data[s.KeyStart:s.KeyEnd], data[s.ValueStart:s.ValueEnd]))
		}
		if in.Full {
			out = append(out, "(full)")
		}
		in.Spans, in.Full = in.Spans[:0], false
		out = append(out, fmt.Sprintf("%s=%s", key, value))
	}, &in)
	return out, err
}

// withRoom is what nestedSpans must give: Nested's calls, at most room
// members of each object, "(full)" after an object that had more.
func withRoom(data []byte, room int) ([]string, error) {
	var out []string
	n := 0
	err := Nested(data, func(key, value []byte) {
		if n > room {
			out = append(out, "(full)")
		}
		n = 0
		out = append(out, fmt.Sprintf("%s=%s", key, value))
	}, func(parent, key, value []byte) {
		if n++; n <= room {
			out = append(out, fmt.Sprintf("%s.%s=%s", parent, key, value))
		}
	})
	return out, err
}

func FuzzNestedSpans(f *testing.F) {
	for _, s := range []string{`{"a":{"b":{"c":1},"d":[{"e":2}]}}`, `{"p":{"t":"x","u":2,"v":3},"p":{"t":"y"}}`, `{"a":[{"b":1}],"c":{}}`, `{"a":{"b":1}`} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, room uint8) {
		want, werr := withRoom(data, int(room%8))
		got, gerr := nestedSpans(data, int(room%8))
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("error %v, want %v", gerr, werr)
		}
		// On an error the two part where the line stops: Nested has
		// reported the members of an object left open, NestedSpans no
		// call of fn has handed them over.
		if werr == nil && !cmp.Equal(want, got) {
			t.Fatalf("room %d (-want +got):\n%s", room%8, cmp.Diff(want, got))
		}
	})
}
