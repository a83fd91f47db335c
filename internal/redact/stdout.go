package redact

import (
	"io"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/pretty"
	"github.com/evtools/evtools/internal/term"
)

// Stdout opens where a tool's events go: stdout, rendered for reading when
// render is set (pretty.Output, coloured as color says), under redaction
// when the flags ask for it (see Output). The tool calls end once, at the
// end, to write everything out.
func (f *Flags) Stdout(tool string, stdio cli.Stdio, render bool, color string) (w io.Writer, end func() error, err error) {
	out := stdio.Out
	if !render {
		// JSON on a terminal: the data's raw bidi controls, DEL and C1
		// escaped (JSON's \u escapes: it stays JSON); the pretty view
		// escapes what it shows.
		out = term.SafeFor(out)
	}
	w, end = pretty.Output(out, render, color)
	return f.Output(tool, w, end, stdio.Err)
}

// Events is Stdout for a tool whose --format is jsonl or pretty ("" and
// auto: pretty on a terminal, jsonl elsewhere).
func (f *Flags) Events(tool string, stdio cli.Stdio, format, color string) (io.Writer, func() error, error) {
	format, err := cli.ParseFormat(format, stdio.Out, "jsonl", "jsonl", "pretty")
	if err != nil {
		return nil, nil, err
	}
	return f.Stdout(tool, stdio, format == "pretty", color)
}
