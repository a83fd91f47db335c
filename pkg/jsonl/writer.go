package jsonl

import (
	"bufio"
	"errors"
	"io"
	"syscall"
)

const writeBufSize = 64 << 10

// Writer is buffered output that remembers its first error, so a tool can
// write every record without checking and stop when Err says the reader
// went away.
type Writer struct {
	bw  *bufio.Writer
	err error
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, writeBufSize)}
}

// Write buffers p.
func (w *Writer) Write(p []byte) (int, error) { return w.keep(w.bw.Write(p)) }

// WriteString buffers s.
func (w *Writer) WriteString(s string) (int, error) { return w.keep(w.bw.WriteString(s)) }

// keep remembers a write's error for Err. Once bufio.Writer has failed it
// refuses every later write with that same first error, so no check of
// w.err is needed before writing.
func (w *Writer) keep(n int, err error) (int, error) {
	if err != nil {
		w.err = err
	}
	return n, err
}

// WriteLine buffers p and a '\n'.
func (w *Writer) WriteLine(p []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.bw.Write(p); err != nil {
		w.err = err
		return
	}
	if err := w.bw.WriteByte('\n'); err != nil {
		w.err = err
	}
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.bw.Buffered() == 0 {
		return nil
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// Err is the first write error, if any.
func (w *Writer) Err() error { return w.err }

// IsClosed reports whether err means the reading end of the output went
// away (`| head -1`): the tool should stop quietly. Unix says EPIPE;
// Windows says ERROR_BROKEN_PIPE or ERROR_NO_DATA (see pipeGone).
func IsClosed(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) || isErrno(err, pipeGone)
}
