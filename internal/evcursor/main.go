package evcursor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/cursor"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Main runs evcursor with args and returns the exit status.
func Main(args []string, stdio cli.Stdio) int {
	var o options
	if code, done := cli.Parse(help, args, stdio, &o); done {
		return code
	}
	if err := o.validate(); err != nil {
		return cli.Usage(name, stdio.Err, err)
	}
	if o.Commit != "" {
		if _, err := os.Stat(o.Commit); errors.Is(err, fs.ErrNotExist) {
			// Nothing was ever saved there (an empty first run, or a typo):
			// say so, and leave no lock file behind.
			fmt.Fprintf(stdio.Err, "%s: %s: no state file, nothing to commit\n", name, cli.Escape(o.Commit))
			return cli.ExitOK
		}
		return cli.Report(name, stdio.Err, commit(o.Commit))
	}
	r := &run{
		o:   &o,
		out: jsonl.NewWriter(stdio.Out),
	}
	r.in = &jsonl.Input{Tool: name, Names: o.Files, Stdin: stdio.In, Stderr: stdio.Err, Out: r.out, Strict: o.Strict}
	switch {
	case o.State != "":
		return r.state()
	case o.After != "":
		return r.after()
	case o.Check:
		return r.check()
	default:
		return r.renumber()
	}
}

func (o *options) validate() error {
	if o.Start != "" && (o.After != "" || o.State != "" || o.Check || o.Commit != "") {
		return errors.New("--start only goes with re-numbering, not with --after, --state, --check or --commit")
	}
	if o.Defer && o.State == "" {
		return errors.New("--defer needs --state FILE")
	}
	if o.Commit != "" && len(o.Files) > 0 {
		return errors.New("--commit FILE reads no input: remove the FILE arguments")
	}
	if o.Commit != "" && o.Strict {
		return errors.New("--strict does not go with --commit")
	}
	return nil
}

type run struct {
	o   *options
	in  *jsonl.Input
	out *jsonl.Writer
	ev  cursor.Event
}

// finish turns the end of the input loop into an exit status. ok is true
// for a clean end: all input read, no bad line, output still open.
func (r *run) finish(err error) (code int, ok bool) {
	switch {
	case err == nil:
	case jsonl.IsClosed(err):
		return cli.ExitOK, false // the consumer stopped: end quietly
	case errors.Is(err, jsonl.ErrStrict):
		return cli.ExitError, false // the line was reported
	default:
		return cli.Report(name, r.in.Stderr, fmt.Errorf("writing output: %w", err)), false
	}
	if r.in.Trouble() {
		return cli.ExitError, false
	}
	return cli.ExitOK, true
}

// scan scans rec and returns its seq, reporting a bad line or a seq that
// is not a non-negative integer; skip is true when the line cannot go on.
func (r *run) scan(rec jsonl.Record) (seq []byte, skip bool, err error) {
	if e := r.ev.Scan(rec.Data); e != nil {
		return nil, true, r.in.Bad(rec, e)
	}
	seq, e := r.ev.SeqValue()
	if e != nil {
		return nil, true, r.in.Bad(rec, escaped(e))
	}
	return seq, false, nil
}

func (r *run) renumber() int {
	start := []byte("1")
	if r.o.Start != "" {
		var err error
		if start, err = cursor.ParseSeqArg(r.o.Start); err != nil {
			return cli.Report(name, r.in.Stderr, fmt.Errorf("--start: %v", err))
		}
	}
	n := cursor.NewCounter(start)
	nl := []byte{'\n'}
	err := r.in.Each(func(rec jsonl.Record) error {
		if err := r.ev.Scan(rec.Data); err != nil {
			return r.in.Bad(rec, err)
		}
		if r.ev.Seq != nil {
			// A seq that is no integer is reported, and re-numbered all
			// the same: the output is what re-numbering promises.
			if _, err := cursor.ParseSeq(r.ev.Seq); err != nil {
				if err := r.in.Bad(rec, escaped(&cursor.SeqError{Raw: string(r.ev.Seq)})); err != nil {
					return err
				}
			}
		}
		cursor.WriteRenumbered(r.out, &r.ev, n.Bytes())
		r.out.Write(nl)
		n.Inc()
		return nil
	})
	code, _ := r.finish(err)
	return code
}

func (r *run) after() int {
	n, err := cursor.ParseSeqArg(r.o.After)
	if err != nil {
		return cli.Report(name, r.in.Stderr, fmt.Errorf("--after: %v", err))
	}
	err = r.in.Each(func(rec jsonl.Record) error {
		seq, skip, err := r.scan(rec)
		if skip {
			return err
		}
		if cursor.CompareSeq(seq, n) > 0 {
			r.out.WriteLine(rec.Data)
		}
		return nil
	})
	code, _ := r.finish(err)
	return code
}

