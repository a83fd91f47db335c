package jsonl

import (
	"errors"
	"fmt"
	"io"
)

// Record is one framed record and where it came from.
type Record struct {
	Data []byte // without the line ending; valid until the next record
	File string // the input's name, StdinName for stdin
	Line int    // 1-based
}

// ErrStrict is returned by Input.Bad when Strict is set: the first bad
// record ends the run.
var ErrStrict = errors.New("stopped at the first bad line (--strict)")

// Input reads the records of the named inputs in order, reporting bad ones
// on Stderr as "TOOL: FILE:LINE: reason".
type Input struct {
	Tool   string    // prefix of every message
	Names  []string  // files to read; none means stdin ("-" is stdin too)
	Stdin  io.Reader // the process's stdin
	Stderr io.Writer // where reports go
	Out    *Writer   // flushed before every blocking read; may be nil
	Strict bool      // stop at the first bad record

	badLines int
	failed   int // inputs that could not be opened or read
}

// Each calls fn for every record. An input that cannot be opened or read is
// reported and skipped. Each returns the first error fn returns (ErrStrict
// included), or an output error (see IsClosed), and nil otherwise.
func (in *Input) Each(fn func(Record) error) error {
	names := in.Names
	if len(names) == 0 {
		names = []string{"-"}
	}
	idle := func() {
		if in.Out != nil {
			in.Out.Flush()
		}
	}
	for _, name := range names {
		src, err := Open(name, in.Stdin, idle)
		if err != nil {
			in.Errorf("%v", err)
			in.failed++
			continue
		}
		err = in.each(src, fn)
		src.Close()
		if err != nil {
			return err
		}
	}
	if in.Out != nil {
		return in.Out.Flush()
	}
	return nil
}

func (in *Input) each(src *Source, fn func(Record) error) error {
	r := NewReader(src)
	for {
		data, ok := r.Next()
		if !ok {
			break
		}
		if err := fn(Record{Data: data, File: src.Name, Line: r.Line()}); err != nil {
			return err
		}
		if in.Out != nil && in.Out.err != nil {
			return in.Out.err
		}
	}
	if err := r.Err(); err != nil {
		in.Errorf("%s: %v", src.Name, err)
		in.failed++
	}
	return nil
}

// Bad reports rec as bad input and counts it; with Strict it returns
// ErrStrict, which the caller returns to end the run.
func (in *Input) Bad(rec Record, reason error) error {
	in.badLines++
	in.Errorf("%s:%d: %v", rec.File, rec.Line, reason)
	if in.Strict {
		return ErrStrict
	}
	return nil
}

// Errorf prints one message prefixed with the tool's name. Output already
// buffered is flushed first so that stdout and stderr interleave in order.
func (in *Input) Errorf(format string, args ...any) {
	if in.Out != nil {
		in.Out.Flush()
	}
	fmt.Fprintf(in.Stderr, "%s: %s\n", in.Tool, fmt.Sprintf(format, args...))
}

// BadLines is the number of bad records reported so far.
func (in *Input) BadLines() int { return in.badLines }

// Failed is the number of inputs that could not be opened or read.
func (in *Input) Failed() int { return in.failed }

// Trouble reports whether anything went wrong with the input: the exit
// status must say so.
func (in *Input) Trouble() bool { return in.badLines > 0 || in.failed > 0 }
