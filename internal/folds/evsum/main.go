// Package evsum is the evsum command: summaries of agent runs (outcomes,
// tokens, cost, time, tools, errors, broken invariants) from envelope
// events of either kind vocabulary, for people (a table) and for cron and
// pipes (JSON Lines, JSON, Markdown, CSV).
package evsum

import (
	"bytes"
	"time"

	"github.com/evtools/evtools/internal/core/memory"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/progress"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/pkg/jsonl"
)

func run(opts *options, stdio cli.Stdio) error {
	memory.Tune(mem)
	set, err := resolve(opts, stdio)
	if err != nil {
		return cli.Usage(err)
	}
	var held *heldWriter
	if set.live && term.IsTerminal(stdio.Err) {
		// stderr is the table's terminal too: a message written while a
		// frame is up would be redrawn over.
		// Messages are made safe before they are held: the redraw
		// writes its own sequences around them.
		held = &heldWriter{w: term.Raw(stdio.Err)}
		stdio.Err = term.SafeOver(held)
	}
	in := &jsonl.Input{Tool: name, Names: opts.Files, Stdin: stdio.In, Stderr: stdio.Err, Out: nil, Strict: opts.Strict}
	if !set.live { // a live table is the progress
		// Out nil: nothing is written on stdout before the input ends.
		in.Meter = progress.New(name, cli.Stdio{In: stdio.In, Err: stdio.Err}, opts.Files)
	}
	r := &report{opts: opts, set: &set, stdio: stdio}
	var st *summary.State
	overwrite := false // the final table goes over a live frame
	if set.states {
		st, err = mergeStates(in)
		if st != nil {
			st.SetOrder(set.order) // the summarised state has it from the start
		}
	} else {
		st, overwrite, err = r.summarise(in, held)
	}
	if err == nil {
		// A report (or a state) is not written after a signal: its input
		// may have been cut short by whatever sent it. One that comes
		// after this point finds the report written, and exit 0 says so.
		err = stop.Commit()
	}
	if err != nil {
		return err
	}
	w := stdio.Out
	if set.format != "table" {
		// JSON, Markdown, CSV or HTML on a terminal: the data's control
		// characters escaped, as the table escapes its cells.
		w = term.SafeFor(w)
	}
	out := jsonl.NewWriter(w)
	status, err := r.write(out, st, overwrite)
	if err != nil {
		return err
	}
	if e := out.Flush(); e != nil {
		return e
	}
	if in.Trouble() {
		return cli.Status(cli.ExitError) // the bad lines are reported already
	}
	return status
}

// mem is evsum's collector: its state is long-lived and allocation
// after it is built is slight, so a tight heap goal (20%) costs little
// time and keeps 100,000 runs well inside 64 MB; the floor is its size
// weighed against the memory its 20% adds to the goal
// (docs/performance.md).
var mem = memory.Profile{Percent: 20, Floor: 16 << 20}

// report is a run's settings at work: the columns and the table it
// writes, on the streams it was given.
type report struct {
	opts  *options
	set   *settings
	stdio cli.Stdio
	cols  []col // chosen before the input is read, but with --merge
	// kept is the live table's layout, which its frames and the final
	// table over the last of them keep.
	kept keptLayout
	// keep, when not nil, keeps the report of an archive's segments
	// (cache.go) and returns the state that writes it.
	keep func(*summary.State) *summary.State
}

// spec is the table (or md, or html) to write of st: its columns, and the
// width to fit them in.
func (r *report) spec(st *summary.State) (tableSpec, *cellCtx, error) {
	names := keyNames(st)
	cx := &cellCtx{loc: st.Options().Loc, names: names, inputs: r.opts.Files, sorted: r.set.order.Sort != nil}
	c := r.cols
	if c == nil {
		c = defaultColumns(names, st.Options().By)
		if r.opts.Columns != "" {
			var err error
			if c, err = parseColumns(r.opts.Columns, names, st.Options().By); err != nil {
				return tableSpec{}, nil, err
			}
			if err := labelColumn(r.opts.Columns, c, st); err != nil {
				return tableSpec{}, nil, err
			}
		}
		r.cols = c
	}
	if r.opts.Columns == "" {
		c = shownColumns(c, st)
	}
	t := tableSpec{cols: c, fit: r.set.fitted, color: r.set.color, chosen: r.opts.Columns != ""}
	if r.set.fitted {
		t.width = r.opts.Width
		if t.width <= 0 {
			t.width = term.Width(r.stdio.Out)
		}
	}
	return t, cx, nil
}

