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
