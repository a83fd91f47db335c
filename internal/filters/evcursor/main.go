// Package evcursor is the evcursor command: it re-numbers seq, passes what
// comes after a cursor (--after N, or a journalctl-style --state FILE for
// cron jobs), and checks a stream for gaps, repeats and restarts.
package evcursor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/filters/cursor"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/progress"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/internal/views/output"
	"github.com/evtools/evtools/pkg/jsonl"
)

func run(o *options, stdio cli.Stdio) (err error) {
	if err := o.validate(); err != nil {
		return cli.Usage(err)
	}
	if o.Commit != "" {
		real, err := cli.ResolveState(o.Commit, "nothing committed")
		if err != nil {
			return err
		}
		if _, err := os.Stat(real); errors.Is(err, fs.ErrNotExist) {
			return cli.NothingToCommit(name, o.Commit, real, "cursor", cursor.CheckHandover(real, nil) == nil, stdio)
		}
		return commit(o.Commit, real)
	}
	w, end, err := o.Flags.Events(name, stdio, output.Events, o.Files)
	if err != nil {
		return err
	}
	defer func() {
		if e := end(); err == nil && e != nil {
			err = e
		}
	}()
	j := &job{
		o:      o,
		out:    jsonl.NewWriter(w),
		stdout: stdio.Out,
		stdin:  stdio.In,
	}
	j.in = &jsonl.Input{Tool: name, Names: o.Files, Stdin: stdio.In, Stderr: stdio.Err, Out: j.out, Strict: o.Strict,
		Meter: progress.New(name, stdio, o.Files)}
	switch {
	case o.State != "":
		if !o.Strict {
			// A producer may be writing the last line at cron time: it is
			// not bad input yet, and the cursor stays before it.
			j.in.Growing = growingWindow
		}
		// First thing, before the lock (which may be busy) and before
		// anything can fail: withdraw the handover of an earlier --defer
		// run, so that the --commit after this run cannot commit it.
		if p, err := cursor.ResolveState(o.State); err == nil {
			cursor.RemoveHandover(p)
		}
		if discarded(stdio.Out) {
			return fmt.Errorf("%s: stdout is closed or /dev/null: nothing passed (the cursor would move past events nobody reads; to skip them on purpose, pipe them into cat >/dev/null)", o.State)
		}
		return j.state()
	case o.After != "":
		return j.after()
	case o.Check:
		return j.check()
	default:
		return j.renumber()
	}
}

func (o *options) validate() error {
	if o.Start != "" && (o.After != "" || o.State != "" || o.Check || o.Commit != "") {
		return errors.New("--start only goes with re-numbering, not with --after, --state, --check or --commit")
	}
	return o.StateFlags.Check(o.Input)
}

// growingWindow is how recently a log must have been modified for a last
// line without '\n' to count as still being written (--state only).
const growingWindow = 60 * time.Second

// job is one pass over the input, in one of the modes.
type job struct {
	o   *options
	in  *jsonl.Input
	out *jsonl.Writer
	ev  cursor.Event

	stdout any       // the output under out, to wait for its reader
	stdin  io.Reader // the process's stdin, read when no file is named
}

// finish turns the end of the input loop into the run's error. ok is true
// for a clean end: all input read, no bad line, output still open.
func (j *job) finish(err error) (ok bool, _ error) {
	switch {
	case err == nil:
	case jsonl.IsClosed(err), errors.Is(err, jsonl.ErrStrict), errors.As(err, new(*stop.Error)):
		return false, err // the consumer stopped, the line was reported, or a signal came
	default:
		return false, fmt.Errorf("writing output: %w", err)
	}
	if j.in.Trouble() {
		return false, cli.Status(cli.ExitError) // the bad lines are reported already
	}
	return true, nil
}

