// Package evsum is the evsum command: summaries of agent runs (outcomes,
// tokens, cost, time, tools, errors, broken invariants) from envelope
// events of either kind vocabulary, for people (a table) and for cron and
// pipes (JSON Lines, JSON, Markdown, CSV).
package evsum

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// now is the clock for durations in --since and --until; tests fix it.
var now = time.Now

var formats = []string{"table", "jsonl", "json", "md", "csv"}

// Main runs evsum with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

func run(opts *options, stdio cli.Stdio) error {
	if os.Getenv("GOGC") == "" {
		// The state is long-lived and allocation after it is built is
		// slight: a tighter heap goal costs little time and keeps
		// 100,000 runs well inside 64 MB.
		debug.SetGCPercent(20)
	}
	if opts.Partial && (opts.Check || opts.Format != "") {
		// Problems and formats belong to the report, which the merge writes.
		return cli.Usage(errors.New("--partial writes a state, not a report: give --check and --format to the --merge that reads it"))
	}
	format := opts.Format
	switch {
	case format == "":
		format = "jsonl"
		if cli.IsTerminal(stdio.Out) {
			format = "table"
		}
	case !contains(formats, format):
		return cli.Usage(fmt.Errorf("--format %q: one of %s", format, strings.Join(formats, ", ")))
	}
	out := jsonl.NewWriter(stdio.Out)
	in := &jsonl.Input{Tool: name, Names: opts.Files, Stdin: stdio.In, Stderr: stdio.Err, Out: nil, Strict: opts.Strict}
	prog := newProgress(stdio.Err)

	var st *summary.State
	var err error
	if opts.Merge {
		if opts.By != "run" || opts.Since != "" || opts.Until != "" || opts.TZ != "UTC" {
			return cli.Usage(errors.New("--merge takes --by, --tz and the window from the partial states; give them to --partial"))
		}
		m := summary.NewMerger()
		// A file's lines are counted at its end against its headers: a
		// line dropped or added refuses the file's state.
		endFile := func() {
			if e := m.EndFile(); e != nil {
				in.Errorf("%v", e)
			}
		}
		err = in.Each(func(rec jsonl.Record) error {
			prog.tick(len(rec.Data))
			if rec.File != m.File() {
				endFile()
			}
			if e := m.AddFrom(rec.File, rec.Line, rec.Data); e != nil {
				return in.Bad(rec, e)
			}
			return nil
		})
		endFile()
		if err == nil && m.Refused() > 0 {
			// A report of the states that merged would pass for the
			// report of all of them: none is written.
			return cli.Status(cli.ExitError)
		}
		st = m.State
		if st == nil {
			st = summary.New(summary.Options{})
		}
	} else {
		o, e := summaryOptions(opts)
		if e != nil {
			return cli.Usage(e)
		}
		st = summary.New(o)
		err = in.Each(func(rec jsonl.Record) error {
			prog.tick(len(rec.Data))
			if e := st.Add(rec.Data); e != nil {
				return in.Bad(rec, e)
			}
			return nil
		})
	}
	prog.done()
	if err != nil {
		return err
	}

	var status error
	// --merge --partial merges partial states into one partial state: a
	// Hadoop combiner, or a tree of merges.
	if opts.Partial {
		if e := st.WritePartial(out); e != nil {
			return e
		}
	} else {
		if opts.Running > 0 {
			// Still going: its last event is recent by the clock.
			st.SetRunning(now().Add(-opts.Running))
		}
		color := cli.Color(stdio.Out)
		if e := write(out, format, st, st.Options().Loc, color, cli.IsTerminal(stdio.Out)); e != nil {
			return e
		}
		if opts.Check && st.HasProblems() {
			status = cli.Status(cli.ExitFound) // the problems are in the report
		}
	}
	if e := out.Flush(); e != nil {
		return e
	}
	if in.Trouble() {
		return cli.Status(cli.ExitError) // the bad lines are reported already
	}
	return status
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// summaryOptions turns the flags into summary options; an error is the
// user's (a usage error).
func summaryOptions(opts *options) (summary.Options, error) {
	var o summary.Options
	by, err := summary.ParseBy(opts.By)
	if err != nil {
		return o, err
	}
	loc, err := summary.LoadLocation(opts.TZ)
	if err != nil {
		return o, err
	}
	o = summary.Options{By: by, Loc: loc, TZName: opts.TZ}
	t := now()
	if opts.Since != "" {
		if o.Since, err = summary.ParseTime(opts.Since, t, loc); err != nil {
			return o, fmt.Errorf("--since: %v", err)
		}
		o.WindowOn = true
		if summary.IsDuration(opts.Since) {
			o.SinceArg = strings.TrimSpace(opts.Since)
		}
	}
	if opts.Until != "" {
		if o.Until, err = summary.ParseTime(opts.Until, t, loc); err != nil {
			return o, fmt.Errorf("--until: %v", err)
		}
		o.WindowOn = true
		if summary.IsDuration(opts.Until) {
			o.UntilArg = strings.TrimSpace(opts.Until)
		}
	}
	if o.WindowOn && !o.Since.IsZero() && !o.Until.IsZero() && !o.Until.After(o.Since) {
		return o, fmt.Errorf("--until %s is not after --since %s", o.Until.Format(time.RFC3339), o.Since.Format(time.RFC3339))
	}
	return o, nil
}

// progress shows how far a large input has got, on stderr, only when it
// is a terminal.
type progress struct {
	w       io.Writer
	on      bool
	start   time.Time
	last    time.Time
	bytes   int64
	lines   int64
	printed bool
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, on: cli.IsTerminal(w), start: time.Now(), last: time.Now()}
}

func (p *progress) tick(n int) {
	if !p.on {
		return
	}
	p.bytes += int64(n) + 1
	p.lines++
	if p.lines&0xffff != 0 {
		return
	}
	t := time.Now()
	// Only a large input gets a progress line: one still running after a
	// second.
	if t.Sub(p.start) < time.Second || t.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = t
	p.printed = true
	mb := float64(p.bytes) / (1 << 20)
	fmt.Fprintf(p.w, "\revsum: %.0f MB, %d events, %.0f MB/s ", mb, p.lines, mb/t.Sub(p.start).Seconds())
}

func (p *progress) done() {
	if p.printed {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
