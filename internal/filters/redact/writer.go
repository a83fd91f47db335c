package redact

import (
	"bytes"
	"io"

	"github.com/evtools/evtools/pkg/jsonl"
)

// Writer redacts the JSON Lines written to it and writes them on to an
// underlying writer. A tool puts it under its buffered output (and over
// the pretty view, which then renders the redacted lines): each Write
// hands on its complete lines at once, in one Write, so every flush of
// the tool's output before a blocking read still reaches the reader.
// A line cut by a Write waits for its end.
type Writer struct {
	w    io.Writer
	r    *Redactor
	join jsonl.LineJoiner // the start of a line not yet ended by '\n'
	out  []byte           // what one Write writes on, when a line changed
	line []byte           // one redacted line
	err  error
}

// NewWriter returns a Writer that redacts with r onto w.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{w: w, r: r} }

// Write redacts the complete lines in p and writes them on.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	out, changed := w.out[:0], false
	var own []byte // p's own whole lines
	w.join.Complete(p, func(lines []byte, joined bool) bool {
		// a line joined from pieces is never written as it came
		out, changed = w.lines(out, lines, changed || joined)
		own = lines
		return true
	})
	if !changed {
		out = own // nothing changed: p's lines go on as they are
	} else {
		w.out = out
	}
	if len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			w.err = err
			return 0, err
		}
	}
	if cap(w.out) > 1<<20 {
		w.out = nil
	}
	return len(p), nil
}

// lines appends the lines of p to dst, redacted, and reports whether any
// changed. When none did and force is false, nothing is appended: p can be
// written as it is.
func (w *Writer) lines(dst, p []byte, force bool) ([]byte, bool) {
	changed := force
	clean, start := 0, 0 // p[clean:] is not in dst yet; p[start:] is not redacted yet
	jsonl.EachLine(p, func(line []byte) bool {
		end := start + len(bytes.TrimSuffix(line, []byte{'\n'}))
		var ch bool
		if w.line, ch = w.r.Line(w.line[:0], p[start:end]); ch {
			changed = true
			dst = append(dst, p[clean:start]...)
			dst = append(dst, w.line...)
			clean = end
		}
		start += len(line)
		return true
	})
	if !changed {
		return dst, false
	}
	return append(dst, p[clean:]...), true
}

// Close redacts and writes a last line that has no '\n'.
func (w *Writer) Close() error {
	rest := w.join.Rest()
	if w.err != nil || len(rest) == 0 {
		return w.err
	}
	out, _ := w.lines(w.out[:0], rest, true)
	if _, err := w.w.Write(out); err != nil {
		w.err = err
	}
	return w.err
}

// Err is the first error of the underlying writer.
func (w *Writer) Err() error { return w.err }

// Flags are the redaction flags of every tool that writes events.
type Flags struct {
	Redact      bool     `name:"redact" help:"Replace the secrets in string values (API keys, tokens, passwords, private keys, credentials in URLs and headers) by [REDACTED:RULE]; every other byte stays. The count per rule goes to stderr at the end. See docs/redaction.md."`
	RedactRules []string `name:"redact-rules" placeholder:"FILE" sep:"none" help:"Add the rules of FILE (NAME<TAB>REGEXP a line; -NAME turns a built-in rule off) to the built-in ones; implies --redact. May be repeated."`
}

// On reports whether the flags ask for redaction.
func (f *Flags) On() bool { return f.Redact || len(f.RedactRules) > 0 }

// Output puts redaction over w, the writer a tool's events go to (stdout,
// or the pretty view on it), when the flags ask for it; end is what
// finishes w. The end returned writes out a last line, finishes w, and
// reports the counts on stderr as "tool: redacted ..." (nothing when none
// was found, or when the reader of the output went away). Without the
// flags it returns w and end as they are.
func (f *Flags) Output(tool string, w io.Writer, end func() error, stderr io.Writer) (io.Writer, func() error, error) {
	r, err := f.Redactor()
	if err != nil {
		return nil, nil, err
	}
	return Wrap(tool, w, end, stderr, r)
}

// Redactor is the Redactor the flags ask for, nil when they ask for none.
func (f *Flags) Redactor() (*Redactor, error) {
	if !f.On() {
		return nil, nil
	}
	r := New()
	for _, name := range f.RedactRules {
		if err := r.LoadFile(name); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Wrap is Output with the Redactor made (nil: no redaction), for a tool
// that hands r to its view as well (internal/views/output).
func Wrap(tool string, w io.Writer, end func() error, stderr io.Writer, r *Redactor) (io.Writer, func() error, error) {
	if r == nil {
		return w, end, nil
	}
	rw := NewWriter(w, r)
	return rw, func() error {
		err := rw.Close()
		if e := end(); err == nil {
			err = e
		}
		if !jsonl.IsClosed(rw.Err()) {
			r.Report(tool, stderr)
		}
		return err
	}, nil
}
