//go:build windows

package term

import (
	"os"

	"golang.org/x/sys/windows"
)

// The tools colour their output and redraw the live table with the ANSI
// escapes of every terminal. A Windows console reads them once asked to
// (Windows 10 and later; Windows Terminal always does): ask for stdout
// and stderr when they are consoles. Where it cannot, --color never and
// --live never (docs/platforms.md) keep them out.
func init() {
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		h := windows.Handle(f.Fd())
		var mode uint32
		if windows.GetConsoleMode(h, &mode) == nil {
			windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING)
		}
	}
}
