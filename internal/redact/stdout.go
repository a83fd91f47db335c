package redact

import (
	"io"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/pretty"
	"github.com/evtools/evtools/internal/term"
)

// Stdout opens where a tool's events go: stdout, rendered for reading when
// render is set (pretty.Output, as the view's flags say), under redaction
// when the flags ask for it (see Output). The pretty view then redacts
// with the same Redactor the text it joins from pieces, which the lines
// it is given had in pieces, and its finds are in the count. The tool
// calls end once, at the end, to write everything out.
func (f *Flags) Stdout(tool string, stdio cli.Stdio, render bool, view pretty.ViewFlags) (w io.Writer, end func() error, err error) {
	r, err := f.redactor()
	if err != nil {
		return nil, nil, err
	}
	var pr pretty.Redactor
	if r != nil {
		pr = r // not a nil *Redactor in the interface
	}
	out := stdio.Out
	if !render {
		// JSON on a terminal: the data's raw bidi controls, DEL and C1
		// escaped (JSON's \u escapes: it stays JSON); the pretty view
		// escapes what it shows.
		out = term.SafeFor(out)
	}
	w, end = pretty.Output(out, render, view, pr)
	return output(tool, w, end, stdio.Err, r)
}

// Events is Stdout for a tool whose --format is jsonl or pretty ("" and
// auto: pretty on a terminal, jsonl elsewhere).
func (f *Flags) Events(tool string, stdio cli.Stdio, format string, view pretty.ViewFlags) (io.Writer, func() error, error) {
	format, err := cli.ParseFormat(format, stdio.Out, "jsonl", "jsonl", "pretty")
	if err != nil {
		return nil, nil, err
	}
	return f.Stdout(tool, stdio, format == "pretty", view)
}
