package term

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"\x1b]52;c;cHduZWQ=\x07", `\u001b]52;c;cHduZWQ=\u0007`},
		{"over\rwrite\b", `over\u000dwrite\u0008`},
		{"del\x7f c1\u009b2J", `del\u007f c1\u009b2J`},
		{"\u202eevil\u2066\u2069\u200e\u200f\u061c", `\u202eevil\u2066\u2069\u200e\u200f\u061c`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"lone \x9b byte", `lone \x9b byte`},
		{"é ü 中 🙂 \u00a0", "é ü 中 🙂 \u00a0"},
	} {
		var b bytes.Buffer
		if _, err := SafeOver(&b).Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}

// A character split between two writes (a buffered writer flushes where
// its buffer ends) comes out whole, not as two bytes that are not UTF-8;
// and JSON stays JSON that reads back the same.
func TestSafeSplitAndJSON(t *testing.T) {
	line := []byte(`{"a":"x` + "\u202e\u00e9\x7f\u009b" + `y"}` + "\n")
	for cut := range len(line) {
		var b bytes.Buffer
		s := SafeOver(&b)
		s.Write(line[:cut])
		s.Write(line[cut:])
		var got, want map[string]string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("cut at %d: %q is no JSON: %v", cut, b.String(), err)
		}
		json.Unmarshal(line, &want)
		if got["a"] != want["a"] {
			t.Errorf("cut at %d: %q reads back as %q, want %q", cut, b.String(), got["a"], want["a"])
		}
	}
}
