// Package ev2otlp is the ev2otlp command: it reads envelope events and
// writes each run as an OpenTelemetry trace following the GenAI semantic
// conventions, as OTLP/JSON lines or to an OTLP/HTTP receiver. See
// docs/ev2otlp.md, and docs/formats.md for the mapping.
package ev2otlp

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/progress"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonl"
)

// getenv is the environment (OTEL_SERVICE_NAME, the header variables),
// replaced by tests.
var getenv = os.Getenv

// exitRefused is the status when spans were not delivered: the receiver
// refused them or could not be reached.
const exitRefused = 1

func export(o *options, stdio cli.Stdio) error {
	if o.Batch < 1 {
		return cli.Usage(fmt.Errorf("--batch: %d is not a number of spans (1 or more)", o.Batch))
	}
	redactor, err := o.Flags.Redactor()
	if err != nil {
		return cli.Usage(err)
	}
	service := o.Service
	if service == "" {
		service = getenv("OTEL_SERVICE_NAME")
	}
	cfg := config{service: service, content: o.Content, redactor: redactor, batch: o.Batch}
	var c *converter
	var snd *sender
	var out *jsonl.Writer
	wait := func() error { return nil }
	if o.Endpoint != "" {
		// one request at a time, each sent before the next batch is
		// made: a receiver that stops the sending stops the reading
		if snd, err = newSender(o, stdio.Err); err != nil {
			return err
		}
		snd.countRest = jsonl.RegularFiles(o.Files, stdio.In)
		c = newConverter(cfg, snd.send)
	} else {
		// on a terminal, the data's controls (bidi overrides, which JSON
		// may hold raw) are escaped: JSON stays JSON
		out = jsonl.NewWriter(term.SafeFor(stdio.Out))
		hand, done := writeAsync(appendJSON, func(line []byte) error {
			out.WriteLine(line)
			return out.Flush()
		})
		c, wait = newHandingConverter(cfg, hand), done
	}
	// Out is not the Input's to flush: the writing goroutine owns it.
	in := &jsonl.Input{Tool: name, Names: o.Files, Stdin: stdio.In, Stderr: stdio.Err, Strict: o.Strict,
		Meter: progress.New(name, stdio, o.Files)}
	if !jsonl.RegularFiles(o.Files, stdio.In) {
		// A pipe may pause: what has ended goes out before the wait, so
		// that a live run shows up as it goes. A file does not pause, and
		// its lines are cut only by --batch: the same file gives the same
		// lines.
		in.Idle = c.flush
	}
	take := func(rec jsonl.Record, bad error) error {
		if bad != nil {
			if c.err != nil {
				return c.err
			}
			return in.Bad(rec, bad)
		}
		return nil
	}
	if workers := runtime.GOMAXPROCS(0); workers > 1 && !o.Strict && jsonl.RegularFiles(o.Files, stdio.In) {
		err = readAhead(in, c, workers, take)
	} else {
		err = in.Each(func(rec jsonl.Record) error { return take(rec, c.line(rec.Data)) })
	}
	if err == nil {
		err = stop.Commit() // a signal with the end of the input: nothing more is written; after this, exit 0
	}
	if err == nil || errors.Is(err, jsonl.ErrStrict) {
		// what was read is written: the runs it began are cut off
		if e := c.finish(); err == nil {
			err = e
		}
	}
	if e := wait(); err == nil {
		err = e
	}
	if jsonl.IsClosed(err) {
		return err
	}
	if redactor != nil {
		redactor.Report(name, stdio.Err)
	}
	trouble := in.Trouble()
	if snd != nil {
		snd.report()
		if err == nil && snd.refused+snd.unsent > 0 && !trouble {
			return cli.Status(exitRefused)
		}
		if errors.Is(err, errStopped) {
			err = cli.Status(exitRefused)
		}
	}
	if err == nil && trouble {
		return cli.Status(cli.ExitError)
	}
	return err
}

