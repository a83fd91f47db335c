package term

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tand newline\n", `tab\tand newline\n`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"del\x7f", `del\x7f`},
		{"c1 \u0085 next line", `c1 \u0085 next line`},
		{"line\u2028sep", `line\u2028sep`},
		{"bidi \u202e override", `bidi \u202e override`},
		{"bad utf8 \xff!", `bad utf8 \xff!`},
		{"ünïcödé 日本", "ünïcödé 日本"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestColorNeedsATerminal(t *testing.T) {
	var b bytes.Buffer
	if IsTerminal(&b) || Color(&b) {
		t.Error("a buffer is not a terminal")
	}
	// Output redirected to a file or a pipe gets no table and no colour.
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, file := range map[string]*os.File{"a file": f, "a pipe": w} {
		if IsTerminal(file) || Color(file) {
			t.Errorf("%s is not a terminal", name)
		}
	}
}