// scan scans rec and returns its seq, reporting a bad line or a seq that
// is not a non-negative integer; skip is true when the line cannot go on.
func (j *job) scan(rec jsonl.Record) (seq []byte, skip bool, err error) {
	if e := j.ev.Scan(rec.Data); e != nil {
		return nil, true, j.in.Bad(rec, e)
	}
	seq, e := j.ev.SeqValue()
	if e != nil {
		return nil, true, j.in.Bad(rec, escaped(e))
	}
	return seq, false, nil
}

func (j *job) renumber() error {
	start := []byte("1")
	if j.o.Start != "" {
		var err error
		if start, err = cursor.ParseSeqArg(j.o.Start); err != nil {
			return cli.Usage(fmt.Errorf("--start: %v", err))
		}
	}
	n := jsontext.NewCounter(start)
	// --strict stops at the first bad line: reading ahead would read (and
	// report on) input the serial loop never reaches.
	if workers := runtime.GOMAXPROCS(0); !j.o.Strict && workers > 1 && jsonl.RegularFiles(j.o.Files, j.stdin) {
		_, err := j.finish(j.renumberParallel(n, workers))
		return err
	}
	nl := []byte{'\n'}
	err := j.in.Each(func(rec jsonl.Record) error {
		if err := j.ev.Scan(rec.Data); err != nil {
			return j.in.Bad(rec, err)
		}
		if j.ev.Seq != nil {
			// A seq that is no integer is reported, and re-numbered all
			// the same: the output is what re-numbering promises.
			if _, err := cursor.ParseSeq(j.ev.Seq); err != nil {
				if err := j.in.Bad(rec, escaped(&cursor.SeqError{Raw: string(j.ev.Seq)})); err != nil {
					return err
				}
			}
		}
		cursor.WriteRenumbered(j.out, &j.ev, n.Bytes())
		j.out.Write(nl)
		n.Inc()
		return nil
	})
	_, err = j.finish(err)
	return err
}

func (j *job) after() error {
	n, err := cursor.ParseSeqArg(j.o.After)
	if err != nil {
		return cli.Usage(fmt.Errorf("--after: %v", err))
	}
	err = j.in.Each(func(rec jsonl.Record) error {
		seq, skip, err := j.scan(rec)
		if skip {
			return err
		}
		if cursor.CompareSeq(seq, n) > 0 {
			j.out.WriteLine(rec.Data)
		}
		return nil
	})
	_, err = j.finish(err)
	return err
}

func (j *job) check() error {
	var c cursor.Checker
	found := false
	err := j.in.Each(func(rec jsonl.Record) error {
		if err := j.ev.Scan(rec.Data); err != nil {
			return j.in.Bad(rec, err)
		}
		seq, err := j.ev.SeqValue()
		if err != nil {
			// A valid event with a bad seq still goes through: --check
			// passes the stream unchanged.
			if err := j.in.Bad(rec, escaped(err)); err != nil {
				return err
			}
		} else if msg := c.Next(seq); msg != "" {
			found = true
			j.in.Errorf("%s:%d: %s", rec.File, rec.Line, msg)
		}
		j.out.WriteLine(rec.Data)
		return nil
	})
	ok, err := j.finish(err)
	if ok && found {
		return cli.Status(cli.ExitFound) // the anomalies are reported already
	}
	return err
}

// state is --state FILE: it passes the events after the file's cursor
// and, once the run has ended cleanly, saves the last one passed as the
// cursor (with --defer, as the pending cursor that --commit makes
// current).
func (j *job) state() error {
	given := j.o.State
	path, err := cli.ResolveState(given, "nothing passed")
	if err != nil {
		return err
	}
	st, unlock, err := lockAndLoad(given, path, "nothing passed")
	if err != nil {
		return err
	}
	defer unlock()
	// A --defer run withdraws the pending cursor an earlier run left before
	// it passes anything, so that however it ends (a bad line, a consumer
	// gone, SIGKILL or SIGPIPE) "... && evcursor --commit" can only commit a
	// cursor this run saved at a clean end.
	if j.o.Defer && st.Pending != nil {
		st.Pending = nil
		if err := cursor.SaveState(path, st); err != nil {
			return fmt.Errorf("%s: withdrawing the pending cursor: %w", given, err)
		}
	}
	p, err := j.passNewer(st.Cursor)
	if err := j.endCleanly(err, p.count); err != nil {
		return err
	}
	if st.Cursor != nil && !p.found {
		j.in.Errorf("%s: cursor (%s) not found in the input: %s", given, term.Escape(st.Cursor.String()), newer(p.count))
	}
	if p.late > 0 {
		j.in.Errorf("%s: skipped %s older than the cursor, not before it when it was saved (a session copied in late?); see docs/evimport.md on importing incrementally", given, textfmt.Plural(int64(p.late), "event"))
	}
	return j.saveCursor(path, st, &p)
}

