package jsonl

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/shell/stop"
)

// maxBadReports is how many bad records of one input are reported one by
// one; the rest are counted and summarised in one line when the input
// ends ("... and 25,497 more bad lines in FILE"), as a flood of messages
// says no more than its first few.
const maxBadReports = 10

// Record is one framed record and where it came from.
type Record struct {
	Data []byte // without the line ending; valid until the next record, unless Own
	File string // the input's name, StdinName for stdin
	Line int    // 1-based

	// Own is true when Data is in a buffer of its own that the reader
	// will not reuse (a line longer than a few read buffers): it may be
	// kept past the next record without a copy.
	Own bool
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

	// Growing, when above zero, holds back a last line without '\n' in a
	// file that is still being written (source.stillWritten(Growing)): it
	// is not yet complete, so it is neither handed to fn nor reported.
	// Zero (the default) hands it over as any line.
	Growing time.Duration

	// Meter, when not nil, follows the reading for a progress display
	// on Stderr: see Meter.
	Meter Meter

	// Idle, when not nil, is called before every blocking read, on the
	// goroutine that calls fn, before Out is flushed: what a tool held
	// back for more input can go out while the input pauses.
	Idle func()

	// the entries Names stand for (Entries), and the Names they were
	// expanded from
	entries      []Entry
	expanded     bool
	expandedFrom []string

	blockSize int      // of readBlocks's blocks
	free      []*Block // blocks taken, to read into again

	badLines int
	failed   int // inputs that could not be opened or read

	// of the input whose bad records are being reported: how many were
	// reported one by one and how many are left to summarise
	badFile              string
	reported, unreported int
	hints                map[string]bool // hints printed already, for all inputs
}

// Each calls fn for every record. An input that cannot be opened or read is
// reported and skipped. Each returns the first error fn returns (ErrStrict
// included), or an output error (see IsClosed), a *stop.Error when a
// signal came by the time the input ended, and nil otherwise.
func (in *Input) Each(fn func(Record) error) error {
	return in.inputs(func(_ string, src *source, err error) error {
		if err != nil {
			in.Errorf("%v", err)
			in.failed++
			return nil
		}
		return in.each(src, fn)
	})
}

// inputs opens the inputs in order and hands each to read, which reads it
// (err is why it could not be opened, src then nil), with the meter set
// up; it returns the first error read returns, or an output error.
func (in *Input) inputs(read func(name string, src *source, err error) error) error {
	if len(in.Names) == 0 {
		in.stdinNotice()
	}
	entries := in.Entries()
	idle := func() {
		if in.Idle != nil {
			in.Idle()
		}
		if in.Out != nil {
			in.Out.Flush()
		}
	}
	return in.metered(func() error {
		for _, e := range entries {
			var src *source
			err := e.Err
			if err == nil {
				if src, err = open(e.Name, in.Stdin, idle, in.Meter); err != nil {
					src = nil // closed by open already
				}
			}
			err = read(e.Name, src, err)
			if src != nil {
				src.Close()
			}
			if err != nil {
				return err
			}
		}
		if in.Out != nil {
			if err := in.Out.Flush(); err != nil {
				return err
			}
		}
		// The end of a pipe may come with a signal (a process-group kill
		// closes the pipe too), which must be waited for; then what the
		// tool does at the end (a report, a cursor saved, the last
		// events) is not done.
		if slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == "-" }) {
			return stop.Err()
		}
		return stop.Received()
	})
}

// stdinNotice says once, when no file was named and standard input is a
// terminal, that the tool reads what is typed there and how to end it:
// else it would wait in silence, as if hung.
func (in *Input) stdinNotice() {
	if in.Stderr == nil || !term.IsTerminal(in.Stdin) {
		return
	}
	end := "Ctrl-D"
	if runtime.GOOS == "windows" {
		end = "Ctrl-Z, Enter"
	}
	// Under 80 columns with the longest tool name: a notice that wraps
	// looks like two.
	fmt.Fprintf(in.Stderr, "%s: reading the terminal (stdin); end it with %s, or name a FILE\n", in.Tool, end)
}

