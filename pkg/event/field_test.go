package event

import (
	"strings"
	"testing"
)

func TestMeaningString(t *testing.T) {
	for m, want := range map[Meaning]string{
		Other: "other", RunStart: "run_start", ToolEnd: "tool_end", Ack: "ack",
		numMeanings: "Meaning(19)", 255: "Meaning(255)",
	} {
		if got := m.String(); got != want {
			t.Errorf("Meaning(%d).String() = %q, want %q", uint8(m), got, want)
		}
	}
}

// A payload member is found as encoding/json finds it: by its decoded
// name, the last of duplicates; of a field's alternatives ("name|tool")
// the first the row names wins, wherever it stands in the payload.
func TestFieldMembers(t *testing.T) {
	for _, tc := range []struct{ line, name string }{
		{`{"kind":"tool_execution_start","payload":{"id":"c","n\u0061me":"bash"}}`, "bash"},
		{`{"kind":"tool_execution_start","payload":{"id":"c","\u006eame":"bash"}}`, "bash"},
		{`{"kind":"tool_execution_start","payload":{"id":"c","name":"grep","name":"bash"}}`, "bash"},
		{`{"kind":"tool_execution_start","payload":{"id":"c","tool":"grep","name":"bash"}}`, "bash"},
		{`{"kind":"tool_execution_start","payload":{"id":"c","name":"bash","tool":"grep"}}`, "bash"},
		{`{"kind":"tool_execution_start","payload":{"id":"c","tool":"grep","t\u006fol":"bash"}}`, "bash"},
		{`{"kind":"tool_execution_start","payload":{"id":"c","nam\u0065s":"grep"}}`, ""},
	} {
		var e Event
		if err := e.Read([]byte(tc.line)); err != nil {
			t.Fatal(err)
		}
		var buf []byte
		if got, _ := e.FieldString(Name, &buf); string(got) != tc.name {
			t.Errorf("%s: Name %q, want %q", tc.line, got, tc.name)
		}
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{`""`, "", true},
		{`"bash"`, "bash", true},
		{`"\u0041b"`, "Ab", true},
		{`"\\"`, `\`, true},
		{`"a\nb"`, "a\nb", true},
		{"\"caf\xc3\xa9\"", "café", true},
		{"\"\xff\"", "\ufffd", true},
		{"\"a\x80\"", "a\ufffd", true}, // the first byte past ASCII
		{"\"\x7f\"", "\x7f", true},     // the last byte of it
		{`"`, "", false},
		{``, "", false},
		{`12`, "", false},
		{`null`, "", false},
	} {
		var buf []byte
		got, ok := String([]byte(tc.raw), &buf)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("String(%s) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

// A model result with a long member name (providers add new counters) is
// read, not a crash: the counters evtools knows still count.
func TestUsageLongNames(t *testing.T) {
	for _, key := range []string{"cache_creation_input_tokens_5min", "cache_creation_input_tokens_1hour", "x"} {
		var e Event
		line := `{"kind":"model_result","payload":{"input_tokens":7,"` + key + `":3,"output_tokens":2}}`
		if err := e.Read([]byte(line)); err != nil {
			t.Fatal(err)
		}
		want := Usage{Tokens: [NumTokens]int64{7, 2, 0, 0, 9}}
		if got := e.Usage(); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, want)
		}
	}
}

// plainBytes looks at eight bytes at a time: a backslash or a byte past
// ASCII is found at every place of a word and of the bytes after the
// last whole word, among bytes a bit away from both.
func TestPlainBytes(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for at := -1; at < n; at++ {
			for _, bad := range []byte{'\\', 0x80, 0xff} {
				b := []byte(strings.Repeat("a[]|L\x7f\x1c]", 3)[:n])
				if at >= 0 {
					b[at] = bad
				}
				wantASCII := at < 0
				wantEscape := at >= 0 && bad == '\\'
				if got := plainASCII(b); got != wantASCII {
					t.Errorf("plainASCII(%q) = %v", b, got)
				}
				if got := hasEscape(b); got != wantEscape {
					t.Errorf("hasEscape(%q) = %v", b, got)
				}
			}
		}
	}
}
