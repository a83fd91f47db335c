//go:build linux

package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/ptytest"
)

// On a terminal there is colour, unless NO_COLOR is set to anything
// non-empty (no-color.org).
func TestColorOnATerminal(t *testing.T) {
	_, tty := ptytest.Open(t)
	for _, tt := range []struct {
		noColor string
		want    bool
	}{{"", true}, {"1", false}, {"0", false}} {
		t.Setenv("NO_COLOR", tt.noColor)
		if !IsTerminal(tty) {
			t.Fatal("a pseudo-terminal is a terminal")
		}
		if got := Color(tty); got != tt.want {
			t.Errorf("NO_COLOR=%q: Color = %v, want %v", tt.noColor, got, tt.want)
		}
	}
}

// --color: always and never win; auto is colour on a terminal unless
// NO_COLOR is set or TERM is dumb.
func TestUseColor(t *testing.T) {
	_, tty := ptytest.Open(t)
	for _, tt := range []struct {
		when, noColor, term string
		want                bool
	}{
		{"auto", "", "xterm", true},
		{"auto", "1", "xterm", false},
		{"auto", "", "dumb", false},
		{"always", "1", "dumb", true},
		{"never", "", "xterm", false},
	} {
		t.Setenv("NO_COLOR", tt.noColor)
		t.Setenv("TERM", tt.term)
		if got := UseColor(tt.when, tty); got != tt.want {
			t.Errorf("--color=%s NO_COLOR=%q TERM=%s: %v, want %v", tt.when, tt.noColor, tt.term, got, tt.want)
		}
	}
	t.Setenv("NO_COLOR", "")
	if UseColor("auto", os.Stderr) && !IsTerminal(os.Stderr) {
		t.Error("auto: colour on a non-terminal")
	}
}

// The width is COLUMNS when set, else the terminal's own, else 80.
func TestWidth(t *testing.T) {
	_, tty := ptytest.Open(t)
	ptytest.Resize(t, tty, 132, 40)
	t.Setenv("COLUMNS", "")
	t.Setenv("LINES", "")
	if got := Width(tty); got != 132 {
		t.Errorf("terminal width %d, want 132", got)
	}
	if got := Height(tty); got != 40 {
		t.Errorf("terminal height %d, want 40", got)
	}
	if got := Width(&strings.Builder{}); got != DefaultWidth {
		t.Errorf("not a terminal: width %d, want %d", got, DefaultWidth)
	}
	t.Setenv("COLUMNS", "61")
	if got := Width(tty); got != 61 {
		t.Errorf("COLUMNS=61: width %d", got)
	}
	t.Setenv("COLUMNS", "wide")
	if got := Width(tty); got != 132 {
		t.Errorf("COLUMNS=wide: width %d, want the terminal's", got)
	}
}

// --format auto is pretty on a terminal and the tool's default elsewhere;
// a value not among the choices is a usage error naming them.
func TestParseFormat(t *testing.T) {
	_, tty := ptytest.Open(t)
	if f, _ := ParseFormat("", tty, "jsonl", "jsonl", "pretty"); f != "pretty" {
		t.Errorf("terminal: %q", f)
	}
	if f, _ := ParseFormat("auto", &strings.Builder{}, "envelope", "envelope", "pretty"); f != "envelope" {
		t.Errorf("pipe: %q", f)
	}
	if f, _ := ParseFormat("jsonl", tty, "jsonl", "jsonl", "pretty"); f != "jsonl" {
		t.Errorf("forced jsonl: %q", f)
	}
	_, err := ParseFormat("json", tty, "jsonl", "jsonl", "pretty")
	if err == nil || !strings.Contains(err.Error(), "one of auto, jsonl, pretty") {
		t.Errorf("bad value: %v", err)
	}
}
