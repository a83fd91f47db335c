//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// termSize is the terminal's columns and rows, or zeros.
func termSize(f *os.File) (int, int) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Col), int(ws.Row)
}
