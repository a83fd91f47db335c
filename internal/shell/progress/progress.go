// Package progress is the progress line a tool shows on stderr while it
// reads large files: how much is read, how fast, and how long is left,
// redrawn in place and taken off before anything else is written there.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/pkg/jsonl"
)

const (
	// progressAfter is how long a run goes on before its progress is
	// shown: a short one shows nothing.
	progressAfter = time.Second
	// progressEvery is how often, at most, the line is redrawn.
	progressEvery = 200 * time.Millisecond
)

// progressClock is the clock of the progress meters; tests replace it.
var progressClock = time.Now

// New returns a progress meter for jsonl.Input.Meter: once the run
// has gone on for a second, a line on stderr, redrawn in place at most five
// times a second, says how far the tool has read its inputs, e.g.
//
//	evfilter: 412 MB of 1.0 GB (40%), 210 MB/s, 3s left
//
// fitted to the terminal's width, and taken off before every message and
// when the input ends. The sizes are of the files as stored: for gzip and
// zstd files, compressed bytes.
//
// It returns nil, no meter, unless stderr is a terminal, stdout is not (the
// events shown there are progress enough, and a redrawn line would break
// into them: a tool that writes nothing on stdout before its input ends
// passes Out nil), and the inputs (names, none or "-" for stdin) are
// regular files: a size to measure against, and no live stream.
//
// The meter costs the reading loop nothing per record: it is told of each
// read of a file (256 KiB), and is nil when off.
func New(tool string, stdio cli.Stdio, names []string) jsonl.Meter {
	if !term.IsTerminal(stdio.Err) || term.IsTerminal(stdio.Out) {
		return nil
	}
	total, ok := inputSize(names, stdio.In)
	if !ok {
		return nil
	}
	// Its own control sequences go to the terminal itself; the line holds
	// no data.
	return newProgress(tool, term.Raw(stdio.Err), total, progressClock, func() int { return term.Width(stdio.Err) })
}

// inputSize is the number of bytes the inputs called names hold, and false
// if one of them is neither a regular file nor a file that cannot be read
// (which is reported and skipped).
func inputSize(names []string, stdin io.Reader) (int64, bool) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	var total int64
	for _, name := range names {
		if name == "-" {
			f, ok := stdin.(*os.File)
			if !ok {
				return 0, false
			}
			st, err := f.Stat()
			if err != nil || !st.Mode().IsRegular() {
				return 0, false
			}
			// `(read a; evfilter ...) < file` reads stdin from where the
			// shell left it.
			off, _ := f.Seek(0, io.SeekCurrent)
			total += max(st.Size()-off, 0)
			continue
		}
		st, err := os.Stat(name)
		switch {
		case err == nil && st.IsDir():
			// an archive: its segments are read, as stored (what the
			// meter counts); what cannot be read is reported then
			for _, e := range jsonl.Expand([]string{name}, func(error) {}) {
				total += e.Segment.Bytes
			}
		case err != nil: // reported and skipped
		case st.Mode().IsRegular():
			total += st.Size()
		default: // a pipe, a device: no size, maybe live
			return 0, false
		}
	}
	return total, total > 0
}

// progress is the meter New returns.
type progress struct {
	tool  string
	w     io.Writer
	total int64
	now   func() time.Time
	width func() int

	mu    sync.Mutex // Clear may come from the signal handler
	read  int64
	start time.Time
	last  time.Time // of the last redraw
	shown bool
}

func newProgress(tool string, w io.Writer, total int64, now func() time.Time, width func() int) *progress {
	return &progress{tool: tool, w: w, total: total, now: now, width: width, start: now()}
}

// Read counts n bytes read and redraws the line when it is time.
func (p *progress) Read(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.read += int64(n)
	t := p.now()
	if t.Sub(p.start) < progressAfter || t.Sub(p.last) < progressEvery {
		return
	}
	p.last = t
	p.shown = true
	io.WriteString(p.w, "\r"+progressLine(p.tool, p.read, p.total, t.Sub(p.start), p.width())+term.EraseLine)
}

// Clear takes the line off the terminal, if it is on.
func (p *progress) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, "\r"+term.EraseLine)
		p.shown = false
	}
}

// progressLine says that read of total bytes were read in elapsed, in at
// most width-1 columns (a character in the last column may wrap the line).
// What matters least goes first when the line is too wide: the total, the
// rate, the bytes read, the tool's name, the time left.
func progressLine(tool string, read, total int64, elapsed time.Duration, width int) string {
	rate := 0.0
	if elapsed > 0 {
		rate = float64(read) / elapsed.Seconds()
	}
	name := tool + ": "
	amount := byteSize(float64(read))
	speed := byteSize(rate) + "/s"
	var lines []string
	if read > total {
		// A file that grew while it was read: no share, no end in sight.
		lines = []string{name + amount + ", " + speed, name + amount, amount}
	} else {
		pct := strconv.FormatInt(read*100/total, 10) + "%"
		left := ""
		if rate > 0 && read < total {
			left = ", " + duration(float64(total-read)/rate) + " left"
		}
		lines = []string{
			name + amount + " of " + byteSize(float64(total)) + " (" + pct + "), " + speed + left,
			name + amount + " (" + pct + "), " + speed + left,
			name + amount + " (" + pct + ")" + left,
			name + pct + left,
			pct + left,
			pct,
		}
	}
	for _, l := range lines {
		if len(l) < width { // ASCII: a byte is a column
			return l
		}
	}
	return "" // a part of "40%" would mislead
}

// byteSize writes n bytes in decimal units (kB, MB, GB: powers of 1000),
// with two or three significant digits: "512 B", "4.2 MB", "412 MB".
func byteSize(n float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for n >= 999.5 && i < len(units)-1 {
		n /= 1000
		i++
	}
	if i > 0 && n < 9.95 {
		return fmt.Sprintf("%.1f %s", n, units[i])
	}
	return fmt.Sprintf("%.0f %s", n, units[i])
}

// duration writes s seconds, rounded up, as "3s", "1m05s" or "2h03m".
func duration(s float64) string {
	if s > math.MaxInt32 {
		s = math.MaxInt32 // a rate of a few bytes a second
	}
	return textfmt.Seconds(int64(math.Ceil(s)))
}
