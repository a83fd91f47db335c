// Package output is where a tool's events go: JSON Lines on stdout, or a
// view for people (the pretty view, the HTML transcript), under
// redaction when the flags ask for it.
//
// The formats are described once (Format: a name, its words, how its
// writer is made), and each tool lists the ones it writes in a Set. The
// tool's --format flag, its help sentence, the man page's and the
// completion scripts' list of values and the parsing of the value all come
// from that Set; the flags that go with it (--color, --all, --redact,
// --redact-rules) are one group, Flags, that every such tool embeds. A
// new format is a Format here and its name in the Sets of the tools that
// write it; nothing else in a tool changes.
//
// Redaction is one layer of the stack: internal/filters/redact's Writer over the
// format's writer, and its Redactor handed to the view for the text the
// view joins from pieces. So the redaction package knows nothing of the
// views, and the views nothing of redaction but the interface they take.
package output

import (
	"io"

	"github.com/evtools/evtools/internal/filters/redact"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/pretty"
)

// Flags are the output flags of a tool that writes events: --format, the
// pretty view's flags and the redaction flags. --format's values and help
// are the variables of the tool's Set (Set.Vars), which the tool gives as
// its help variables; kong refuses a tool that embeds Flags without them.
type Flags struct {
	Format string `name:"format" enum:"auto,${formats}" default:"auto" placeholder:"FORMAT" help:"${formatHelp} Default: ${default}."`

	pretty.ViewFlags `embed:""`
	redact.Flags     `embed:""`
}

// Events opens where a tool's events go in the format of set that
// --format names (Set.Parse, Open).
func (f *Flags) Events(tool string, stdio cli.Stdio, set Set, files []string) (io.Writer, func() error, error) {
	format, err := set.Parse(f.Format, stdio.Out)
	if err != nil {
		return nil, nil, err
	}
	return f.Open(tool, stdio, format, files)
}

// Open opens where a tool's events go in format: stdout as JSON Lines, or
// a view on it (files are the inputs the HTML page names); under
// redaction when the flags ask for it (redact.Wrap). A view then redacts
// with the same Redactor the text it joins from pieces, which the lines
// it is given had in pieces, and its finds are in the count. The tool
// calls end once, at the end, to write everything out.
func (f *Flags) Open(tool string, stdio cli.Stdio, format Format, files []string) (w io.Writer, end func() error, err error) {
	r, err := f.Redactor()
	if err != nil {
		return nil, nil, err
	}
	v := view{tool: tool, files: files, flags: f.ViewFlags}
	if r != nil {
		v.red = r // not a nil *Redactor in the interface
	}
	w, end = format.open(stdio.Out, v)
	return redact.Wrap(tool, w, end, stdio.Err, r)
}
