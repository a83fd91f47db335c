package jsonl

import (
	"fmt"
	"io"
)

// A LineJoiner gives back the lines of a stream written in pieces, as the
// Write of a writer that works on lines (the pretty view, the transcript,
// redaction) receives them: a line cut between two pieces is kept until
// its end comes. The zero LineJoiner holds nothing.
type LineJoiner struct {
	pending []byte // the start of a line not yet ended by '\n'
}

// Complete hands each the lines p completes, each with its '\n', in at
// most two calls: first the line whose start earlier pieces left
// (joined, in the LineJoiner's memory), then the whole lines of p after
// it (a part of p). It keeps what follows p's last '\n' for the next
// piece, once each is done with the lines. It stops, reporting false, as
// soon as each returns false.
func (j *LineJoiner) Complete(p []byte, each func(lines []byte, joined bool) bool) bool {
	if len(j.pending) > 0 {
		line, rest := cutLine(p)
		j.pending = append(j.pending, line...)
		if rest == nil && (len(line) == 0 || line[len(line)-1] != '\n') {
			return true
		}
		p = rest
		if !each(j.pending, true) {
			return false
		}
	}
	whole := WholeLines(p)
	if len(whole) > 0 && !each(whole, false) {
		return false
	}
	j.pending = append(j.pending[:0], p[len(whole):]...)
	if cap(j.pending) > 1<<20 && len(j.pending) == 0 {
		j.pending = nil // a huge line passed: do not keep its buffer
	}
	return true
}

// Lines is Complete one line at a time: it hands line each line p
// completes, without its '\n'.
func (j *LineJoiner) Lines(p []byte, line func([]byte) bool) bool {
	return j.Complete(p, func(lines []byte, _ bool) bool {
		ok := true
		EachLine(lines, func(l []byte) bool {
			ok = line(l[:len(l)-1])
			return ok
		})
		return ok
	})
}

// Rest is the line that no '\n' has ended yet, which the LineJoiner
// forgets: the last line of a stream that ends without one.
func (j *LineJoiner) Rest() []byte {
	rest := j.pending
	j.pending = nil
	return rest
}

// LineWriter is an io.Writer that hands line each line written to it,
// with its '\n', however the writes cut the lines: the archive takes its
// events so. line's error is the Write's, and every later Write's. A last
// line that no '\n' ends is not handed over: Close says so.
func LineWriter(line func([]byte) error) io.WriteCloser { return &lineWriter{line: line} }

type lineWriter struct {
	join LineJoiner
	line func([]byte) error
	err  error
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if w.err == nil {
		w.join.Complete(p, func(lines []byte, _ bool) bool {
			EachLine(lines, func(l []byte) bool {
				w.err = w.line(l)
				return w.err == nil
			})
			return w.err == nil
		})
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close reports the Writes' error, or a last line that no '\n' ended.
func (w *lineWriter) Close() error {
	if rest := w.join.Rest(); w.err == nil && len(rest) > 0 {
		w.err = fmt.Errorf("a line of %d bytes not ended by a newline", len(rest))
	}
	return w.err
}
