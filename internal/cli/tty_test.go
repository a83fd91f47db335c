//go:build linux

package cli

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the terminal end of a new pseudo-terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// On a terminal there is colour, unless NO_COLOR is set to anything
// non-empty (no-color.org).
func TestColorOnATerminal(t *testing.T) {
	tty := openPTY(t)
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
