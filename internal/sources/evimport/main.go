// Package evimport is the evimport command: it reads the session logs of
// coding agents (the table of sources below: Claude Code, OpenAI Codex,
// pi, Gemini CLI, Copilot CLI, opencode, Qwen Code) and writes them as envelope events in the run-log vocabulary, one run
// per prompt, with tokens counted once and costs that say where they come
// from. See docs/evimport.md, and docs/formats.md for each source's
// mapping.
//
// # Sources
//
// Each agent is a row of the table sources (sources.go), declared in the
// agent's own file (claude.go, codex.go, pi.go, gemini.go, copilot.go,
// opencode.go, qwen.go):
// its name (the --from word and the events' "source"), its title for
// messages, its places (its default folders, each with the environment
// variable that moves it, from which the folder walk, --help's list and
// the man page's ENVIRONMENT are made), the
// rule for its file names, how a record says it is of it (claims, tried
// surest first across every source, and document for a file that is one
// JSON value), what ties its files to one another (keys), how --follow
// names the session a file holds, its converter, and its known record
// types. The table's order is the sources' rank: the order of their
// sessions among events of the same time. Nothing else in the package
// names a source: the --from words and help, the "no known format"
// messages, the folder list of --help and the fuzz targets' dispatch are
// made from the table.
//
// A source declares what a session's files are:
//
//   - a file alone: no keys (pi), each file its own group;
//   - a file and its companions: companions lists the files that go with
//     a file named on the command line (Claude Code's subagents), and
//     keys (or sessionKey) the values that tie files together wherever
//     they were found (a sessionId): the files of a source that share a
//     key are one group, converted together; a file whose
//     logFile.parent is set joins the group of its first key's owner (a
//     Codex agent's rollout joins its parent's);
//   - the sessions of a database file (opencode's SQLite): database
//     lists them and exports each, with its subagents', as a log of its
//     rows, which the scan, the groups, the conversion and --follow see
//     as a file.
//
// # Records
//
// A source's lines are decoded into its record types, Go structs whose
// json tags name each member once: a table made from a type's tags at
// start (tableFor, table.go) reads a line's members into it, by the
// decoder of fields.go, which reads what the line's check found and
// reports a member of the wrong type as encoding/json would ("timestamp
// is a number, not a string"). An ev tag says what a member needs beyond
// its type (a word decoded once, a raw member's kinds, a copy). There is
// no decoder to write for a record type: its tags are read.
//
// Adding a source is its file (its row, record types and converter), its
// line in sources, fixtures in testdata, a fuzz target, and its docs.
package evimport

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/memory"
	"github.com/evtools/evtools/internal/core/prices"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/internal/views/output"
	"github.com/evtools/evtools/pkg/jsonl"
)

// now and getenv are the clock of --since 7d and the environment of the
// default folders, replaced by tests.
var (
	now    = time.Now
	getenv = os.Getenv
)

func (o *options) table() (*prices.Table, error) {
	t := prices.Default()
	for _, file := range o.Prices {
		data, err := os.ReadFile(file)
		if err == nil {
			err = t.Add(data)
		}
		if err != nil {
			return nil, cli.Usage(fmt.Errorf("--prices %s: %v", term.Escape(file), err))
		}
	}
	return t, nil
}

// mem is evimport's collector: what is held is a group of files and its
// events for each core, and the spool's buffer; the decoded lines are
// short-lived garbage, so under a soft limit the collector runs seldom
// (tracing what lives is what costs).
var mem = memory.Profile{Limit: 40 << 20, Percent: 200}

