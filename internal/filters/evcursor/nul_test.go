package evcursor

import (
	"io/fs"
	"os"
	"testing"
	"time"
)

type fakeInfo fs.FileMode

func (m fakeInfo) Name() string       { return "stdout" }
func (m fakeInfo) Size() int64        { return 0 }
func (m fakeInfo) Mode() fs.FileMode  { return fs.FileMode(m) }
func (m fakeInfo) ModTime() time.Time { return time.Time{} }
func (m fakeInfo) IsDir() bool        { return false }
func (m fakeInfo) Sys() any           { return nil }

// Windows's NUL is a character device that is no console; a console, a
// file and a pipe are not NUL (what File.Stat gives for each there).
func TestWindowsNul(t *testing.T) {
	for _, c := range []struct {
		mode    fs.FileMode
		console bool
		want    bool
	}{
		{os.ModeDevice | os.ModeCharDevice | 0o666, false, true},
		{os.ModeDevice | os.ModeCharDevice | 0o666, true, false},
		{0o644, false, false},
		{os.ModeNamedPipe | 0o600, false, false},
	} {
		if got := windowsNul(fakeInfo(c.mode), c.console); got != c.want {
			t.Errorf("windowsNul(%v, console %v) = %v, want %v", c.mode, c.console, got, c.want)
		}
	}
}
