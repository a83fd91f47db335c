// Package evfilter is the evfilter command: grep for agent events. It keeps
// the events for which a jq expression holds (pkg/expr) and writes them out
// byte for byte.
package evfilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/evtools/evtools/filters"
	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/expr"
	"github.com/evtools/evtools/pkg/jsonl"
)

// errStop ends the reading early: -m reached, or -q saw a selected event.
var errStop = errors.New("stop")

// Main runs evfilter with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int {
	args, vars, err := takeVars(args)
	if err != nil {
		fmt.Fprintf(stdio.Err, "%s: %v\n", name, err)
		fmt.Fprintf(stdio.Err, "%s: run '%s --help' for usage\n", name, name)
		return cli.ExitError
	}
	var opts options
	if code, done := cli.Parse(tool, args, stdio, &opts); done {
		return code
	}
	lib, err := expr.LoadLibrary(filters.FS, filepath.SplitList(os.Getenv("EVTOOLS_FILTERS")))
	if err != nil {
		return cli.Report(name, stdio.Err, err)
	}
	if opts.List {
		list(stdio.Out, lib)
		return cli.ExitOK
	}
	src, files := "", opts.Args
	if opts.FromFile != "" {
		b, err := os.ReadFile(opts.FromFile)
		if err != nil {
			return cli.Report(name, stdio.Err, fmt.Errorf("%s: %v", opts.FromFile, unwrap(err)))
		}
		src = string(b)
	} else {
		if len(files) == 0 {
			fmt.Fprintf(stdio.Err, "%s: missing EXPR\n%s: run '%s --help' for usage\n", name, name, name)
			return cli.ExitError
		}
		src, files = files[0], files[1:]
	}
	f, err := expr.Compile(src, expr.Options{Library: lib, Vars: vars})
	if err != nil {
		return cli.Report(name, stdio.Err, err)
	}
	return run(f, opts, files, stdio)
}

func run(f *expr.Filter, opts options, files []string, stdio cli.Stdio) int {
	out := jsonl.NewWriter(stdio.Out)
	in := &jsonl.Input{Tool: name, Names: files, Stdin: stdio.In, Stderr: stdio.Err, Out: out, Strict: opts.Strict}
	var selected, evalErrs int
	var firstEval string
	if opts.MaxCount == 0 {
		return cli.ExitFound // grep -m 0: read nothing
	}
	err := in.Each(func(rec jsonl.Record) error {
		ok, err := f.Match(rec.Data)
		if err != nil {
			var ie *expr.InputError
			if errors.As(err, &ie) {
				return in.Bad(rec, ie.Err)
			}
			if opts.Strict {
				in.Errorf("%s:%d: %v", rec.File, rec.Line, err)
				return jsonl.ErrStrict
			}
			if evalErrs == 0 {
				firstEval = fmt.Sprintf("%s:%d: %v", rec.File, rec.Line, err)
			}
			evalErrs++
		}
		if ok == opts.Invert {
			return nil
		}
		selected++
		if opts.Quiet {
			return errStop
		}
		if !opts.Count {
			out.WriteLine(rec.Data)
		}
		if opts.MaxCount > 0 && selected >= opts.MaxCount {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = out.Flush()
	}
	if err == nil && opts.Count {
		fmt.Fprintf(out, "%d\n", selected)
		err = out.Flush()
	}
	if evalErrs > 0 {
		s := "s"
		if evalErrs == 1 {
			s = ""
		}
		in.Errorf("%d event%s could not be evaluated and did not pass; the first: %s", evalErrs, s, firstEval)
	}
	switch {
	case jsonl.IsClosed(err):
		return cli.ExitOK // the reader went away (| head): nothing more to do
	case errors.Is(err, jsonl.ErrStrict):
		return cli.ExitError // reported already
	case err != nil:
		return cli.Report(name, stdio.Err, err)
	case opts.Quiet && selected > 0:
		return cli.ExitOK
	case in.Trouble():
		return cli.ExitError
	case selected == 0:
		return cli.ExitFound
	}
	return cli.ExitOK
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
			return nil, nil, fmt.Errorf("--argjson %s: not valid JSON: %s", n, v)
		}
		vars[n] = expr.Decode([]byte(v))
	}
	return rest, vars, nil
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
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Signature(), cli.Escape(src), cli.Escape(desc))
	}
	tw.Flush()
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if os.IsNotExist(pe.Err) {
			return errors.New("no such file")
		}
		return pe.Err
	}
	return err
}