func run(o *options, stdio cli.Stdio) (err error) {
	defer closeDatabases()
	memory.Tune(mem)
	if err := o.validateState(); err != nil {
		return cli.Usage(err)
	}
	if o.Commit != "" {
		return commitState(o.Commit, stdio)
	}
	if stdio, err = o.checkInput(stdio); err != nil {
		return err
	}
	win, err := o.Range.Resolve(now())
	if err != nil {
		return cli.Usage(err)
	}
	table, err := o.table()
	if err != nil {
		return err
	}
	var sr *syncRun
	if o.State != "" || o.Archive != "" {
		if sr, err = o.startSync(stdio); err != nil {
			return err
		}
		defer sr.close()
	}
	w, end, err := o.output(stdio, sr)
	if err != nil {
		return err
	}
	out := jsonl.NewWriter(w)
	in := &jsonl.Input{Tool: name, Stdin: stdio.In, Stderr: stdio.Err, Out: out, Strict: o.Strict}
	if len(o.Files) == 0 && len(o.paths()) == 0 {
		// nothing to read is not an error (a machine with no agent yet),
		// but an empty output must not pass for "no sessions"
		fmt.Fprintf(stdio.Err, "%s: no agent's session folder found (%s); name files or folders, or - for standard input\n",
			name, strings.Join(defaultFolders(getenv), ", "))
	}
	if o.Follow {
		err := o.follow(in, out, win, func() *converter {
			c := newConverter(table)
			c.host = o.Host
			return c
		})
		if e := end(); err == nil {
			err = e
		}
		return err
	}
	return o.pass(in, out, end, win, table, sr, stdio)
}

// checkInput refuses what cannot be read as asked, and takes standard
// input when no FILE is named and it holds something.
func (o *options) checkInput(stdio cli.Stdio) (cli.Stdio, error) {
	if o.Archive != "" && o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.Follow && o.Format == output.HTML.Name {
		// The page is written when the input ends, which a follow never does.
		return stdio, cli.Usage(errors.New("--format html writes its page at the end of input: not with --follow, which has none"))
	}
	if o.Follow && slices.Contains(o.Files, "-") {
		// A pipe is read through once: there is no file to look at
		// again, and following nothing without a word hid that.
		return stdio, cli.Usage(errors.New("- (standard input) cannot be followed: name the session file or its folder, or read the pipe without --follow"))
	}
	if len(o.Files) == 0 {
		if r, ok := stdinHolds(stdio.In); ok {
			if o.Follow {
				// cat session.jsonl | evimport -F: following the
				// default folders instead dropped the pipe without a word
				return stdio, cli.Usage(errors.New("standard input cannot be followed, and --follow without a FILE follows the default folders: name the session file or its folder, or read the pipe without --follow"))
			}
			// cat session.jsonl | evimport: the pipe, as every tool
			// reads it, not the default folders
			o.Files, stdio.In = []string{"-"}, r
		}
	}
	return stdio, nil
}

// output opens where the events go: stdout as --format says, or the
// archive.
func (o *options) output(stdio cli.Stdio, sr *syncRun) (io.Writer, func() error, error) {
	if sr != nil && sr.arch != nil {
		// the events go into the archive, as JSON Lines, redacted if asked
		// (a line not ended at the end is an event lost: nothing kept)
		lines := jsonl.LineWriter(sr.arch.Add)
		w, end, err := o.Flags.Open(name, cli.Stdio{In: stdio.In, Out: lines, Err: stdio.Err}, output.JSONL, o.Files)
		return w, func() error {
			err := end()
			if e := lines.Close(); err == nil && e != nil {
				err = fmt.Errorf("--archive %s: %w: nothing of this sync kept", term.Escape(o.Archive), e)
			}
			return err
		}, err
	}
	return o.Flags.Events(name, stdio, output.Events, o.Files)
}

