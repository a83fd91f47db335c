// Package zot2gp is the zot2gp command: it converts zot's RPC output into
// envelope events whose kind is glasspane's classification (see
// docs/formats.md).
package zot2gp

import (
	"fmt"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/progress"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/pkg/jsonl"
)

func run(opts *options, stdio cli.Stdio) error {
	f, err := formats.Parse(opts.Format, stdio.Out)
	if err != nil {
		return err
	}
	format := f.Name
	if format == "pi" {
		// pi's events have no seq, run or agent of zot2gp's making, and
		// no classification to keep or drop: the flags would do nothing.
		var set []string
		for _, f := range []struct {
			name string
			on   bool
		}{{"--ui", opts.UI}, {"--seq-start", opts.SeqStart != "1"}, {"--run-id", opts.RunID != ""}, {"--agent", opts.Agent != "zot"}} {
			if f.on {
				set = append(set, f.name)
			}
		}
		if len(set) > 0 {
			return cli.Usage(fmt.Errorf("%s: not with --format pi, whose events carry none of it", strings.Join(set, ", ")))
		}
	}
	c, err := newConverter(config{
		UI:       opts.UI,
		Bare:     format == "bare",
		Stable:   opts.TS == "stable",
		SeqStart: opts.SeqStart,
		RunID:    opts.RunID,
		Agent:    opts.Agent,
	}, time.Now)
	if err != nil {
		return err
	}
	w, end, err := opts.Flags.Open(name, stdio, f, opts.Files)
	if err != nil {
		return err
	}
	out := jsonl.NewWriter(w)
	in := &jsonl.Input{Tool: name, Stdin: stdio.In, Stderr: stdio.Err, Out: out, Strict: opts.Strict,
		Meter: progress.New(name, stdio, opts.Files)}
	conv, finish := c.format(format, stdio.Err)
	c.direct = out // a huge payload goes out from the input line, not copied (convert)
	h := &holder{c: c, conv: conv, in: in, out: out}
	in.Idle = h.pause
	names := opts.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	// One input at a time, so that each starts afresh for time and its
	// kind (a stored file or a live stream) picks the clock or not.
	for _, file := range names {
		pipe := !jsonl.RegularFiles([]string{file}, stdio.In)
		c.startInput(opts.TS == "now" || opts.TS == "auto" && pipe)
		if opts.TS == "auto" && pipe {
			c.judgeClock() // a stored stream may come through a pipe
		}
		in.Names = []string{file}
		if len(opts.Files) == 0 {
			in.Names = nil // stdin unnamed: Input says so when it is a terminal
		}
		if err = in.Each(h.record); err == nil {
			err = h.end()
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = stop.Commit() // no closing events after a signal; after this, exit 0
	}
	if err == nil {
		err = finish(out)
	}
	if e := end(); err == nil {
		err = e
	}
	if err == nil && in.Trouble() {
		return cli.Status(cli.ExitError) // the bad lines are reported already
	}
	return err
}