// passedEvents is what a --state run passed.
type passedEvents struct {
	last  []byte // the last event passed, copied: records are reused
	file  string // where it was read
	line  int
	count int
	// found tells whether the cursor was found; late counts the events
	// skipped before its line in the input it is in (see lateEvents).
	found bool
	late  int
}

// keep notes rec as the last event passed.
func (p *passedEvents) keep(rec jsonl.Record) {
	switch {
	case rec.Own:
		p.last = rec.Data // a huge line in its own buffer: kept, not copied
	case cap(p.last) > 1<<20:
		p.last = append([]byte(nil), rec.Data...) // let a huge one go
	default:
		p.last = append(p.last[:0], rec.Data...)
	}
	p.file, p.line = rec.File, rec.Line
	p.count++
}

// passNewer passes the events after the cursor c (nil: every event) and
// returns what it passed and the error that ended the input loop.
func (j *job) passNewer(c *cursor.Cursor) (passedEvents, error) {
	var p passedEvents
	res := cursor.NewResumer(c)
	// The events skipped so far in the input being read.
	skipped, inFile := 0, ""
	err := j.in.Each(func(rec jsonl.Record) error {
		_, skip, err := j.scan(rec)
		if skip {
			return err
		}
		if rec.File != inFile {
			inFile, skipped = rec.File, 0
		}
		found := res.Found()
		pass := res.Pass(&j.ev)
		if !found && res.Found() {
			p.late = lateEvents(skipped, c.Line)
		} else if !pass && !found {
			skipped++
		}
		if pass {
			j.out.WriteLine(rec.Data)
			p.keep(rec)
		}
		return nil
	})
	p.found = res.Found()
	return p, err
}

// endCleanly turns the end of the input loop (err) into nil when the run
// ended cleanly, its output read, and may save the cursor; else into the
// error to return, which says that the cursor did not move.
func (j *job) endCleanly(err error, passed int) error {
	ok, err := j.finish(err)
	if ok && passed > 0 {
		// Written is not read: wait until the reader of a pipe has read
		// it all, or has gone with some of it unread.
		jsonl.Waiting(func() { err = waitRead(j.stdout) })
		ok = err == nil
	}
	if ok {
		// A signal obeyed moves no cursor, however late it came; one that
		// comes after this point finds the cursor saved, and exit 0 says so.
		err = stop.Commit()
		ok = err == nil
	}
	if ok {
		return nil
	}
	if jsonl.IsClosed(err) {
		return err // a quiet end: the consumer stopped
	}
	// After what went wrong (reported already, or in err), say what it
	// means for the state file.
	return errors.Join(err, fmt.Errorf("%s: cursor not moved: the run did not end cleanly", j.o.State))
}

