// Package transcript writes the runs of an event stream as one
// self-contained HTML page people read a session in: the prompts and
// replies (Markdown rendered, raw HTML shown as text), tool calls with
// their arguments and output, the model's thinking folded away, errors,
// kills and guardrails marked in words, tokens and cost per model call, per
// sub-agent and per run, sub-agents nested under the call that spawned
// them, and a timeline per run. It reads every vocabulary pkg/event knows,
// through the meanings, as the pretty view and the summary do.
//
// A Writer is an io.Writer of JSON Lines, the bytes a tool would have
// written, so that a tool puts it under its usual output as it does the
// pretty view. The page can only be written once the input has ended (the
// run list and the totals come first), so Close writes it. Until then the
// Writer holds, for a run still open, what the page will show of it (every
// text cut to its limit), and for a run that has ended only its section of
// the page, already rendered: memory grows with the page, not with the
// input. Every value from the data goes through html/template or through
// the Markdown renderer, which writes no HTML of the data's making.
package transcript

import (
	"bytes"
	"io"
	"time"

	"github.com/evtools/evtools/internal/folds/runs"
	"github.com/evtools/evtools/internal/views/eventtext"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Options say how to write the page.
type Options struct {
	Loc     *time.Location // the zone of the times shown; nil is time.Local
	Tool    string         // the tool that writes the page, for its footer
	Version string
	Files   []string // the inputs, for the page's title and the notes

	// The limits that keep a page of a large session quick to open (see
	// docs/transcript.md); zero is the default. MaxText is the most bytes
	// kept of one text (a prompt, a reply, the thinking; a quarter of it
	// of a tool's arguments or output), MaxLines the most lines shown of a
	// tool's arguments or output, MaxEntries the most entries shown of one
	// run, MaxBars the most bars of one lane of a timeline, MaxPage about
	// the most bytes of entries on the page: past it, the entries of the
	// runs still to come are counted, not shown.
	MaxText, MaxLines, MaxEntries, MaxBars, MaxPage int

	// Redact, when set, takes the secrets out of the texts the page
	// joins from pieces (a reply's text deltas, a call's argument pieces,
	// a tool's progress): the lines were redacted one by one, and a secret
	// split between two of them passed whole through that.
	Redact eventtext.Redactor
}

// The defaults of the limits.
const (
	defaultMaxText    = 32 << 10
	defaultMaxLines   = 80
	defaultMaxEntries = 2000
	defaultMaxBars    = 600
	defaultMaxPage    = 2 << 20
)

// Writer builds the page from the JSON Lines written to it and writes it
// to w on Close.
type Writer struct {
	w   io.Writer
	o   Options
	err error

	lines jsonl.LineJoiner // the start of a line not yet ended by '\n'
	ev    event.Event
	sbuf  []byte

	life     runs.Tracker[*run, *item] // the runs not ended
	who      string                    // the agent of the event being read
	runs     []*runHead                // every run, in the order of its first event
	sections bytes.Buffer              // the sections of the runs ended, rendered
	total    totals
	kept     int // about the bytes of the entries on the page so far
	omitted  int // runs with no section: the page was full
	badLines int
	events   int
}

// New returns a Writer that writes the page to w when it is closed.
func New(w io.Writer, o Options) *Writer {
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.MaxText <= 0 {
		o.MaxText = defaultMaxText
	}
	if o.MaxLines <= 0 {
		o.MaxLines = defaultMaxLines
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = defaultMaxEntries
	}
	if o.MaxPage <= 0 {
		o.MaxPage = defaultMaxPage
	}
	if o.MaxBars <= 0 {
		o.MaxBars = defaultMaxBars
	}
	return &Writer{w: w, o: o}
}

// Write reads the complete lines in p and keeps an unfinished last line
// for the next Write.
func (t *Writer) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	t.lines.Lines(p, func(line []byte) bool {
		t.read(line)
		return true
	})
	return len(p), nil
}

// Close reads a last line without its newline, ends the runs still open,
// and writes the page. The underlying writer is not closed.
func (t *Writer) Close() error {
	if t.err != nil {
		return t.err
	}
	if rest := t.lines.Rest(); len(bytes.TrimSpace(rest)) > 0 {
		t.read(rest)
	}
	for _, h := range t.runs {
		if r := h.live; r != nil {
			t.finish(r)
		}
	}
	t.err = t.writePage()
	return t.err
}