// metered runs read, the reading of the inputs, with the meter on: a
// signal that stops the tool meanwhile clears it (AtLineEnd), and it is
// cleared when read returns.
func (in *Input) metered(read func() error) error {
	if in.Meter != nil {
		clear := in.Meter.Clear
		stopMeter.Store(&clear)
		defer func() {
			stopMeter.CompareAndSwap(&clear, nil)
			in.Meter.Clear()
		}()
	}
	return read()
}

func (in *Input) each(src *source, fn func(Record) error) error {
	r := newReader(src)
	for {
		data, ok := r.Next()
		if !ok {
			break
		}
		if in.Growing > 0 && r.Unterminated() && src.stillWritten(in.Growing) {
			break
		}
		if r.nul(data) {
			if err := in.Bad(Record{Data: data, File: src.Name, Line: r.Line()}, ErrNUL); err != nil {
				return err
			}
			continue
		}
		if err := fn(Record{Data: data, File: src.Name, Line: r.Line(), Own: r.Own()}); err != nil {
			return err
		}
		if in.Out != nil && in.Out.err != nil {
			return in.Out.err
		}
	}
	if err := r.Err(); err != nil {
		in.Errorf("%v", err)
		in.failed++
	}
	return nil
}

// ErrNUL is why a line holding a NUL byte is bad: no line of JSON text
// holds one. It is a bad line like any other (reported with its file and
// line, the rest processed, a flood of them cut short per file as every
// bad line's is), so that one NUL byte never drops the rest of a file.
var ErrNUL = errors.New("a NUL byte, which no line of JSON text holds (binary data?)")

// Bad reports rec as bad input and counts it; with Strict it returns
// ErrStrict, which the caller returns to end the run.
//
// Only the first maxBadReports bad records of an input are reported one
// by one; the others are counted and summarised when the input ends. A
// hint, the reason's last part in parentheses ("(zot output goes through
// zot2gp first)"), is printed once, with the first reason that gives it.
func (in *Input) Bad(rec Record, reason error) error {
	in.badLines++
	if rec.File != in.badFile {
		in.summariseBad()
		in.badFile = rec.File
	}
	if in.reported >= maxBadReports && !in.Strict {
		in.unreported++
		return nil
	}
	in.reported++
	msg := reason.Error()
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		hint := msg[i:]
		if in.hints[hint] {
			msg = msg[:i]
		} else {
			if in.hints == nil {
				in.hints = map[string]bool{}
			}
			in.hints[hint] = true
		}
	}
	in.printf("%s:%d: %s", rec.File, rec.Line, msg)
	if in.Strict {
		return ErrStrict
	}
	return nil
}

// summariseBad says how many bad records of the input last reported on
// were not reported. It runs when the next input has a bad record, before
// any other message and at the end (Trouble, BadLines): a tool that reads
// ahead (evfilter on several cores) reports records after Each returns.
func (in *Input) summariseBad() {
	if in.unreported > 0 {
		in.printf("... and %s in %s", textfmt.PluralThousands(int64(in.unreported), "more bad line"), in.badFile)
	}
	in.badFile, in.reported, in.unreported = "", 0, 0
}

// Errorf prints one message prefixed with the tool's name. Output already
// buffered is flushed first so that stdout and stderr interleave in order.
func (in *Input) Errorf(format string, args ...any) {
	in.summariseBad()
	in.printf(format, args...)
}

func (in *Input) printf(format string, args ...any) {
	if in.Out != nil {
		in.Out.Flush()
	}
	if in.Meter != nil {
		in.Meter.Clear()
	}
	fmt.Fprintf(in.Stderr, "%s: %s\n", in.Tool, fmt.Sprintf(format, args...))
}

// BadLines is the number of bad records reported so far. Those left
// unreported past maxBadReports are summarised first.
func (in *Input) BadLines() int {
	in.summariseBad()
	return in.badLines
}

// Failed is the number of inputs that could not be opened or read.
func (in *Input) Failed() int { return in.failed }

// Trouble reports whether anything went wrong with the input: the exit
// status must say so.
// Called when the records are all handled, it first summarises the bad
// records left unreported.
func (in *Input) Trouble() bool {
	in.summariseBad()
	return in.badLines > 0 || in.failed > 0
}
