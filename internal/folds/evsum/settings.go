package evsum

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/internal/shell/cli"
)

// settings are evsum's flags resolved into what the run does: what it
// reads, how it reads it, and what it writes. resolve checks every flag
// against the others in one place, so that run only carries them out.
type settings struct {
	states  bool   // the input is partial states (--merge), not events
	partial bool   // the output is a partial state (--partial), not a report
	format  string // the report's format; "" for --partial
	tty     bool   // stdout is a terminal
	fitted  bool   // the table is fitted to a width (a terminal, or --width)
	live    bool   // the table is redrawn as events arrive
	color   bool
	order   summary.Order
	summary summary.Options // for summarise and --partial
}

// resolve turns the flags into settings; an error is the user's (a usage
// error).
func resolve(opts *options, stdio cli.Stdio) (settings, error) {
	var s settings
	if err := partialFlags(opts); err != nil {
		return s, err
	}
	s.states, s.partial = opts.Merge, opts.Partial
	order, err := reportOrder(opts)
	if err != nil {
		return s, err
	}
	s.order = order
	s.tty = term.IsTerminal(stdio.Out)
	if !s.partial {
		if s.format, err = reportFormat(opts, s.tty); err != nil {
			return s, err
		}
		if err := tableFlags(opts, s.format); err != nil {
			return s, err
		}
	}
	// The table is fitted to the terminal, or to --width; --wide, a pipe
	// and a file get every column as it is.
	s.fitted = s.format == "table" && !opts.Wide && (opts.Width > 0 || s.tty)
	// A live table: on a terminal, while a pipe (or terminal) is read.
	// A dumb terminal cannot move its cursor: no redraws there.
	s.live = s.format == "table" && !s.states && !s.partial &&
		(opts.Live == "always" || opts.Live == "auto" && s.tty && os.Getenv("TERM") != "dumb" && liveInput(opts.Files, stdio.In))
	s.color = term.UseColor(opts.Color, stdio.Out)
	if opts.Merge {
		err = mergeFlags(opts)
	} else {
		s.summary, err = summaryOptions(opts)
		// A state another evsum merges keeps what it needs to pair
		// reused tool call ids as one pass does.
		s.summary.CallNotes = s.partial
	}
	return s, err
}

// partialFlags refuses the report's flags with --partial: problems,
// formats, the table and the order belong to the report, which the
// --merge that reads the state writes.
func partialFlags(opts *options) error {
	switch {
	case !opts.Partial:
		return nil
	case opts.Check || opts.Format != "":
		return errors.New("--partial writes a state, not a report: give --check and --format to the --merge that reads it")
	case opts.Columns != "" || opts.Width != 0 || opts.Wide || opts.Live == "always":
		return errors.New("--partial writes a state, not a table: give --columns, --width, --wide and --live to the --merge that reads it")
	case opts.Sort != "" || opts.Top != 0:
		// The state holds every group whatever the order: the merge orders.
		return errors.New("--partial writes a state, not a report: give --sort and --top to the --merge that reads it")
	}
	return nil
}

// mergeFlags refuses what the partial states already say.
func mergeFlags(opts *options) error {
	switch {
	case opts.By != "run" || opts.Since != "" || opts.Until != "" || opts.TZ != "UTC":
		return errors.New("--merge takes --by, --tz and the window from the partial states; give them to --partial")
	case opts.Breakdown != "":
		// the states hold the parts of each group, or not
		return errors.New("--merge takes --breakdown from the partial states; give it to --partial")
	}
	return nil
}

// reportFormat is --format, or what its absence means: the table on a
// terminal, and wherever the table's own flags ask for it; jsonl in a
// pipe or a file.
func reportFormat(opts *options, tty bool) (string, error) {
	switch f := opts.Format; {
	case f == "" && (tty || opts.Columns != "" || opts.Width != 0 || opts.Wide || opts.Live == "always"):
		return "table", nil
	case f == "":
		return "jsonl", nil
	case !slices.Contains(formats, f):
		return "", fmt.Errorf("--format %q: one of %s", f, strings.Join(formats, ", "))
	default:
		return f, nil
	}
}

// tableFlags checks that the table's flags go with format and each other.
func tableFlags(opts *options, format string) error {
	switch {
	case opts.Width < 0:
		return fmt.Errorf("--width %d: the number of columns to fit the table in", opts.Width)
	case opts.Wide && opts.Width > 0:
		return errors.New("--wide shows every column, --width fits them in: give one of them")
	case (opts.Width > 0 || opts.Wide) && format != "table":
		return fmt.Errorf("--width and --wide shape the table: not with --format %s", format)
	case opts.Columns != "" && format != "table" && format != "md" && format != "html":
		return fmt.Errorf("--columns chooses the columns of the table, md and html: not with --format %s", format)
	case opts.Live == "always" && format != "table":
		return fmt.Errorf("--live always redraws the table: not with --format %s", format)
	case opts.Live == "always" && opts.Merge:
		return errors.New("--live always redraws the table as events arrive: not with --merge")
	}
	return nil
}
