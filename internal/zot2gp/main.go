// Package zot2gp is the zot2gp command: it converts zot's RPC output into
// envelope events whose kind is glasspane's classification (DESIGN.md 1.2).
package zot2gp

import (
	"errors"
	"time"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Main runs zot2gp with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int {
	var opts options
	if code, done := cli.Parse(tool, args, stdio, &opts); done {
		return code
	}
	return run(opts, stdio, time.Now)
}

func run(opts options, stdio cli.Stdio, now func() time.Time) int {
	c, err := newConverter(config{
		UI:       opts.UI,
		Bare:     opts.Format == "bare",
		Stable:   opts.TS == "stable",
		SeqStart: opts.SeqStart,
		RunID:    opts.RunID,
		Agent:    opts.Agent,
	}, now)
	if err != nil {
		return cli.Report(name, stdio.Err, err)
	}
	out := jsonl.NewWriter(stdio.Out)
	in := &jsonl.Input{Tool: name, Names: opts.Files, Stdin: stdio.In, Stderr: stdio.Err, Out: out, Strict: opts.Strict}
	var buf []byte
	err = in.Each(func(rec jsonl.Record) error {
		var written bool
		var bad error
		buf, written, bad = c.convert(buf[:0], rec.Data)
		if bad != nil {
			return in.Bad(rec, bad)
		}
		if written {
			out.Write(buf)
		}
		if cap(buf) > 1<<20 {
			buf = nil // a huge line was converted: do not keep its buffer for the rest of the run
		}
		return nil
	})
	switch {
	case jsonl.IsClosed(err):
		return cli.ExitOK // the reader went away (| head): nothing more to do
	case errors.Is(err, jsonl.ErrStrict):
		return cli.ExitError // the bad line is reported already
	case err != nil:
		return cli.Report(name, stdio.Err, err)
	case in.Trouble():
		return cli.ExitError
	}
	return cli.ExitOK
}
