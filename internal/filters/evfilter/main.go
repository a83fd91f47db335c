// Package evfilter is the evfilter command: grep for agent events. It keeps
// the events for which a jq expression holds (internal/filters/expr) and writes them out
// byte for byte.
package evfilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/evtools/evtools/filters"
	"github.com/evtools/evtools/internal/core/memory"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/filters/expr"
	"github.com/evtools/evtools/internal/filters/grep"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/progress"
	"github.com/evtools/evtools/internal/shell/stop"
	"github.com/evtools/evtools/internal/views/output"
	"github.com/evtools/evtools/pkg/jsonl"
)

// mem is evfilter's collector: memory stays flat however long the
// input (a few batches of lines and the values of the events being
// evaluated), and decoded events are short-lived garbage, so under a
// soft limit the collector runs seldom.
var mem = memory.Profile{Limit: 16 << 20, Percent: 200}

// errStop ends the reading early: -m reached, or -q saw a selected event.
var errStop = errors.New("stop")

// parse takes --arg and --argjson out of args first: they take two values
// each, which kong does not do.
func parse(args []string, stdio cli.Stdio, opts *options) error {
	args, vars, err := takeVars(args)
	if err != nil {
		return cli.Usage(err)
	}
	if err := cli.Parse(tool, args, stdio, opts); err != nil {
		return err
	}
	opts.vars = vars
	for _, a := range args {
		if a == "--" {
			break
		}
		// --grep '' is a pattern, and an error, not no --grep
		opts.grepSet = opts.grepSet || a == "--grep" || strings.HasPrefix(a, "--grep=")
	}
	return nil
}

func run(opts *options, stdio cli.Stdio) error {
	memory.Tune(mem)
	if len(opts.Arg) > 0 || len(opts.ArgJSON) > 0 { // --arg=NAME: kong took it
		return errors.New("write --arg NAME VALUE and --argjson NAME JSON as three words")
	}
	lib, err := expr.LoadLibrary(filters.FS, filepath.SplitList(os.Getenv("EVTOOLS_FILTERS")))
	if err != nil {
		return err
	}
	if opts.List {
		list(stdio.Out, lib)
		return nil
	}
	var g *grep.Matcher
	if opts.grepSet || opts.Grep != "" || opts.FixedStrings || opts.IgnoreCase {
		if g, err = grep.Compile(opts.Grep, grep.Options{Fixed: opts.FixedStrings, IgnoreCase: opts.IgnoreCase}); err != nil {
			return cli.Usage(err)
		}
	}
	src, files := "", opts.Args
	if g != nil && opts.FromFile == "" && grepOnly(files) {
		// --grep alone: every line is still checked to be an event.
		return filter(test{g: g}, opts, files, stdio)
	}
	if opts.FromFile != "" {
		b, err := os.ReadFile(opts.FromFile)
		if err != nil {
			return jsonl.FileError(opts.FromFile, err)
		}
		src = string(b)
	} else {
		if len(files) == 0 {
			return cli.Usage(errors.New("missing EXPR"))
		}
		src, files = files[0], files[1:]
		if err := fileFirst(src, files); err != nil {
			return cli.Usage(err)
		}
	}
	f, err := expr.Compile(src, expr.Options{Library: lib, Vars: opts.vars})
	var me *expr.MisuseError
	if errors.As(err, &me) {
		return cli.Usage(err)
	}
	if err != nil {
		return err
	}
	return filter(test{f: f, g: g}, opts, files, stdio)
}

// grepOnly reports whether the arguments after --grep are all inputs:
// none, or a first one that names a file or a folder (an archive), or is
// -. Otherwise the first is the expression the events must pass too.
func grepOnly(args []string) bool {
	if len(args) == 0 || args[0] == "-" {
		return true
	}
	_, err := os.Stat(args[0])
	return err == nil
}

// test is what selects an event: the expression, --grep's search, or both.
type test struct {
	f *expr.Filter  // nil with --grep alone
	g *grep.Matcher // nil without --grep
}

