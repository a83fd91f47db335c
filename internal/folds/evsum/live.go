package evsum

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// How often a live table is redrawn at most, and at least while nothing
// arrives (a run still going turns incomplete with time alone).
var (
	liveInterval = 250 * time.Millisecond
	liveIdle     = time.Second
)

// live redraws the table in place while the input is read. The reading
// goroutine adds each record under mu; the redrawing one builds a frame
// under mu, then writes it without: reading never waits for the terminal.
type live struct {
	mu    sync.Mutex // guards st and dirty
	st    *summary.State
	dirty bool

	frame func(*summary.State) []byte // draws a frame; called with mu held
	out   io.Writer                   // the terminal
	held  *heldWriter                 // stderr while frames are up, or nil
	width func() int                  // the terminal's

	lines int    // lines of the frame on the screen
	last  []byte // that frame
	stop  chan struct{}
	done  chan struct{}
}

func startLive(st *summary.State, out io.Writer, held *heldWriter, width func() int, frame func(*summary.State) []byte) *live {
	l := &live{st: st, out: out, held: held, width: width, frame: frame, stop: make(chan struct{}), done: make(chan struct{})}
	go l.loop()
	return l
}

// add adds an event to the state.
func (l *live) add(data []byte) error {
	l.mu.Lock()
	err := l.st.Add(data)
	l.dirty = true
	l.mu.Unlock()
	return err
}

func (l *live) loop() {
	defer close(l.done)
	t := time.NewTicker(liveInterval)
	defer t.Stop()
	var drawn time.Time
	var cost time.Duration // of the last frame
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		// A frame of many groups takes a while to build, and reading
		// waits meanwhile: the next one comes no sooner than 8 times
		// that later, so that redraws never take more than a ninth of
		// the time.
		if time.Since(drawn) < 8*cost {
			continue
		}
		var frame []byte
		l.mu.Lock()
		if l.dirty || l.lines > 0 && time.Since(drawn) >= liveIdle {
			start := time.Now()
			frame = l.frame(l.st)
			l.dirty = false
			drawn = time.Now()
			cost = drawn.Sub(start)
		}
		l.mu.Unlock()
		msgs := l.held.take(false)
		if frame == nil || bytes.Equal(frame, l.last) {
			if len(msgs) == 0 {
				continue
			}
			frame = l.last
		}
		// Back to the frame's first line; messages go over it, and the
		// frame under them. Each line is cleared as it is overwritten,
		// and what is left of a taller frame below is cleared after: a
		// redraw never blanks the screen first (no flicker, and tmux,
		// which saves a screen cleared from its top corner in its
		// history, keeps no copy of a frame).
		b := l.up()
		if len(msgs) > 0 {
			l.out.Write(b)
			b = nil
			l.held.w.Write(clearMessages(msgs, l.width()))
		}
		b = append(clearLines(b, frame), term.EraseBelow...)
		l.out.Write(b)
		l.last, l.lines = frame, rows(frame, l.width())
	}
}

// rows is how many rows of a terminal width wide text takes: a line
// wider than that (a --wide table) wraps onto more than one.
func rows(text []byte, width int) int {
	n := 0
	for line := range bytes.Lines(text) {
		w := cellWidth(sgr.ReplaceAllString(string(bytes.TrimSuffix(line, []byte("\n"))), ""))
		n += max(1, (w+width-1)/max(width, 1))
	}
	return n
}

// sgr matches the colour sequences of a table, which take no room.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*[mK]")

// up moves the cursor back to the first line of the frame on the screen.
func (l *live) up() []byte {
	if l.lines == 0 {
		return nil
	}
	return []byte(term.CursorUp(l.lines) + "\r")
}

// finish stops the redraws and gets the screen ready for the final table:
// it moves the cursor to the frame's first line and writes the messages
// held back there. It reports whether a frame is still there for the
// table to overwrite (see clearLines).
func (l *live) finish() bool {
	close(l.stop)
	<-l.done
	// From now on messages go straight through (the report's last ones).
	msgs := l.held.take(true)
	if l.lines == 0 {
		if len(msgs) > 0 {
			l.held.w.Write(msgs)
		}
		return false
	}
	l.out.Write(l.up())
	if len(msgs) > 0 {
		l.held.w.Write(clearMessages(msgs, l.width()))
	}
	return true
}

// clearMessages clears each line of msgs before it is written, and after
// it what is left of the line it ends on, unless it ends at the right
// margin (where a clear would take its last character). width is the
// terminal's.
func clearMessages(msgs []byte, width int) []byte {
	var b []byte
	for line := range bytes.Lines(msgs) {
		text := bytes.TrimSuffix(line, []byte("\n"))
		b = append(append(b, term.EraseLine...), text...)
		if n := cellWidth(string(text)); width <= 0 || n%width != 0 {
			b = append(b, term.EraseLine...)
		}
		b = append(b, line[len(text):]...)
	}
	return b
}

// clearLines appends text to b with every line cleared (EL, CSI K) before
// it is written. The clear comes first: after a line as wide as the
// terminal it would also clear the line's last character.
func clearLines(b, text []byte) []byte {
	for line := range bytes.Lines(text) {
		b = append(append(b, term.EraseLine...), line...)
	}
	return b
}

// overwriter writes a table over a frame: every line cleared first, as
// clearLines does.
type overwriter struct {
	w   stringWriter
	mid bool // inside a line
}

func (o *overwriter) WriteString(s string) (int, error) {
	var b []byte
	if o.mid {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return o.w.WriteString(s)
		}
		b, s = append(b, s[:i+1]...), s[i+1:]
	}
	b = clearLines(b, []byte(s))
	o.mid = s != "" && !strings.HasSuffix(s, "\n")
	return o.w.WriteString(string(b))
}

// Err is the first write error of the writer underneath, if it keeps one.
func (o *overwriter) Err() error {
	if e, ok := o.w.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// heldWriter holds stderr's messages while a live table is on the same
// terminal: the redraw writes them above the table.
type heldWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	w        io.Writer
	released bool // no frame any more: written through
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return h.w.Write(p)
	}
	return h.buf.Write(p)
}

// take returns the messages held and forgets them; with release, it lets
// the next ones through.
func (h *heldWriter) take(release bool) []byte {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released = h.released || release
	b := bytes.Clone(h.buf.Bytes())
	h.buf.Reset()
	return b
}

// liveInput reports whether an input may still be written to: a pipe, a
// terminal or a socket, not a regular file.
func liveInput(names []string, stdin io.Reader) bool {
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, n := range names {
		fi, err := jsonl.StatInput(n, stdin)
		if err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeCharDevice|os.ModeSocket) != 0 {
			return true
		}
	}
	return false
}