// pass converts every input once and writes the events in time order,
// then ends what is open: the output, and the state of an incremental
// import (sr).
func (o *options) pass(in *jsonl.Input, out *jsonl.Writer, end func() error, win window.Window, table *prices.Table, sr *syncRun, stdio cli.Stdio) (err error) {
	conv := newConverter(table)
	conv.host = o.Host
	conv.bad = func(r record, reason error) {
		if err := in.Bad(jsonl.Record{File: r.file, Line: r.line}, reason); err != nil && conv.stop == nil {
			conv.stop = err // --strict: what is converted so far is not written
		}
	}
	var sp spool
	defer sp.close()
	trouble, err := o.convert(in, conv, win, &sp)
	if err == nil {
		err = conv.stop
	}
	if err == nil {
		err = stop.Commit() // nothing is written after a signal; after this, exit 0
	}
	if err == nil {
		err = sp.writeTo(out)
	}
	if err == nil {
		err = out.Flush()
	}
	if e := end(); err == nil {
		err = e
	}
	if err == nil && sr != nil {
		err = sr.finish(o, stdio)
	}
	if jsonl.IsClosed(err) {
		return err
	}
	if conv.stop == nil {
		// of what is written: after --strict stopped, nothing is
		conv.report(stdio.Err)
	}
	if err == nil && (trouble || in.Trouble()) {
		return cli.Status(cli.ExitError)
	}
	return err
}

// convert reads every input, converts it and spools its sessions. The
// files are first scanned on every core for their source and what ties
// them to others (scanAll); then each group of files that must be
// converted together (a pi file alone, a Claude Code session's files:
// its subagents', its copies, the files that share a sessionId; a Codex
// rollout with its spawned agents'; a Gemini CLI session's chats) is read
// whole and converted by a worker, so that what is held at a time is a
// group for each core.
// The groups are taken back, their bad lines and events, in the order of
// their first file, so that the output and stderr are those of one loop.
// Standard input, which can be read once, is read first and held.
// trouble is an input that could not be read or is in no known format.
func (o *options) convert(in *jsonl.Input, conv *converter, win window.Window, sp *spool) (trouble bool, err error) {
	var empty func(string)
	if len(o.Files) > 0 {
		// a folder named by mistake must not pass for one of no
		// sessions; the default folders may well have none yet
		empty = func(p string) {
			in.Errorf("%s: no session file of %s in this folder", term.Escape(p), sourceTitles("or"))
		}
	}
	files := expand(o.paths(), o.From, win.Since, func(p string, err error) {
		in.Errorf("%v", jsonl.FileError(p, err))
		trouble = true
	}, empty, func(p, what string) {
		in.Errorf("%s: not a regular file (%s), skipped", term.Escape(p), what)
	})
	for i, f := range files {
		f.index = i
		if f.name == "-" {
			// Standard input can be read once: it is read here, whole,
			// and kept (as a pipe named as a file is, by the scan), its
			// lines reported on in their place among the files'.
			jsonl.Waiting(func() { f.kept, f.keptErr = jsonl.ReadAll(jsonl.StdinName, in.Stdin) })
			f.once = true
		}
	}
	scan := files
	if o.inc != nil {
		// a file as the state has it is not opened
		if scan, err = o.inc.restore(files); err != nil {
			return trouble, err
		}
	}
	o.scanAll(scan, false)
	scanned()
	err = o.convertGroups(in, conv, win, sp, o.groups(files), &trouble, false)
	if err == errRescan {
		// A line named a session the light scan had not found in its
		// file (one only in its middle, two sessionIds in one line): the
		// groups may be wrong. All is converted again from an exact
		// scan; nothing was reported.
		sp.close()
		*sp = spool{}
		for _, f := range files {
			f.keys, f.seen, f.ids = nil, nil, nil
		}
		o.scanAll(files, true)
		scanned()
		err = o.convertGroups(in, conv, win, sp, o.groups(files), &trouble, true)
	}
	return trouble, err
}

// groups are the groups of files to convert: all of them, or in an
// incremental import those with a file that changed.
func (o *options) groups(files []*logFile) [][]*logFile {
	gs := groups(files)
	if o.inc != nil {
		gs = dirtyGroups(gs)
	}
	return gs
}

// scanned is called once the files are scanned, before they are
// converted: tests change a file there, as an agent writing its log
// meanwhile does.
var scanned = func() {}

// errRescan ends a round of conversion whose groups may be wrong.
var errRescan = errors.New("the files are to be scanned again")

