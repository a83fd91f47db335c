// Package evimport is the evimport command: it reads the session logs of
// Claude Code, OpenAI Codex, pi and Gemini CLI and writes them as envelope
// events in the run-log vocabulary, one run per prompt, with tokens
// counted once and costs that say where they come from. See
// docs/evimport.md, and docs/formats.md for each source's mapping.
package evimport

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/prices"
	"github.com/evtools/evtools/internal/stop"
	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/internal/term"
	"github.com/evtools/evtools/pkg/jsonl"
)

// now and getenv are the clock of --since 7d and the environment of the
// default folders, replaced by tests.
var (
	now    = time.Now
	getenv = os.Getenv
)

// Main runs evimport with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

// window is the --since/--until range; a zero end is open.
type window struct{ since, until time.Time }

func (o *options) window() (window, error) {
	loc, err := time.LoadLocation(o.TZ)
	if err != nil {
		return window{}, cli.Usage(fmt.Errorf("--tz: %v", err))
	}
	var w window
	for _, f := range []struct {
		flag, value string
		to          *time.Time
	}{{"--since", o.Since, &w.since}, {"--until", o.Until, &w.until}} {
		if f.value == "" {
			continue
		}
		t, err := summary.ParseTime(f.value, now(), loc)
		if err != nil {
			return window{}, cli.Usage(fmt.Errorf("%s: %v", f.flag, err))
		}
		*f.to = t
	}
	return w, nil
}

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

func run(o *options, stdio cli.Stdio) (err error) {
	if o.Follow && o.Format == "html" {
		// The page is written when the input ends, which a follow never does.
		return cli.Usage(errors.New("--format html writes its page at the end of input: not with --follow, which has none"))
	}
	win, err := o.window()
	if err != nil {
		return err
	}
	table, err := o.table()
	if err != nil {
		return err
	}
	w, end, err := o.Flags.Events(name, stdio, o.Format, o.ViewFlags, o.Files)
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
		err := o.follow(in, out, win, func() *converter { return newConverter(table) })
		if e := end(); err == nil {
			err = e
		}
		return err
	}
	conv := newConverter(table)
	conv.bad = func(r record, reason error) {
		if err := in.Bad(jsonl.Record{File: r.file, Line: r.line}, reason); err != nil && conv.stop == nil {
			conv.stop = err // --strict: what is converted so far is not written
		}
	}
	sessions, trouble, err := o.convert(in, conv, win)
	if err == nil {
		err = conv.stop
	}
	if err == nil {
		err = stop.Err() // nothing is written after a signal
	}
	if err == nil {
		writeSessions(out, sessions, win)
		err = out.Flush()
	}
	if e := end(); err == nil {
		err = e
	}
	if jsonl.IsClosed(err) {
		return err
	}
	conv.report(stdio.Err)
	if err == nil && (trouble || in.Trouble()) {
		return cli.Status(cli.ExitError)
	}
	return err
}

// convert reads every input and converts it, source by source. trouble
// is an input that could not be read or is in no known format.
func (o *options) convert(in *jsonl.Input, conv *converter, win window) (sessions []*session, trouble bool, err error) {
	files := expand(o.paths(), win.since, func(p string, err error) {
		in.Errorf("%v", jsonl.FileError(p, err))
		trouble = true
	})
	bySource := map[string][]*logFile{}
	for _, f := range files {
		if err := read(in, f); err != nil {
			return nil, trouble, err
		}
		if len(f.records) == 0 && f.document == nil {
			continue // empty, or only bad lines (reported)
		}
		if !o.sourceOf(f) {
			in.Errorf("%s: in no known format (not a session log of Claude Code, Codex, pi or Gemini CLI), skipped", term.Escape(f.name))
			trouble = true
			continue
		}
		bySource[f.source] = append(bySource[f.source], f)
	}
	return conv.all(bySource), trouble, nil
}

// paths are the files and folders to read: those named, else the default
// folders that exist.
func (o *options) paths() []string {
	if len(o.Files) > 0 {
		return o.Files
	}
	var paths []string
	for _, dir := range defaultFolders(getenv) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			paths = append(paths, dir)
		}
	}
	return paths
}

// sourceOf sets f's source, as --from says or as found from its content;
// false when it is in no known format.
func (o *options) sourceOf(f *logFile) bool {
	f.source = o.From
	if f.source == "auto" {
		f.source = detect(f)
	}
	return f.source != ""
}

// all converts the files of each source into sessions.
func (c *converter) all(bySource map[string][]*logFile) []*session {
	sessions := c.claude(bySource["claude"])
	sessions = append(sessions, c.codexAll(bySource["codex"])...)
	for _, f := range bySource["pi"] {
		sessions = append(sessions, c.pi(f)...)
	}
	return append(sessions, c.geminiAll(bySource["gemini"])...)
}