// mergeStates reads partial states (--merge) into one state.
func mergeStates(in *jsonl.Input) (*summary.State, error) {
	m := summary.NewMerger()
	// A file's lines are counted at its end against its headers: a
	// line dropped or added refuses the file's state.
	endFile := func() {
		if e := m.EndFile(); e != nil {
			in.Errorf("%v", e)
		}
	}
	err := in.Each(func(rec jsonl.Record) error {
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
		return nil, cli.Status(cli.ExitError)
	}
	if m.State == nil {
		return summary.New(summary.Options{}), err
	}
	return m.State, err
}

// summarise reads events into a state: redrawn live, on several cores,
// or in one pass. overwrite says the final table goes over a live frame.
func (r *report) summarise(in *jsonl.Input, held *heldWriter) (st *summary.State, overwrite bool, err error) {
	st = summary.New(r.set.summary)
	st.SetOrder(r.set.order)
	// The columns are known before the input is read, but with --merge,
	// whose keys come from the states.
	if _, _, err := r.spec(st); err != nil {
		return nil, false, cli.Usage(err)
	}
	if r.set.live {
		lv := startLive(st, r.stdio.Out, held, r.terminalWidth, r.frame)
		err = in.Each(func(rec jsonl.Record) error {
			if e := lv.add(rec.Data); e != nil {
				return in.Bad(rec, e)
			}
			return nil
		})
		return st, lv.finish(), err
	}
	if c := openCache(r.opts, r.set.summary); c != nil {
		// an archive's segments read once for each question (cache.go)
		if st, err := r.summariseArchive(in, c); err != errNoSegments {
			return st, false, err
		}
	}
	// on several cores, as one pass (parallel.go), or in one pass
	st, err = r.fold(in, r.set.summary)
	return st, false, err
}

// terminalWidth is the terminal's own width, whatever --width says: where
// its lines wrap.
func (r *report) terminalWidth() int { return term.Width(r.stdio.Out) }

// frame is a live frame of the table.
func (r *report) frame(st *summary.State) []byte {
	if r.opts.Running > 0 {
		st.SetRunning(time.Now().Add(-r.opts.Running))
	}
	t, cx, _ := r.spec(st)
	t.height, t.frame, t.keep = term.Height(r.stdio.Out), true, &r.kept
	var b bytes.Buffer
	writeTable(&b, st, cx, t)
	return b.Bytes()
}

// write writes st as the settings say: a partial state (--merge --partial
// merges states into one: a Hadoop combiner, or a tree of merges), or the
// report. The status is --check's.
func (r *report) write(out *jsonl.Writer, st *summary.State, overwrite bool) (status error, err error) {
	if r.set.partial {
		return nil, st.WritePartial(out)
	}
	if r.opts.Running > 0 {
		// Still going: its last event is recent by the clock.
		st.SetRunning(time.Now().Add(-r.opts.Running))
	}
	if r.keep != nil {
		st = r.keep(st)
	}
	t, cx, err := r.spec(st)
	if err != nil {
		return nil, cli.Usage(err)
	}
	if overwrite {
		// Line by line over the last frame, and what is left of it
		// below cleared.
		t.keep = &r.kept
		if ow := (&overwriter{w: out}); !writeNoEvents(ow, st) {
			writeTable(ow, st, cx, t)
		}
		out.WriteString(term.EraseBelow)
	} else if err := write(out, r.set.format, st, cx, t, r.set.tty); err != nil {
		return nil, err
	}
	if r.opts.Check && st.HasProblems() {
		status = cli.Status(cli.ExitFound) // the problems are in the report
	}
	return status, nil
}

// summaryOptions turns the flags into summary options; an error is the
// user's (a usage error).
func summaryOptions(opts *options) (summary.Options, error) {
	var o summary.Options
	by, err := summary.ParseBy(opts.By)
	if err != nil {
		return o, err
	}
	w, err := opts.Range.Resolve(time.Now())
	if err != nil {
		return o, err
	}
	bd, err := summary.ParseBreakdown(opts.Breakdown)
	if err != nil {
		return o, err
	}
	return summary.Options{By: by, Breakdown: bd, Loc: w.Loc, TZName: w.TZName, Since: w.Since, Until: w.Until,
		WindowOn: w.On(), SinceArg: w.SinceArg, UntilArg: w.UntilArg}, nil
}
