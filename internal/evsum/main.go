// Package evsum is the evsum command: summaries of agent runs (outcomes,
// tokens, cost, time, tools, errors, broken invariants) from envelope
// events of either kind vocabulary, for people (a table) and for cron and
// pipes (JSON Lines, JSON, Markdown, CSV).
package evsum

import (
	"bytes"
	"errors"
	"fmt"
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

// Main runs evsum with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

func run(opts *options, stdio cli.Stdio) error {
	if os.Getenv("GOGC") == "" {
		// The state is long-lived and allocation after it is built is
		// slight: a tighter heap goal costs little time and keeps
		// 100,000 runs well inside 64 MB.
		debug.SetGCPercent(20)
		if floor == nil {
			startFloor(floorSize)
		}
	}
	if opts.Partial && (opts.Check || opts.Format != "") {
		// Problems and formats belong to the report, which the merge writes.
		return cli.Usage(errors.New("--partial writes a state, not a report: give --check and --format to the --merge that reads it"))
	}
	if opts.Partial && (opts.Columns != "" || opts.Width != 0 || opts.Wide || opts.Live == "always") {
		return cli.Usage(errors.New("--partial writes a state, not a table: give --columns, --width, --wide and --live to the --merge that reads it"))
	}
	if opts.Partial && (opts.Sort != "" || opts.Top != 0) {
		// The state holds every group whatever the order: the merge orders.
		return cli.Usage(errors.New("--partial writes a state, not a report: give --sort and --top to the --merge that reads it"))
	}
	order, err := reportOrder(opts)
	if err != nil {
		return cli.Usage(err)
	}
	tty := cli.IsTerminal(stdio.Out)
	format := opts.Format
	switch {
	case format == "":
		format = "jsonl"
		// The table's own flags ask for the table, in a pipe too.
		if tty || opts.Columns != "" || opts.Width != 0 || opts.Wide || opts.Live == "always" {
			format = "table"
		}
	case !contains(formats, format):
		return cli.Usage(fmt.Errorf("--format %q: one of %s", format, strings.Join(formats, ", ")))
	}
	if err := tableFlags(opts, format); err != nil {
		return cli.Usage(err)
	}
	// The table is fitted to the terminal, or to --width; --wide, a pipe
	// and a file get every column as it is.
	fitted := format == "table" && !opts.Wide && (opts.Width > 0 || tty)
	width := func() int {
		if opts.Width > 0 {
			return opts.Width
		}
		return cli.Width(stdio.Out)
	}
	// A live table: on a terminal, while a pipe (or terminal) is read.
	// A dumb terminal cannot move its cursor: no redraws there.
	liveOn := format == "table" && !opts.Merge && !opts.Partial &&
		(opts.Live == "always" || opts.Live == "auto" && tty && os.Getenv("TERM") != "dumb" && liveInput(opts.Files, stdio.In))
	var held *heldWriter
	if liveOn && cli.IsTerminal(stdio.Err) {
		// stderr is the table's terminal too: a message written while a
		// frame is up would be redrawn over.
		held = &heldWriter{w: stdio.Err}
		stdio.Err = held
	}
	out := jsonl.NewWriter(stdio.Out)
	in := &jsonl.Input{Tool: name, Names: opts.Files, Stdin: stdio.In, Stderr: stdio.Err, Out: nil, Strict: opts.Strict}
	if !liveOn { // a live table is the progress
		// Out nil: nothing is written on stdout before the input ends.
		in.Meter = cli.NewProgress(name, cli.Stdio{In: stdio.In, Err: stdio.Err}, opts.Files)
	}
	var cols []col
	color := cli.UseColor(opts.Color, stdio.Out)
	spec := func(st *summary.State) (tableSpec, *cellCtx, error) {
		names := keyNames(st)
		cx := &cellCtx{loc: st.Options().Loc, names: names, inputs: opts.Files, sorted: order.Sort != nil}
		c := cols
		if c == nil {
			c = defaultColumns(names)
			if opts.Columns != "" {
				var err error
				if c, err = parseColumns(opts.Columns, names, st.Options().By); err != nil {
					return tableSpec{}, nil, err
				}
				if err := labelColumn(opts.Columns, c, st); err != nil {
					return tableSpec{}, nil, err
				}
			}
		}
		t := tableSpec{cols: c, fit: fitted, color: color}
		if fitted {
			t.width = width()
		}
		return t, cx, nil
	}

	var st *summary.State
	overwrite := false // the final table goes over a live frame
	if opts.Merge {
		if opts.By != "run" || opts.Since != "" || opts.Until != "" || opts.TZ != "UTC" {
			return cli.Usage(errors.New("--merge takes --by, --tz and the window from the partial states; give them to --partial"))
		}
		if opts.Breakdown != "" {
			// the states hold the parts of each group, or not
			return cli.Usage(errors.New("--merge takes --breakdown from the partial states; give it to --partial"))
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
		st.SetOrder(order)
	} else {
		o, e := summaryOptions(opts)
		if e != nil {
			return cli.Usage(e)
		}
		st = summary.New(o)
		st.SetOrder(order)
		// The columns are known before the input is read, but with
		// --merge, whose keys come from the states.
		t, _, e := spec(st)
		if e != nil {
			return cli.Usage(e)
		}
		cols = t.cols
		if liveOn {
			// the terminal's own width, whatever --width says: where
			// its lines wrap
			term := func() int { return cli.Width(stdio.Out) }
			lv := startLive(st, stdio.Out, held, term, func(st *summary.State) []byte {
				if opts.Running > 0 {
					st.SetRunning(now().Add(-opts.Running))
				}
				t, cx, _ := spec(st)
				t.height, t.frame = cli.Height(stdio.Out), true
				var b bytes.Buffer
				writeTable(&b, st, cx, t)
				return b.Bytes()
			})
			err = in.Each(func(rec jsonl.Record) error {
				if e := lv.add(rec.Data); e != nil {
					return in.Bad(rec, e)
				}
				return nil
			})
			overwrite = lv.finish()
		} else if ps := parallelState(opts, in, o, order); ps != nil {
			// regular files on several cores, as one pass (parallel.go)
			st = ps
		} else {
			err = in.Each(func(rec jsonl.Record) error {
				if e := st.Add(rec.Data); e != nil {
					return in.Bad(rec, e)
				}
				return nil
			})
		}
	}
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
		t, cx, e := spec(st)
		if e != nil {
			return cli.Usage(e)
		}
		if overwrite {
			// Line by line over the last frame, and what is left of
			// it below cleared.
			writeTable(&overwriter{w: out}, st, cx, t)
			out.WriteString("\x1b[J")
		} else if e := write(out, format, st, cx, t, tty); e != nil {
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

// tableFlags checks that the table's flags go with format and each other.
func tableFlags(opts *options, format string) error {
	switch {
	case opts.Width < 0:
		return fmt.Errorf("--width %d: the number of columns to fit the table in", opts.Width)
	case opts.Wide && opts.Width > 0:
		return errors.New("--wide shows every column, --width fits them in: give one of them")
	case (opts.Width > 0 || opts.Wide) && format != "table":
		return fmt.Errorf("--width and --wide shape the table: not with --format %s", format)
	case opts.Columns != "" && format != "table" && format != "md" && format != "html":
		return fmt.Errorf("--columns chooses the columns of the table, md and html: not with --format %s", format)
	case opts.Live == "always" && format != "table":
		return fmt.Errorf("--live always redraws the table: not with --format %s", format)
	case opts.Live == "always" && opts.Merge:
		return errors.New("--live always redraws the table as events arrive: not with --merge")
	}
	return nil
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
	bd, err := summary.ParseBreakdown(opts.Breakdown)
	if err != nil {
		return o, err
	}
	o = summary.Options{By: by, Breakdown: bd, Loc: loc, TZName: opts.TZ}
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
