// Package zot2gp is the zot2gp command: it converts zot's RPC output into
// envelope events whose kind is glasspane's classification (see
// docs/formats.md).
package zot2gp

import (
	"time"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/pkg/jsonl"
)

// now is the clock for the ts of events without a time.
var now = time.Now

// Main runs zot2gp with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

func run(opts *options, stdio cli.Stdio) error {
	c, err := newConverter(config{
		UI:       opts.UI,
		Bare:     opts.Format == "bare",
		Stable:   opts.TS == "stable",
		SeqStart: opts.SeqStart,
		RunID:    opts.RunID,
		Agent:    opts.Agent,
	}, now)
	if err != nil {
		return err
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
		if cap(buf) > 1<<20 { // equivalent mutant: at exactly 1 MiB, only whether the buffer is reused changes
			buf = nil // a huge line was converted: do not keep its buffer for the rest of the run
		}
		return nil
	})
	if err == nil && in.Trouble() {
		return cli.Status(cli.ExitError) // the bad lines are reported already
	}
	return err
}
