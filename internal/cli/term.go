package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	xterm "golang.org/x/term"
)

// Terminal is the terminal-related part of a tool's options: how events
// are shown and whether in colour. Tools that write events embed it.
type Terminal struct {
	Color string `name:"color" enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Colour in the pretty view and tables: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never. Default: ${default}."`
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
	if f, ok := w.(*os.File); ok {
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
	if f, ok := w.(*os.File); ok {
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

// ParseFormat checks a --format value against the choices and resolves
// "" and "auto": pretty on a terminal, jsonl (or def) elsewhere.
func ParseFormat(value string, w any, def string, choices ...string) (string, error) {
	if value == "" || value == "auto" {
		if IsTerminal(w) {
			return "pretty", nil
		}
		return def, nil
	}
	for _, c := range choices {
		if value == c {
			return value, nil
		}
	}
	return "", Usage(fmt.Errorf("--format %q: one of auto, %s", value, strings.Join(choices, ", ")))
}
