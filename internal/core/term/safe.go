package term

import (
	"io"
	"os"
	"strconv"
	"unicode/utf8"
)

// Safe writes to a terminal what is written to it with the control
// characters made harmless, as Escape does, but for a stream: every C0
// control but '\n' and '\t', DEL, C1, the bidi controls and the line and
// paragraph separators become \u escapes (JSON's own, so JSON stays JSON),
// and a byte that is not UTF-8 becomes \x and its hex. It is what stands
// between the data and a terminal for the output that is not a view of
// the tools' own making (JSON, Markdown, CSV, HTML written to a terminal,
// and every message on stderr): an escape in the data cannot set the
// clipboard (OSC 52), the title, the colours, or reverse the text.
//
// A character split across two writes is held until the second.
type Safe struct {
	f     *os.File
	w     io.Writer
	carry []byte // the start of a character the last write ended in
	buf   []byte
}

// NewSafe returns a Safe that writes to the file f (a terminal, or the
// stderr of SafeAlways).
func NewSafe(f *os.File) *Safe { return &Safe{f: f, w: f} }

// SafeAlways is w made safe whatever it is: messages are for people, and
// one written to a file or a pipe (a cron log) reaches a terminal later,
// when it is read with cat. A file, terminal or not, stays what File
// returns, so that IsTerminal and Width still see it.
func SafeAlways(w io.Writer) io.Writer {
	switch w := w.(type) {
	case *Safe:
		return w
	case *os.File:
		return NewSafe(w)
	}
	return SafeOver(w)
}

// SafeFor is w made safe when it is a terminal, and w itself otherwise.
func SafeFor(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && IsTerminal(f) {
		return NewSafe(f)
	}
	return w
}

// SafeOver is a Safe that writes to w, a writer that holds what goes to a
// terminal before it gets there.
func SafeOver(w io.Writer) *Safe { return &Safe{w: w} }

// File is the terminal under s: IsTerminal, Width and Height see it.
func (s *Safe) File() *os.File { return s.f }

// Raw is the writer under w when w is a Safe, for the control sequences
// a tool writes of its own (a progress line, a redrawn table); else w.
func Raw(w io.Writer) io.Writer {
	if s, ok := w.(*Safe); ok {
		return s.w
	}
	return w
}

func (s *Safe) Write(p []byte) (int, error) {
	n := len(p)
	if len(s.carry) > 0 {
		p = append(s.carry, p...)
		s.carry = nil
	}
	b := s.buf[:0]
	for i := 0; i < len(p); {
		c := p[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(p[i:]) {
				s.carry = append([]byte(nil), p[i:]...)
				break
			}
			b = append(b, `\x`...)
			b = strconv.AppendUint(b, uint64(c)>>4, 16)
			b = strconv.AppendUint(b, uint64(c)&15, 16)
			i++
			continue
		}
		if needsEscape(r) {
			b = append(b, `\u`...)
			for shift := 12; shift >= 0; shift -= 4 {
				b = strconv.AppendUint(b, uint64(r)>>shift&15, 16)
			}
		} else {
			b = append(b, p[i:i+size]...)
		}
		i += size
	}
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}