// convertGroups converts the groups on every core and takes them back in
// order (take). The workers' counts are added to conv's when all is
// taken. exact: the files were scanned exactly, and a session not found
// by the scan is one written to a file since (an agent writing its
// log): converted in the group found, not a reason to scan again. Not
// exact, with a file among them whose every line names its session
// (source.lineKeys: a Claude Code file), what is wrong with the
// files is said once all is taken: a group taken last may show that the
// groups were wrong (errRescan), and what the groups of an exact scan
// take first is to be said first (--strict stops there).
func (o *options) convertGroups(in *jsonl.Input, conv *converter, win window.Window, sp *spool, gs [][]*logFile, trouble *bool, exact bool) (err error) {
	var held *[]note
	if !exact && slices.ContainsFunc(gs, func(g []*logFile) bool { return lineKeys(g[0]) }) {
		held = new([]note)
	}
	var workers []*converter
	pool := jsonl.NewOrdered(runtime.GOMAXPROCS(0), 4, 4<<20,
		func() *converter {
			w := newConverter(conv.table)
			w.host = conv.host
			workers = append(workers, w)
			return w
		},
		func(w *converter, j *convJob) { j.convert(w, win, o.inc) },
		func(j *convJob) error {
			j.missed = j.missed && !exact
			if o.inc != nil && !j.missed {
				o.inc.take(j.up, j.changed)
			}
			if j.take(in, conv, sp, held) {
				*trouble = true
			}
			return j.err
		})
	pool.Idle = true // nothing is written while the workers convert
	defer func() {
		pool.Close()
		if err != nil {
			// a round to do again, or a run stopped (--strict): the
			// workers may have converted groups never taken
			return
		}
		for _, w := range workers {
			conv.merge(w)
		}
	}()
	for _, group := range gs {
		j := pool.Next()
		j.files = group
		size := 0
		for _, f := range group {
			size += f.size
		}
		if err = pool.Send(size); err != nil {
			break
		}
	}
	if err == nil {
		err = pool.Drain()
	}
	if held == nil || err == errRescan {
		return err
	}
	// what the groups taken held is said, those before an error too (the
	// spool could not be written), as they were taken
	if say(in, conv, *held) {
		*trouble = true
	}
	return cmp.Or(err, conv.stop)
}

// convJob is a group of files to convert (convert), and what came of it:
// the lines of its events, and what is to be reported of its files, in
// order.
type convJob struct {
	files  []*logFile
	out    spool
	notes  []note
	err    error // what ended the taking (an output error, errRescan)
	missed bool  // a line named a session its file's scan did not find
	// an incremental import's: what was written of the sessions, and
	// those whose runs written before changed since
	up      map[string]*sessionMark
	changed []string
}

// note is one thing a job reports: a bad line (r and reason), or a
// message about a file (msg) that makes the exit status say so.
type note struct {
	file   string // what it is about, as its lines are named
	r      record
	reason error
	msg    string
}

