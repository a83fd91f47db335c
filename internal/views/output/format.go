package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/eventtext"
	"github.com/evtools/evtools/internal/views/pretty"
	"github.com/evtools/evtools/internal/views/transcript"
)

// A Format is one way a tool writes its events: its name (a value of
// --format), what it is in words (the help's "name (words)"), and how its
// writer is made.
type Format struct {
	Name string
	Help string
	open func(stdout io.Writer, v view) (w io.Writer, end func() error)
}

// view is what a format's writer is made of besides stdout.
type view struct {
	tool  string
	files []string // the inputs, which the page names
	flags pretty.ViewFlags
	red   eventtext.Redactor // nil: no redaction
}

// The formats every tool that writes events has, under these names and
// words: JSON Lines and the two views for people.
var (
	JSONL  = Lines("jsonl", "JSON Lines")
	Pretty = Format{Name: "pretty", Help: "for people: one line per event, text joined", open: openPretty}
	HTML   = Format{Name: "html", Help: "a transcript of their runs as one self-contained page, written at the end of input", open: openHTML}
)

// Lines is a format of JSON Lines called name: what the tool writes goes
// to stdout as it is. A tool with JSON Lines of several shapes (zot2gp's
// envelope, bare and pi) has one Lines format for each, and makes the
// shape itself.
func Lines(name, help string) Format { return Format{Name: name, Help: help, open: openLines} }

// As is f with other words in the help: what jsonl is in evfilter (the
// lines as read) is not what it is in a tool that makes its events.
func (f Format) As(help string) Format {
	f.Help = help
	return f
}

func openLines(stdout io.Writer, _ view) (io.Writer, func() error) {
	// JSON on a terminal: the data's raw bidi controls, DEL and C1
	// escaped (JSON's \u escapes: it stays JSON); the views escape what
	// they show.
	return term.SafeFor(stdout), func() error { return nil }
}

// openPretty renders on stdout, fitted to the terminal's width, coloured
// and in full as the flags say; end draws a last open line.
func openPretty(stdout io.Writer, v view) (io.Writer, func() error) {
	f := v.flags
	r := pretty.New(stdout, pretty.Options{Width: term.Width(stdout), Color: term.UseColor(f.Color, stdout), All: f.All, Redact: v.red})
	return r, r.Close
}

// openHTML builds the page; end writes it.
func openHTML(stdout io.Writer, v view) (io.Writer, func() error) {
	t := transcript.New(stdout, transcript.Options{Tool: v.tool, Version: cli.Version, Files: v.files, Redact: v.red})
	return t, t.Close
}

// A Set is the formats a tool writes. --format auto is pretty on a
// terminal and the first of them elsewhere. Its --format flag (Flags) is
// written from it: the values, the help sentence and so the man page and
// the completion scripts.
type Set struct {
	What    string // what is written, as "How to write WHAT:" says it
	Formats []Format
}

// Events is the Set of a tool that writes the events it makes or passes
// on: jsonl, pretty and html.
var Events = Set{What: "the events", Formats: []Format{JSONL, Pretty, HTML}}

// Vars are the help variables of a tool whose --format is the Set's
// (Flags): ${formats}, its names, and ${formatHelp}, its help sentence.
func (s Set) Vars() map[string]string {
	names := make([]string, len(s.Formats))
	said := make([]string, len(s.Formats))
	for i, f := range s.Formats {
		names[i] = f.Name
		said[i] = f.Name + " (" + f.Help + ")"
	}
	return map[string]string{
		"formats":    strings.Join(names, ","),
		"formatHelp": fmt.Sprintf("How to write %s: %s, or auto: pretty on a terminal, %s otherwise.", s.What, strings.Join(said, ", "), names[0]),
	}
}

// Parse is the format value names: "" and auto are pretty when stdout is
// a terminal, the Set's first format elsewhere. A value not in the Set is
// a usage error that names them.
func (s Set) Parse(value string, stdout any) (Format, error) {
	if value == "" || value == "auto" {
		if term.IsTerminal(stdout) {
			value = Pretty.Name
		} else {
			return s.Formats[0], nil
		}
	}
	names := make([]string, len(s.Formats))
	for i, f := range s.Formats {
		if f.Name == value {
			return f, nil
		}
		names[i] = f.Name
	}
	return Format{}, cli.Usage(fmt.Errorf("--format %q: one of auto, %s", value, strings.Join(names, ", ")))
}
