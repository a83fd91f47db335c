package redact

import (
	"io"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/pretty"
	"github.com/evtools/evtools/internal/term"
	"github.com/evtools/evtools/internal/transcript"
)

// Stdout opens where a tool's events go: stdout as JSON Lines, or the
// events for people: the pretty view (format "pretty", as the view's flags
// say) or the HTML transcript (format "html", the runs of the events as one
// page written at the end; files are the inputs it names); under
// redaction when the flags ask for it (see Output). A view then redacts
// with the same Redactor the text it joins from pieces, which the lines
// it is given had in pieces, and its finds are in the count. The tool
// calls end once, at the end, to write everything out.
func (f *Flags) Stdout(tool string, stdio cli.Stdio, format string, view pretty.ViewFlags, files []string) (w io.Writer, end func() error, err error) {
	r, err := f.Redactor()
	if err != nil {
		return nil, nil, err
	}
	var pr pretty.Redactor
	if r != nil {
		pr = r // not a nil *Redactor in the interface
	}
	out := stdio.Out
	switch format {
	case "html":
		w, end = transcript.Output(out, transcript.Options{Tool: tool, Version: cli.Version, Files: files, Redact: pr})
	case "pretty":
		w, end = pretty.Output(out, true, view, pr)
	default:
		// JSON on a terminal: the data's raw bidi controls, DEL and C1
		// escaped (JSON's \u escapes: it stays JSON); the views escape
		// what they show.
		w, end = pretty.Output(term.SafeFor(out), false, view, pr)
	}
	return output(tool, w, end, stdio.Err, r)
}

// eventsHelp is what the help of a --format of jsonl, pretty and html
// says of the two views and of auto, after the tool's own words for
// jsonl: ${eventsHelp} in its help tag, so that every such tool says it
// in the same words.
const eventsHelp = "pretty (for people: one line per event, text joined), html (a transcript of their runs as one self-contained page, written at the end of input), or auto: pretty on a terminal, jsonl otherwise"

// HelpVars are the variables of the help of a tool whose --format is
// jsonl, pretty or html: ${eventsHelp}.
func HelpVars() map[string]string { return map[string]string{"eventsHelp": eventsHelp} }

// Events is Stdout for a tool whose --format is jsonl, pretty or html
// ("" and auto: pretty on a terminal, jsonl elsewhere).
func (f *Flags) Events(tool string, stdio cli.Stdio, format string, view pretty.ViewFlags, files []string) (io.Writer, func() error, error) {
	format, err := cli.ParseFormat(format, stdio.Out, "jsonl", "jsonl", "pretty", "html")
	if err != nil {
		return nil, nil, err
	}
	return f.Stdout(tool, stdio, format, view, files)
}