// writeAsync has batches encoded and written on a goroutine of its own,
// so that encoding the spans of one batch takes the other core while the
// next batch is read: hand gives it a batch and takes back the one handed
// before, encoded (two go round); done waits for the last line and
// returns the first error. encode appends a batch's line to a buffer and
// write writes it out: write holds the output guard, which the reading
// goroutine lets go only while it waits (for input, or in hand), so that a
// signal stops the tool between two lines, never inside one.
func writeAsync(encode func([]byte, *batch) []byte, write func([]byte) error) (hand func(*batch) (*batch, error), done func() error) {
	todo, back := make(chan *batch), make(chan *batch, 1)
	back <- &batch{}
	var mu sync.Mutex
	var werr error
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var line []byte
		for b := range todo {
			line = encode(line[:0], b)
			back <- b // encoded: the spans may be reused while the line goes out
			jsonl.Writing(func() {
				if err := write(line); err != nil {
					mu.Lock()
					if werr == nil {
						werr = err
					}
					mu.Unlock()
				}
			})
		}
	}()
	failed := func() error {
		mu.Lock()
		defer mu.Unlock()
		return werr
	}
	hand = func(b *batch) (next *batch, err error) {
		jsonl.Waiting(func() {
			todo <- b
			next = <-back
		})
		return next, failed()
	}
	done = func() error {
		jsonl.Waiting(func() {
			close(todo)
			<-finished
		})
		return failed()
	}
	return hand, done
}

// readBlockBytes and readAheadBlocks are the size of the blocks readAhead reads
// and how many it reads ahead of the conversion: small blocks, as each
// line read ahead holds an event.Event (some KiB with its buffers) until it
// is converted, and memory is to stay flat; several more than the
// workers, so that the conversion seldom waits for a worker to be woken
// (on the 100 MB corpus, blocks of 64 KiB two ahead took 314 ms at best
// of 14 runs, 32 KiB eight ahead 271 ms, for 3 MB more resident).
// readBlockBytes is a variable: tests make it tiny, so that lines
// straddle blocks.
var readBlockBytes = 32 << 10

const readAheadBlocks = 8

// readLines are the lines of a block read by a worker, in the block's
// order: the first n of them, at most maxReadAhead; the others (a block
// of short lines, or one huge line) are read where they are converted.
type readLines struct {
	lines []*reading
	n     int
}

// maxReadAhead bounds the lines of a block read ahead: each holds a few
// KiB (an event.Event with its buffers), and a block of 32 KiB of lines
// like "{}" would otherwise hold 10,000 of them, 40 MB for every block
// read ahead. A block of the envelope corpus has some 110 lines.
const maxReadAhead = 128

// readAhead converts the records of regular files with the reading of
// each line (the scan of its JSON, its meaning and fields, half of the
// work) done on workers goroutines, a block at a time (jsonl.Blocks), and
// the conversion, which follows the runs from line to line, on this one,
// in input order: the spans, the lines written, the reports and the
// status are those of the loop over Each. take reports a record's error,
// as in that loop.
func readAhead(in *jsonl.Input, c *converter, workers int, take func(jsonl.Record, error) error) error {
	engine := jsonl.Blocks[struct{}, readLines]{
		Workers:   workers,
		Ahead:     readAheadBlocks,
		Steal:     true, // while it waits for a block, the converting goroutine reads the next
		BlockSize: readBlockBytes,
		NewWorker: func() struct{} { return struct{}{} },
		Work:      func(_ struct{}, b *jsonl.Block, s *readLines) { s.read(b) },
		Take: func(s *readLines, i int, rec jsonl.Record) error {
			if i < s.n {
				return take(rec, c.convert(s.lines[i]))
			}
			err := take(rec, c.line(rec.Data))
			if rec.Own {
				c.own.ev.Forget() // the line's memory is let go before the next is read
			}
			return err
		},
	}
	return engine.Each(in)
}

// read frames the lines of b and reads the first maxReadAhead, the work
// of a worker.
func (s *readLines) read(b *jsonl.Block) {
	s.n = 0
	b.Frame(func(i int, rec []byte) {
		if i >= maxReadAhead || b.Own {
			// a line of many MiB is read when its turn comes, not kept
			// in a reading here after it
			return
		}
		if i == len(s.lines) {
			s.lines = append(s.lines, new(reading))
		}
		p := s.lines[i]
		p.read(rec)
		if p.err == nil {
			p.ev.Field(event.ID) // its fields found here too: Field finds them all in one pass
		}
		s.n = i + 1
	})
}