func (r *run) check() int {
	var c cursor.Checker
	found := false
	err := r.in.Each(func(rec jsonl.Record) error {
		if err := r.ev.Scan(rec.Data); err != nil {
			return r.in.Bad(rec, err)
		}
		seq, err := r.ev.SeqValue()
		if err != nil {
			// A valid event with a bad seq still goes through: --check
			// passes the stream unchanged.
			if err := r.in.Bad(rec, escaped(err)); err != nil {
				return err
			}
		} else if msg := c.Next(seq); msg != "" {
			found = true
			r.in.Errorf("%s:%d: %s", rec.File, rec.Line, msg)
		}
		r.out.WriteLine(rec.Data)
		return nil
	})
	code, ok := r.finish(err)
	if ok && found {
		return cli.ExitFound
	}
	return code
}

func (r *run) state() int {
	path := r.o.State
	unlock, err := cursor.Lock(path)
	if errors.Is(err, cursor.ErrBusy) {
		return cli.Report(name, r.in.Stderr, cli.Errorf(cli.ExitBusy,
			"%s: %v (%s.lock is held): nothing passed", path, err, path))
	}
	if err != nil {
		return cli.Report(name, r.in.Stderr, fmt.Errorf("%s: cannot lock: %w", path, err))
	}
	defer unlock()
	cursor.RemoveStaleTemps(path)
	st, err := cursor.LoadState(path)
	if err != nil {
		return cli.Report(name, r.in.Stderr, err)
	}
	// A --defer run withdraws the pending cursor an earlier run left before
	// it passes anything, so that however it ends (a bad line, a consumer
	// gone, SIGKILL or SIGPIPE) "... && evcursor --commit" can only commit a
	// cursor this run saved at a clean end.
	if r.o.Defer && st.Pending != nil {
		st.Pending = nil
		if err := cursor.SaveState(path, st); err != nil {
			return cli.Report(name, r.in.Stderr, fmt.Errorf("%s: withdrawing the pending cursor: %w", path, err))
		}
	}
	res := cursor.NewResumer(st.Cursor)
	var (
		last     []byte // the last event passed, copied: records are reused
		lastFile string
		lastLine int
		passed   int
	)
	err = r.in.Each(func(rec jsonl.Record) error {
		_, skip, err := r.scan(rec)
		if skip {
			return err
		}
		if res.Pass(&r.ev) {
			r.out.WriteLine(rec.Data)
			last = append(last[:0], rec.Data...)
			lastFile, lastLine = rec.File, rec.Line
			passed++
		}
		return nil
	})
	code, ok := r.finish(err)
	if !ok {
		if code != cli.ExitOK {
			fmt.Fprintf(r.in.Stderr, "%s: %s: cursor not moved: the run did not end cleanly\n", name, path)
		}
		return code
	}
	if st.Cursor != nil && !res.Found() {
		r.in.Errorf("%s: cursor (%s) not found in the input: %s", path, cli.Escape(st.Cursor.String()), newer(passed))
	}
	next := *st
	if passed > 0 {
		r.ev.Scan(last) // valid: it was scanned before
		c := cursor.CursorOf(&r.ev, lastFile, lastLine)
		if r.o.Defer {
			next.Pending = c
		} else {
			next.Cursor, next.Pending = c, nil
		}
	}
	if next.Equal(st) {
		return cli.ExitOK // nothing new: the file is not touched
	}
	if err := cursor.SaveState(path, &next); err != nil {
		return cli.Report(name, r.in.Stderr, fmt.Errorf("%s: saving the cursor: %w", path, err))
	}
	return cli.ExitOK
}

// escaped keeps control and bidi characters of the data (a seq or run_id
// is raw JSON) from reaching a terminal raw.
func escaped(err error) error {
	if msg := err.Error(); cli.Escape(msg) != msg {
		return errors.New(cli.Escape(msg))
	}
	return err
}

func newer(n int) string {
	switch n {
	case 0:
		return "no event is newer"
	case 1:
		return "passed the 1 event newer than it"
	}
	return fmt.Sprintf("passed the %d events newer than it", n)
}

// commit makes the pending cursor current. Nothing pending (the deferred
// run passed nothing) is success: there is nothing to lose.
func commit(path string) error {
	unlock, err := cursor.Lock(path)
	if errors.Is(err, cursor.ErrBusy) {
		return cli.Errorf(cli.ExitBusy, "%s: %v (%s.lock is held): nothing committed", path, err, path)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot lock: %w", path, err)
	}
	defer unlock()
	cursor.RemoveStaleTemps(path)
	st, err := cursor.LoadState(path)
	if err != nil {
		return err
	}
	if st.Pending == nil {
		return nil
	}
	st.Cursor, st.Pending = st.Pending, nil
	if err := cursor.SaveState(path, st); err != nil {
		return fmt.Errorf("%s: saving the cursor: %w", path, err)
	}
	return nil
}