// convert reads the job's files whole and converts them with w, a
// converter of the worker's own: its counts are added up at the end
// (merge), what is wrong with the files is reported when the job is
// taken.
func (j *convJob) convert(w *converter, win window.Window, inc *incremental) {
	bad := func(rec jsonl.Record, reason error) error {
		j.notes = append(j.notes, note{file: rec.File, r: record{file: rec.File, line: rec.Line}, reason: reason})
		return nil
	}
	w.bad = func(r record, reason error) { j.notes = append(j.notes, note{file: r.file, r: r, reason: reason}) }
	var known []*logFile
	for _, f := range j.files {
		if f.wrong != "" {
			j.notes = append(j.notes, note{msg: term.Escape(f.label()) + ": " + f.wrong, file: f.label()})
			continue
		}
		data, err := f.kept, f.keptErr
		switch {
		case f.db != nil:
			data, err = w.readSession(f)
		case !f.once:
			data, err = w.readFile(f.name, f.size)
		}
		if inc != nil {
			data = inc.written(f, data)
		}
		if err != nil && len(data) == 0 {
			j.notes = append(j.notes, note{msg: err.Error(), file: f.label()})
			continue
		}
		// a file in no known format is checked line by line here:
		// nothing decodes it
		before := len(j.notes)
		read(wholeFile(f.label(), data, bad), bad, f, true, f.source == "", nil)
		// One rule for a file that is no agent's log, be it JSON or
		// text: it is named once, with why, and skipped (status 2),
		// its lines not reported one by one.
		var firstBad *note
		if len(j.notes) > before {
			firstBad = &j.notes[before]
		}
		unknown := noKnownFormat(f, firstBad)
		if unknown != "" {
			j.notes = j.notes[:before]
		} else if len(f.records) > 0 || f.document != nil {
			known = append(known, f) // an empty one is skipped quietly
		}
		if err != nil {
			j.notes = append(j.notes, note{msg: err.Error(), file: f.label()})
		}
		if unknown != "" {
			j.notes = append(j.notes, note{msg: term.Escape(f.label()) + ": " + unknown, file: f.label()})
			f.records, f.document = nil, nil
		}
	}
	var ss []*session
	if len(known) > 0 {
		ss = w.sessions(known)
		for _, f := range known {
			f.records, f.document = nil, nil
		}
	}
	j.sortNotes()
	j.missed, w.missed = w.missed, false
	j.out.inMemory = true
	spent := make([][]event, len(ss)) // add lets a session's events go
	for i, s := range ss {
		spent[i] = s.events
	}
	write := ss
	if inc != nil {
		j.up, j.changed = map[string]*sessionMark{}, nil
		write = inc.keep(ss, j.files, j.up, &j.changed)
	}
	for _, s := range write {
		j.out.add(s, s.at, win) // in memory: no error
	}
	for _, events := range spent {
		if cap(events) > cap(w.spare) {
			clear(events)
			w.spare = events[:0]
		}
	}
	w.payloads.reset() // the events are lines in j.out now
	w.arena = w.arena[:0]
}

// sortNotes puts the notes in the order of the files and of their
// lines, a file's message after its lines, as reading the files in turn
// would find them: a file's first line and a line holding a NUL byte are
// found bad as the file is read, the others as they are decoded, after
// the group's files are all read.
func (j *convJob) sortNotes() {
	at := func(n note) (file, line int) {
		line = n.r.line
		if n.msg != "" {
			line = math.MaxInt
		}
		for i, f := range j.files {
			if f.label() == n.file {
				return i, line
			}
		}
		return len(j.files), line
	}
	slices.SortStableFunc(j.notes, func(a, b note) int {
		af, al := at(a)
		bf, bl := at(b)
		return cmp.Or(cmp.Compare(af, bf), cmp.Compare(al, bl))
	})
}

// take reports what the job found wrong, or adds it to held when set,
// and spools its events; trouble is a file that could not be read or is
// in no known format. A job whose groups may be wrong (missed) ends the
// round instead, reporting nothing.
func (j *convJob) take(in *jsonl.Input, conv *converter, sp *spool, held *[]note) (trouble bool) {
	if j.missed {
		j.err = errRescan
		return false
	}
	if held != nil {
		*held = append(*held, j.notes...)
	} else {
		trouble = say(in, conv, j.notes)
	}
	err := conv.stop
	if err == nil {
		err = sp.append(&j.out)
	}
	mem := j.out.mem[:0]
	if cap(mem) > 4<<20 {
		mem = nil // a large group's: not kept for the next
	}
	*j = convJob{out: spool{mem: mem, segs: j.out.segs[:0]}, notes: j.notes[:0], err: err}
	return trouble
}

// say reports notes, up to the bad line that stops the run (--strict);
// trouble is a file that could not be read or is in no known format.
func say(in *jsonl.Input, conv *converter, notes []note) (trouble bool) {
	for _, n := range notes {
		if n.msg != "" {
			in.Errorf("%s", n.msg)
			trouble = true
			continue
		}
		conv.bad(n.r, n.reason)
		if conv.stop != nil {
			break // --strict: nothing after the first bad line
		}
	}
	return trouble
}

