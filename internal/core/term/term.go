// Package term is what the tools know of the terminal they write to:
// whether an output is one (IsTerminal), its size (Width and Height:
// COLUMNS and LINES first, then the terminal's own, read through
// golang.org/x/term), whether to write colour (the --color flag, NO_COLOR,
// TERM=dumb), the ANSI control sequences they write, by name, and Escape,
// which keeps the data's own control characters off the screen.
package term

import (
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	xterm "golang.org/x/term"
)

// ColorFlag is the --color flag of a tool's options (kong): whether the
// pretty view and the tables are in colour. Tools that write events embed
// it, and hand its value to UseColor.
type ColorFlag struct {
	Color string `name:"color" enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Colour in the pretty view: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never. Default: ${default}."`
}

// TableColorFlag is ColorFlag for a tool whose view for people is a table
// (evsum), which has no pretty view.
type TableColorFlag struct {
	Color string `name:"color" enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Colour in the table: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never. Default: ${default}."`
}

// fileOf is the file w writes to: w itself, or the terminal under a Safe.
func fileOf(w any) (*os.File, bool) {
	if s, ok := w.(interface{ File() *os.File }); ok {
		f := s.File()
		return f, f != nil
	}
	f, ok := w.(*os.File)
	return f, ok
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := fileOf(w)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Color reports whether colour may be written to w: only on a terminal, and
// never when NO_COLOR is set to anything non-empty (no-color.org).
func Color(w any) bool {
	return IsTerminal(w) && os.Getenv("NO_COLOR") == ""
}

// UseColor reports whether to write colour to w for a --color value:
// always and never say so; auto is colour on a terminal, unless NO_COLOR
// is set to anything non-empty (no-color.org) or TERM is "dumb".
func UseColor(when string, w any) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	return Color(w) && os.Getenv("TERM") != "dumb"
}

// DefaultWidth is the width of a terminal whose size cannot be read, and
// of output that is not a terminal.
const DefaultWidth = 80

// Width returns the number of columns to fit output to w in: COLUMNS when
// it is set to a positive number (as shells and tests set it), else the
// terminal's width, else DefaultWidth.
func Width(w any) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := fileOf(w); ok {
		if n := termWidth(f); n > 0 {
			return n
		}
	}
	return DefaultWidth
}

// Height returns the number of rows of the terminal w (LINES first), or 0
// when it is not known.
func Height(w any) int {
	if n, err := strconv.Atoi(os.Getenv("LINES")); err == nil && n > 0 {
		return n
	}
	if f, ok := fileOf(w); ok {
		_, h := termSize(f)
		return h
	}
	return 0
}

func termWidth(f *os.File) int {
	w, _ := termSize(f)
	return w
}

// termSize is the terminal's columns and rows (a Windows console's
// window), or zeros where f is no terminal or the system cannot say.
func termSize(f *os.File) (int, int) {
	w, h, err := xterm.GetSize(int(f.Fd()))
	if err != nil {
		return 0, 0
	}
	return w, h
}
