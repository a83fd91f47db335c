package term

import "strconv"

// The ANSI (ECMA-48) control sequences the tools write. Every terminal
// the tools run on reads them (a Windows console once asked to, as
// term_windows.go does), and --color never keeps the colours out.
const (
	// CSI (control sequence introducer) starts every sequence here: CSI,
	// parameters, then the letter that says what they are for.
	CSI = "\x1b["
	// Reset (SGR 0) ends a colour or style: back to plain text.
	Reset = CSI + "0m"
	// Bold (SGR 1) is the style of headers.
	Bold = CSI + "1m"
	// Red (SGR 31) is the colour of numbers that mean trouble.
	Red = CSI + "31m"
	// EraseLine (EL) erases from the cursor to the end of its line: a
	// line redrawn in place is cleared of what a longer one left.
	EraseLine = CSI + "K"
	// EraseBelow (ED) erases from the cursor to the end of the screen:
	// what a taller frame left below a redrawn one.
	EraseBelow = CSI + "J"
)

// CursorUp (CUU) moves the cursor n lines up, to redraw what it wrote.
func CursorUp(n int) string { return CSI + strconv.Itoa(n) + "A" }
