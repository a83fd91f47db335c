//go:build linux

package term

import (
	"os"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/ptytest"
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
