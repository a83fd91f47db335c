// Package pretty renders events for people on a terminal: one line per
// event as a rule, the assistant's text deltas joined back into the text
// the model wrote, tool calls with the argument that says most, model
// results with their tokens and cost, failures marked by a word as well as
// by colour, and a run's end with its totals.
//
// A Renderer is an io.Writer that takes JSON Lines, the bytes a tool would
// have written, and writes their rendering: a tool puts it under its usual
// buffered output, so that every flush of the output (before each blocking
// read) draws the events read so far, and nothing changes in the tool.
// It reads every vocabulary pkg/event knows and shows any other event as
// its kind and a compact payload; nothing is dropped. Data never reaches
// the terminal raw: control characters and escape sequences are shown
// escaped.
package pretty

import (
	"io"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/folds/runs"
	"github.com/evtools/evtools/internal/views/eventtext"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Options say how to render.
type Options struct {
	Width int            // columns; lines are cut (or text wrapped) to it; <= 0 is 80
	Color bool           // SGR colours and weights
	Loc   *time.Location // the zone of the times shown; nil is time.Local

	// All shows every event on a line of its own: turn starts and ends,
	// model steps, progress lines, acknowledgements and the markers a
	// protocol writes, dim. Without it they are left out, or folded into
	// the line they belong to (a model step into its result).
	All bool

	// Redact, when set, takes the secrets out of the text the view joins
	// itself (text and argument pieces, the blocks of a message): each
	// piece was redacted alone, and a secret split between two pieces
	// passed whole through that.
	Redact eventtext.Redactor
}

// ViewFlags are the options of the pretty view every tool that has one
// takes (in internal/views/output's Flags), so that they mean the same in each.
type ViewFlags struct {
	term.ColorFlag `embed:""`
	All            bool `name:"all" help:"Show every event in the pretty view: turn starts and ends, model steps, progress lines and acknowledgements too (dim). By default they are left out, or folded into the line they belong to."`
}

// Renderer renders JSON Lines written to it onto w.
type Renderer struct {
	w   io.Writer
	o   Options
	err error

	lines   jsonl.LineJoiner // the start of a line not yet ended by '\n'
	held    []byte           // the stream's first event, untimed: it waits for the next one's date (see render)
	dayHint int64            // the time whose date heads the held event's line
	seen    bool             // an event was read
	out     []byte           // the rendering of one Write, written to w at its end
	ev      event.Event
	sbuf    []byte // decoded strings

	// The screen: an open line is one still being written (a text flow,
	// or a tool call waiting for its arguments), with the cursor at col.
	open     openKind
	openKey  string    // the run and agent of the open line
	openCall *inFlight // the tool call of an open tool line
	col      int
	cut      bool   // the line reached the width: the rest of it is not written
	fresh    bool   // right after a tag: the next field needs no separator
	gap      int    // spaces of a flow not written yet: they go before the next word on the same line
	lastDay  string // the date of the last time shown
	lastRun  *run   // the run of the last line shown: a line of another one is headed by its number
	runNum   int    // the runs seen, numbered from 1

	// A flow of text: its lines start at indent; lineStart says the
	// cursor is at the start of one of its lines but the first, where
	// spaces are the text's own indentation. flowText is the text of the
	// open flow not drawn yet: the word not ended (it is placed whole
	// once it is), or, redacting, all of it (a secret may be in pieces).
	indent    int
	lineStart bool
	flowStyle string
	flowText  []byte
	redacted  []byte

	life runs.Tracker[*run, call] // the runs not ended, their model and tool calls in flight
}

type openKind uint8

const (
	closed openKind = iota
	textLine
	toolLine
)

// New returns a Renderer that writes to w.
func New(w io.Writer, o Options) *Renderer {
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.Width < 30 {
		o.Width = 30 // narrower than the time and a word: cut, but stay readable
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	return &Renderer{w: w, o: o}
}

// Write renders the complete lines in p, keeps an unfinished last line for
// the next Write, and writes the rendering to the underlying writer.
func (r *Renderer) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	// a long piece is written on every 64 KiB of rendering, not held whole
	if !r.lines.Lines(p, func(line []byte) bool {
		r.render(line)
		return len(r.out) < 64<<10 || r.flush()
	}) {
		return 0, r.err
	}
	if !r.flush() {
		return 0, r.err
	}
	return len(p), nil
}

// Close renders a last line without its newline, ends an open line, and
// writes out the rest. The underlying writer is not closed.
func (r *Renderer) Close() error {
	if r.err != nil {
		return r.err
	}
	if rest := r.lines.Rest(); len(rest) > 0 {
		r.render(rest)
	}
	r.drawHeld(0)
	r.endLine()
	r.flush()
	return r.err
}

func (r *Renderer) flush() bool {
	if len(r.out) == 0 {
		return true
	}
	_, err := r.w.Write(r.out)
	r.out = r.out[:0]
	if err != nil {
		r.err = err
		return false
	}
	return true
}
