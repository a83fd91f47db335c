package redact

import (
	"io"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/pretty"
	"github.com/evtools/evtools/internal/transcript"
)

// Stdout opens where a tool's events go: stdout as JSON Lines, or the
// events for people: the pretty view (format "pretty", coloured as color
// says) or the HTML transcript (format "html", written at the end, of the
// runs in files); under redaction when the flags ask for it (see Output),
// so that a view shows no more than the JSON Lines would. The tool calls
// end once, at the end, to write everything out.
func (f *Flags) Stdout(tool string, stdio cli.Stdio, format, color string, files []string) (w io.Writer, end func() error, err error) {
	switch format {
	case "html":
		w, end = transcript.Output(stdio.Out, transcript.Options{Tool: tool, Version: cli.Version, Files: files})
	default:
		w, end = pretty.Output(stdio.Out, format == "pretty", color)
	}
	return f.Output(tool, w, end, stdio.Err)
}

// Events is Stdout for a tool whose --format is jsonl, pretty or html
// ("" and auto: pretty on a terminal, jsonl elsewhere).
func (f *Flags) Events(tool string, stdio cli.Stdio, format, color string, files []string) (io.Writer, func() error, error) {
	format, err := cli.ParseFormat(format, stdio.Out, "jsonl", "jsonl", "pretty", "html")
	if err != nil {
		return nil, nil, err
	}
	return f.Stdout(tool, stdio, format, color, files)
}
