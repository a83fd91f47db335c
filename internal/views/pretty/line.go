package pretty

import (
	"strings"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/mattn/go-runewidth"
)

// Styles, as SGR parameters.
const (
	sNone    = ""
	sDim     = "2"
	sBold    = "1"
	sUser    = "1;34"
	sModel   = "35"
	sTool    = "36"
	sOK      = "32"
	sBad     = "1;31"
	sKill    = "1;7;31"
	sWarn    = "1;33"
	sRun     = "1"
	sAgent   = "1;36"
	sDecide  = "34"
	sOther   = "2"
	ellipsis = "…"
)

// The line being written: r.col is the cursor's column, r.cut says the
// line reached the width and was cut, so the rest of it is not written.

// put writes s, escaped, in style st, cut with "…" at the width.
func (r *Renderer) put(st, s string) {
	if r.cut || s == "" {
		return
	}
	r.fresh = false
	if strings.IndexByte(s, '\t') >= 0 {
		s = untab(s, r.col)
	}
	var w int
	if plainASCII(s) {
		w = len(s) // nothing to escape, a column a byte
	} else {
		s = term.Escape(s)
		w = runewidth.StringWidth(s)
	}
	room := r.o.Width - r.col
	if room <= 0 {
		r.cut = true
		return
	}
	if w > room {
		s = cutTo(s, room-1) + ellipsis
		w = runewidth.StringWidth(s)
		r.cut = true
	}
	r.styled(st, s)
	r.col += w
}

// space writes n spaces, unless the line is cut or would overflow.
func (r *Renderer) space(n int) {
	if r.cut {
		return
	}
	if r.col+n >= r.o.Width {
		n = r.o.Width - 1 - r.col // the last column is for a "…"
	}
	for ; n > 0; n-- {
		r.out = append(r.out, ' ')
		r.col++
	}
}

// field writes a separator then s: how the parts of a line are joined.
// Right after the tag there is no separator.
func (r *Renderer) field(st, s string) {
	if s == "" {
		return
	}
	if !r.fresh {
		r.space(2)
	}
	r.put(st, s)
}

// styled writes s (already escaped and fitted) in style st.
func (r *Renderer) styled(st, s string) {
	if st == sNone || !r.o.Color {
		r.out = append(r.out, s...)
		return
	}
	r.out = append(r.out, term.CSI...)
	r.out = append(r.out, st...)
	r.out = append(r.out, 'm')
	r.out = append(r.out, s...)
	r.out = append(r.out, term.Reset...)
}

// newline ends the line being written.
func (r *Renderer) newline() {
	r.out = append(r.out, '\n')
	r.col, r.cut, r.fresh, r.gap, r.lineStart = 0, false, false, 0, false
}

// cutTo returns the longest prefix of s at most w columns wide.
func cutTo(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := 0
	for i, c := range s {
		cw := runewidth.RuneWidth(c)
		if n+cw > w {
			return s[:i]
		}
		n += cw
	}
	return s
}

// firstLine is the first line of s that is not blank, trimmed, and
// whether more lines follow it.
func firstLine(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t\r\n")
	line, rest, more := strings.Cut(s, "\n")
	return strings.TrimRight(line, " \t\r"), more && strings.TrimSpace(rest) != ""
}

// firstOutput is the first line of a tool's output that says something:
// a shell tool's echo of its command ("$ uname -a") is passed over when
// output follows it.
func firstOutput(s string) (string, bool) {
	// Codex heads a command's output with what it knows of the run
	// ("Chunk ID: 4e1a", "Wall time: 0.1 seconds", "Process exited with
	// code 1", then "Output:"): the output is what follows.
	if i := strings.Index(s, "\nOutput:\n"); i >= 0 && i < 512 && runHeader(s[:i]) {
		if out, more := firstOutput(s[i+len("\nOutput:\n"):]); out != "" {
			return out, more
		}
	}
	line, more := firstLine(s)
	if strings.HasPrefix(line, "$ ") && more {
		_, rest, _ := strings.Cut(strings.TrimLeft(s, " \t\r\n"), "\n")
		return firstLine(rest)
	}
	return line, more
}

// plainASCII reports whether s is printable ASCII only.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// tabStop is the width of a tab, as terminals and pagers set it.
const tabStop = 8

// untab is s with each tab turned into the spaces up to the next tab
// stop, counting columns from col: a tab shown as \t, or passed to the
// terminal to move the cursor, is not what the writer of the text saw.
func untab(s string, col int) string {
	var b strings.Builder
	for _, c := range s {
		if c == '\t' {
			n := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col += max(0, runewidth.RuneWidth(c))
	}
	return b.String()
}

// runHeader reports whether s is lines of "Name: value", or Codex's
// "Process exited with code N": a header, not output.
func runHeader(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		name, _, ok := strings.Cut(l, ": ")
		if strings.HasPrefix(l, "Process exited with code ") {
			continue
		}
		if !ok || name == "" || len(name) > 24 || name[0] < 'A' || name[0] > 'Z' || strings.ContainsAny(name, "/.:") {
			return false
		}
	}
	return true
}