// Match is the verdict on one line. The expression (or, with --grep
// alone, the matcher's Test) validates the line, so that a bad line is
// reported whatever the search finds; the search runs on the lines that
// pass.
func (t test) Match(line []byte) (bool, error) {
	if t.f != nil {
		ok, err := t.f.Match(line)
		if t.g == nil || !ok || err != nil {
			return ok, err
		}
		return t.g.Match(line), nil
	}
	return t.grep(t.g.Test(line))
}

// grep is the verdict of --grep alone, from what the matcher's Test or
// TestIn says: it validates the line as jsonscan.Check does.
func (t test) grep(ok bool, err error) (bool, error) {
	if err != nil {
		return false, &expr.InputError{Err: err}
	}
	return ok, nil
}

// clone is a test for another goroutine.
func (t test) clone() test {
	c := test{}
	if t.f != nil {
		c.f = t.f.Clone()
	}
	if t.g != nil {
		c.g = t.g.Clone()
	}
	return c
}

// fileFirst refuses a first argument that names a file when no other
// argument does (evfilter run.jsonl failed): the arguments are swapped, or
// the expression is missing. An expression that happens to be a file's
// name too, followed by files, is taken as the expression.
func fileFirst(src string, files []string) error {
	if st, err := os.Stat(src); err != nil || st.IsDir() {
		return nil
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil && f != "-" {
			if len(files) == 1 {
				return fmt.Errorf("%s is a file, not an expression; %s is not a file: the expression comes first: evfilter %s %s", src, f, f, src)
			}
			return fmt.Errorf("%s is a file, not an expression; %s is not a file: the expression comes first", src, f)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("%s is a file, not an expression: the expression comes first", src)
	}
	return nil
}

// selection is the state of one run: what was selected, what failed.
type selection struct {
	opts     options
	in       *jsonl.Input
	out      *jsonl.Writer
	selected int
	evalErrs int
	first    string         // the first evaluation error, with its place
	events   int            // records that were events (JSON objects)
	clones   []*expr.Filter // the filters that evaluated them, if not f
}

// take handles one record's verdict, in input order.
func (s *selection) take(rec jsonl.Record, ok bool, err error) error {
	s.events++
	if err != nil {
		var ie *expr.InputError
		if errors.As(err, &ie) {
			s.events--
			return s.in.Bad(rec, ie.Err)
		}
		if s.opts.Strict {
			s.in.Errorf("%s:%d: %v", rec.File, rec.Line, err)
			return jsonl.ErrStrict
		}
		if s.evalErrs == 0 {
			s.first = fmt.Sprintf("%s:%d: %v", rec.File, rec.Line, err)
		}
		s.evalErrs++
	}
	if ok == s.opts.Invert {
		return nil
	}
	s.selected++
	if s.opts.Quiet {
		return errStop
	}
	if !s.opts.Count {
		s.out.WriteLine(rec.Data)
	}
	if s.opts.MaxCount > 0 && s.selected >= s.opts.MaxCount {
		return errStop
	}
	return nil
}

// filter reads files and writes the events f selects.
func filter(f test, opts *options, files []string, stdio cli.Stdio) (err error) {
	format, err := formats.Parse(opts.Format, stdio.Out)
	if err != nil {
		return err
	}
	// -c and -q write no events: nothing to render.
	if opts.Count || opts.Quiet {
		format = output.JSONL
	}
	var w io.Writer
	var end func() error
	if f.g != nil && format.Name == output.Pretty.Name {
		// --grep's view: the hits, each with its session
		v := grep.NewView(stdio.Out, f.g.Clone(), grep.ViewOptions{Width: term.Width(stdio.Out), Color: term.UseColor(opts.Color, stdio.Out)})
		w, end, err = opts.Flags.Output(name, v, v.Close, stdio.Err)
	} else {
		w, end, err = opts.Flags.Open(name, stdio, format, files)
	}
	if err != nil {
		return err
	}
	defer func() {
		if e := end(); err == nil && e != nil {
			err = e
		}
	}()
	out := jsonl.NewWriter(w)
	progIO := stdio
	if opts.Count || opts.Quiet {
		progIO.Out = nil // nothing on stdout before the end: progress may share its terminal
	}
	in := &jsonl.Input{Tool: name, Names: files, Stdin: stdio.In, Stderr: stdio.Err, Out: out, Strict: opts.Strict,
		Meter: progress.New(name, progIO, files)}
	s := &selection{opts: *opts, in: in, out: out}
	if opts.MaxCount == 0 {
		return cli.Status(cli.ExitFound) // grep -m 0: read nothing
	}
	err = s.read(f, files, stdio.In)
	stopped := errors.Is(err, errStop)
	if stopped {
		err = out.Flush()
	}
	if err == nil && opts.Count {
		err = stop.Commit() // no count after a signal; after this, exit 0
	}
	if err == nil && opts.Count {
		fmt.Fprintf(out, "%d\n", s.selected)
		err = out.Flush()
	}
	s.evalErrors()
	var misuse error
	if s.events > 0 && (err == nil || stopped) && f.f != nil {
		misuse = s.typos(f.f)
	}
	switch {
	case err != nil:
		return err
	case misuse != nil:
		return cli.Usage(misuse)
	case opts.Quiet && s.selected > 0:
		return nil
	case in.Trouble():
		return cli.Status(cli.ExitError) // the bad lines are reported already
	case s.selected == 0:
		return cli.Status(cli.ExitFound)
	}
	return nil
}

// read hands s the verdict of f on every record of files, in order.
func (s *selection) read(f test, files []string, stdin io.Reader) error {
	// -m and -q stop at a match, --strict at the first bad line: reading
	// ahead on other cores would read (and report on) input the serial loop
	// never reaches, and change the status or the reports.
	stopsEarly := s.opts.MaxCount > 0 || s.opts.Quiet || s.opts.Strict
	if workers := runtime.GOMAXPROCS(0); !stopsEarly && workers > 1 && jsonl.RegularFiles(files, stdin) {
		return parallel(f, s.in, s, workers)
	}
	return s.in.Each(func(rec jsonl.Record) error {
		ok, err := f.Match(rec.Data)
		return s.take(rec, ok, err)
	})
}

// evalErrors says how many events could not be evaluated, and the first.
func (s *selection) evalErrors() {
	if s.evalErrs == 0 {
		return
	}
	// With -v an event that could not be evaluated is selected (it did
	// not pass the expression), so the message says what happened to it.
	fate := "did not pass"
	if s.opts.Invert {
		fate = "were selected by -v"
		if s.evalErrs == 1 {
			fate = "was selected by -v"
		}
	}
	s.in.Errorf("%s could not be evaluated and %s; the first: %s", textfmt.Plural(int64(s.evalErrs), "event"), fate, s.first)
}

// typos warns of a bare name read as a field that no event had: a typo,
// or a string without its quotes. A warning: the status is unchanged. But
// a bare name that is the whole argument of a named filter (tool(Bash))
// was a string: the filter compared a null with every event, and matched
// what it should not; that is returned as an error.
func (s *selection) typos(f *expr.Filter) error {
	var errs []error
	for _, nf := range f.Nulls(s.clones...) {
		if nf.Call != "" {
			errs = append(errs, fmt.Errorf("%s: %s is read as the field .%s, null in every event; did you mean %s?", nf.Call, nf.Name, nf.Name, nf.Quoted))
			continue
		}
		hint := ""
		if nf.Compared {
			hint = fmt.Sprintf("; did you mean %q?", nf.Name)
		}
		s.in.Errorf("warning: %s is read as the field .%s, null in every event%s", nf.Name, nf.Name, hint)
	}
	return errors.Join(errs...)
}

// verdicts are the verdicts of a worker's filter on the records of a
// block, in the block's order.
type verdicts struct {
	ok   []bool
	errs []error
}

// blockBytes is the size of the blocks read (a variable: tests make it
// tiny, so that lines straddle blocks and outgrow them).
var blockBytes = jsonl.DefaultBlockSize

// parallel evaluates the records of regular files on several goroutines
// and takes the verdicts in input order on this one, so the output and
// the reports are those of the serial loop (jsonl.Blocks). This goroutine
// only reads blocks of whole lines and writes the selected lines; the
// workers frame the lines of a block and evaluate them (the fast path's
// validating scan, or gojq), the slow part. Each worker has a clone of f,
// whose unknown fields f.Nulls adds up.
func parallel(f test, in *jsonl.Input, s *selection, workers int) error {
	engine := jsonl.Blocks[test, verdicts]{
		Workers:   workers,
		BlockSize: blockBytes,
		NewWorker: func() test {
			g := f.clone()
			if g.f != nil {
				s.clones = append(s.clones, g.f)
			}
			return g
		},
		Work: func(g test, b *jsonl.Block, v *verdicts) {
			v.ok, v.errs = v.ok[:0], v.errs[:0]
			if g.f == nil {
				// --grep alone: the search runs over the whole block,
				// not line by line (grep.Matcher.Block).
				g.g.Block(b.Data)
				b.Frame(func(_ int, rec []byte) {
					ok, err := g.grep(g.g.TestIn(rec))
					v.ok = append(v.ok, ok)
					v.errs = append(v.errs, err)
				})
				return
			}
			b.Frame(func(_ int, rec []byte) {
				ok, err := g.Match(rec)
				v.ok = append(v.ok, ok)
				v.errs = append(v.errs, err)
			})
		},
		Take: func(v *verdicts, i int, rec jsonl.Record) error { return s.take(rec, v.ok[i], v.errs[i]) },
	}
	return engine.Each(in)
}

// takeVars removes --arg NAME VALUE and --argjson NAME JSON from args
// (before a "--") and returns their bindings.
func takeVars(args []string) ([]string, map[string]any, error) {
	var rest []string
	vars := map[string]any{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if a != "--arg" && a != "--argjson" {
			rest = append(rest, a)
			continue
		}
		if i+2 >= len(args) {
			return nil, nil, fmt.Errorf("%s needs a NAME and a value", a)
		}
		n, v := args[i+1], args[i+2]
		i += 2
		if !validName(n) {
			return nil, nil, fmt.Errorf("%s %s: not a variable name", a, n)
		}
		if a == "--arg" {
			vars[n] = v
			continue
		}
		if !json.Valid([]byte(v)) {
			return nil, nil, badJSON(n, v)
		}
		vars[n] = expr.Decode([]byte(v))
	}
	return rest, vars, nil
}

// badJSON says where the --argjson value v of $n stops being JSON, quoting
// no more of v than fits a line.
func badJSON(n, v string) error {
	var x any
	where := ""
	var se *json.SyntaxError
	if err := json.Unmarshal([]byte(v), &x); errors.As(err, &se) {
		where = fmt.Sprintf(" at byte %d (%v)", se.Offset, se)
	}
	const quote = 32
	if len(v) > quote+8 {
		v = fmt.Sprintf("%s... (%d bytes)", strings.ToValidUTF8(v[:quote], ""), len(v))
	}
	return fmt.Errorf("--argjson %s: not valid JSON%s: %s", n, where, v)
}

// validName reports whether n can follow a $ in jq.
func validName(n string) bool {
	if n == "" {
		return false
	}
	for i, c := range n {
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// list prints the named filters, one a line: the call, where it comes from,
// its description; one hidden by a later def says so.
func list(w io.Writer, lib *expr.Library) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, d := range lib.Defs {
		src := d.Source
		if lib.Hidden(d) {
			src += " (hidden by a later def)"
		}
		desc := d.Description
		if desc == "" {
			desc = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Signature(), term.Escape(src), term.Escape(desc))
	}
	tw.Flush()
}