// saveCursor saves the last event passed as the cursor of the state file
// at path, which held st, or with --defer as the pending cursor, handed
// over to the --commit after. A state that would not change is not
// written.
func (j *job) saveCursor(path string, st *cursor.State, p *passedEvents) error {
	given := j.o.State
	next := *st
	if p.count > 0 {
		j.ev.Scan(p.last) // valid: it was scanned before
		c := cursor.CursorOf(&j.ev, p.file, p.line)
		if j.o.Defer {
			next.Pending = c
		} else {
			next.Cursor, next.Pending = c, nil
		}
	}
	if next.Equal(st) {
		if j.o.Defer && p.count == 0 {
			// nothing new: the file is not touched, but the --commit
			// after learns that nothing passed
			if err := cursor.WriteHandover(path, nil); err != nil {
				return fmt.Errorf("%s: telling --commit that nothing passed: %w", given, err)
			}
		}
		return nil // nothing new: the file is not touched
	}
	if err := cursor.SaveState(path, &next); err != nil {
		return fmt.Errorf("%s: saving the cursor: %w", given, err)
	}
	if next.Pending != nil {
		if err := cursor.WriteHandover(path, next.Pending); err != nil {
			return fmt.Errorf("%s: handing the pending cursor over to --commit: %w", given, err)
		}
	}
	return nil
}

// escaped keeps control and bidi characters of the data (a seq or run_id
// is raw JSON) from reaching a terminal raw.
func escaped(err error) error {
	if msg := err.Error(); term.Escape(msg) != msg {
		return errors.New(term.Escape(msg))
	}
	return err
}

// lateEvents is how many of the skipped events, older than the cursor and
// before its line, were not there when the cursor was saved on line
// savedLine of its input: a session that came in late and sorts before
// the cursor, which no rule can pass. The lines before it then bound the
// events that were (blank or bad lines make it an undercount, never a
// false alarm, as long as nothing before the cursor was removed).
func lateEvents(skipped, savedLine int) int {
	if savedLine <= 0 { // a cursor saved without its line
		return 0
	}
	return max(skipped-(savedLine-1), 0)
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
// run passed nothing) is success: there is nothing to lose. given is the
// state file as the user gave it, path the real file it names.
func commit(given, path string) error {
	st, unlock, err := lockAndLoad(given, path, "nothing committed")
	if err != nil {
		return err
	}
	defer unlock()
	if st.Pending == nil {
		cursor.RemoveHandover(path)
		return nil
	}
	// Only the run just before this commit, in the same shell, can have
	// handed its pending cursor over: one from an earlier run (whose report
	// failed) stays uncommitted, and its events pass again.
	if err := cursor.CheckHandover(path, st.Pending); err != nil {
		return fmt.Errorf("%s: pending cursor (%s) not committed: %v; the next run passes its events again", given, term.Escape(st.Pending.String()), err)
	}
	st.Cursor, st.Pending = st.Pending, nil
	if err := stop.Commit(); err != nil {
		return err
	}
	if err := cursor.SaveState(path, st); err != nil {
		return fmt.Errorf("%s: saving the cursor: %w", given, err)
	}
	cursor.RemoveHandover(path)
	return nil
}

// lockAndLoad locks the state file at path (cli.LockState) and reads it (see
// loadState), as every run that may change it does first. On an error
// nothing is left locked.
func lockAndLoad(given, path, notDone string) (st *cursor.State, unlock func(), err error) {
	if unlock, err = cli.LockState(name, given, path, notDone); err != nil {
		return nil, nil, err
	}
	if st, err = loadState(given, path); err != nil {
		unlock()
		return nil, nil, err
	}
	return st, unlock, nil
}

// loadState reads the state file at path (held locked); one that cannot
// be read is worded as every file that cannot be opened is, by the name
// the user gave.
func loadState(given, path string) (*cursor.State, error) {
	st, err := cursor.LoadState(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, jsonl.FileError(given, err)
	}
	if err != nil && given != path {
		return nil, fmt.Errorf("%s (%s)%s", given, path, strings.TrimPrefix(err.Error(), path))
	}
	return st, err
}

// discarded reports whether out is a closed stdout or /dev/null. The shell
// closes fd 1 with >&-, and Go reopens a closed fd 0-2 as /dev/null at
// start-up, so both look the same: fd 1 is /dev/null's device and inode.
// Events written there are used up unseen, which with --state moves the
// cursor past them for good.
func discarded(out any) bool {
	f, ok := out.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return true // fd 1 is not open at all
	}
	if runtime.GOOS == "windows" {
		return windowsNul(fi, term.IsTerminal(f))
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}