// stdinHolds reports whether standard input, when no file is named, is
// what to read: it is no terminal and holds a byte (r reads it all, that
// byte included). An empty one is none, so that evimport run by cron, CI
// or with </dev/null reads the default folders, as a terminal's user
// gets them.
func stdinHolds(stdin io.Reader) (r io.Reader, ok bool) {
	if stdin == nil || term.IsTerminal(stdin) {
		return nil, false
	}
	buf := make([]byte, 1)
	var n int
	var err error
	jsonl.Waiting(func() {
		for n == 0 && err == nil {
			n, err = stdin.Read(buf)
		}
	})
	if n == 0 {
		// at its end, or not open at all (EBADF): nothing piped
		return nil, false
	}
	return io.MultiReader(bytes.NewReader(buf[:n]), stdin), true
}

// paths are the files and folders to read: those named, else the default
// folders that exist (and a source's database file, opencode's, which
// is its default).
func (o *options) paths() []string {
	if len(o.Files) > 0 {
		return o.Files
	}
	var paths []string
	for _, dir := range defaultFolders(getenv) {
		if fi, err := os.Stat(dir); err == nil && (fi.IsDir() || fi.Mode().IsRegular() && databaseOf(dir) != nil) {
			paths = append(paths, dir)
		}
	}
	return paths
}

// sourceOf sets f's source, as --from says or as found from its content;
// false when it is in no known format, or, under --from, when its first
// records are another source's (or envelope events): then f.wrong says
// so. Read as the source named, such a file gives nothing but records
// of unknown types, which is no error: the user would never know.
func (o *options) sourceOf(f *logFile) bool {
	f.source, f.wrong = o.From, ""
	if f.source == "auto" {
		f.source = detect(f)
	} else if l := looks(f, o.From); l != "" && l != o.From {
		f.source = ""
		f.wrong = fmt.Sprintf("--from %s, but this looks like %s; skipped", o.From, looksLike(l))
	}
	return f.source != ""
}

// noKnownFormat is the one rule, for a pass and for --follow, for a file
// read whose records no source claims (f.source ""): the message that
// skips it, in no known format and why, or "" when it is of a source or
// holds nothing (an empty file is skipped quietly). firstBad is the
// file's first bad line, if any: a file of which no line is JSON is
// named once with it, its lines not reported one by one.
func noKnownFormat(f *logFile, firstBad *note) string {
	var why string
	switch {
	case len(f.records) == 0 && f.document == nil && firstBad != nil:
		why = fmt.Sprintf("not JSON: line %d: %v", firstBad.r.line, firstBad.reason)
	case len(f.records) == 0 && f.document == nil, f.source != "":
		return ""
	case looks(f, "") == envelope:
		why = looksLike(envelope)
	default:
		why = noSessionLog()
	}
	return "in no known format (" + why + "), skipped"
}

// lineKeys reports whether f is of a source whose every line names its
// session (source.lineKeys).
func lineKeys(f *logFile) bool {
	src := sourceNamed(f.source)
	return src != nil && src.lineKeys
}

// sessions is the conversion a pass and --follow share: files, their
// records read and their sources found, become the sessions they hold,
// the sources in the table's order. A pass calls it on each group of
// files (one source's); --follow on the files of the sessions that grew
// since its last round, every round.
func (c *converter) sessions(files []*logFile) []*session {
	ss := c.sourceSessions(files)
	for _, s := range ss {
		s.host = c.host
	}
	return ss
}

// sourceSessions is sessions, each source's files converted by it.
func (c *converter) sourceSessions(files []*logFile) []*session {
	var sessions []*session
	for _, src := range sources {
		var of []*logFile
		for _, f := range files {
			if f.source == src.name {
				of = append(of, f)
			}
		}
		if len(of) > 0 {
			sessions = append(sessions, c.convertSource(src, of)...)
		}
	}
	return sessions
}
