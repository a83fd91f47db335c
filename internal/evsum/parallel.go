package evsum

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// evsum on several cores: a regular file is cut at line boundaries into as
// many parts as there are cores, the parts are summarised at once, each
// into a state of its own, and the states are merged in input order, which
// is what --partial and --merge do across processes, and gives one pass's
// summary byte for byte (the merge pairs a glasspane turn cut by a part's
// end when the parts come in order).
//
// What one pass says on stderr is said the same: each part keeps its first
// bad lines (MaxBadReports) with their line numbers within the part, and
// once all are read they are reported in input order, numbered from the
// file's start, through the same Input, which caps and summarises them per
// file as one pass does. Whatever one pass would do differently keeps one
// pass: stdin and pipes, gzip and zstd (which cannot be cut), --strict
// (which stops at the first bad line), --live, a file that cannot be
// opened; and, found only while reading, a NUL byte (the rest of the file
// is skipped), a read error, or sums that would go out of range only when
// the parts are merged: then the parts are dropped, nothing having been
// written, and the input is read again in one pass.

// minPart is the smallest part worth a core of its own; tests lower it.
var minPart int64 = 4 << 20

// cores is how many parts a file is cut into at most; tests raise it.
var cores = func() int { return runtime.GOMAXPROCS(0) }

// errOnePass says the parts cannot give one pass's result: read again.
var errOnePass = errors.New("read in one pass")

// part is a byte range of a file, cut at line boundaries.
type part struct {
	file     *os.File
	name     string
	from, to int64
	first    bool // the file's first part: its BOM is the file's
}

// badLine is a bad line of a part, numbered within the part.
type badLine struct {
	line int
	err  error
}

// partResult is what a part gives: its state, its lines and its bad
// lines (the first MaxBadReports; bads counts them all).
type partResult struct {
	st    *summary.State
	lines int
	bad   []badLine
	bads  int
	err   error // errOnePass, or nil
}

// planParts opens the inputs and cuts them into parts; nil when the input
// is to be read in one pass. The files are closed by closeParts.
func planParts(names []string, n int) []part {
	if n < 2 || len(names) == 0 {
		return nil
	}
	var parts []part
	ok := false
	for _, name := range names {
		if name == "-" {
			closeParts(parts)
			return nil
		}
		f, err := os.Open(name)
		if err != nil {
			closeParts(parts)
			return nil
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() || compressed(f) {
			f.Close()
			closeParts(parts)
			return nil
		}
		size := fi.Size()
		cuts := cutPoints(f, size, n)
		if len(cuts) > 2 {
			ok = true
		}
		for i := 0; i+1 < len(cuts); i++ {
			parts = append(parts, part{file: f, name: name, from: cuts[i], to: cuts[i+1], first: i == 0})
		}
		if size == 0 {
			parts = append(parts, part{file: f, name: name, first: true})
		}
	}
	if !ok { // nothing to share between cores
		closeParts(parts)
		return nil
	}
	return parts
}

func closeParts(parts []part) {
	var last *os.File
	for _, p := range parts {
		if p.file != last {
			p.file.Close()
			last = p.file
		}
	}
}

// compressed says whether f starts as gzip or zstd does.
func compressed(f *os.File) bool {
	var b [4]byte
	n, _ := f.ReadAt(b[:], 0)
	return startsMagic(b[:n])
}

// startsMagic says whether b starts with what jsonl takes for gzip or zstd,
// or with a BOM, which it takes away from a first line only: a part must
// not start with any of them.
func startsMagic(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) ||
		bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf})
}

// cutPoints cuts [0, size) into at most n parts of at least minPart bytes,
// each starting just after a '\n': the offsets from 0 to size.
func cutPoints(f *os.File, size int64, n int) []int64 {
	n = int(min(int64(n), size/max(minPart, 1)))
	cuts := []int64{0}
	for i := 1; i < n; i++ {
		at := size * int64(i) / int64(n)
		if at <= cuts[len(cuts)-1] {
			continue
		}
		c, ok := lineStart(f, at, size)
		if !ok {
			break
		}
		if c > cuts[len(cuts)-1] && c < size {
			cuts = append(cuts, c)
		}
	}
	return append(cuts, size)
}

// lineStart finds the start of the first line after offset at that does not
// start as a compressed stream or a BOM would.
func lineStart(f *os.File, at, size int64) (int64, bool) {
	buf := make([]byte, 64<<10)
	for from := at; at < size; {
		if at-from > maxPartLine {
			return 0, false // a huge line: see maxPartLine
		}
		n, err := f.ReadAt(buf, at)
		if n == 0 {
			return 0, err == nil
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			c := at + int64(i) + 1
			var head [4]byte
			m, _ := f.ReadAt(head[:], c)
			if !startsMagic(head[:m]) {
				return c, true
			}
			at = c
			continue
		}
		at += int64(n)
	}
	return 0, false
}

// counter counts the bytes read, for the progress meter.
type counter struct {
	r io.Reader
	n *atomic.Int64
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// summarisePart reads one part into a state of its own.
func summarisePart(p part, o summary.Options, order summary.Order, read *atomic.Int64, stop *atomic.Bool) partResult {
	st := summary.New(o)
	st.SetOrder(order)
	// A part after the first starts with a line that jsonl cannot take
	// for a compressed stream or a BOM (see lineStart).
	rd := lineReader{r: counter{io.NewSectionReader(p.file, p.from, p.to-p.from), read}, buf: make([]byte, partBuf), stop: stop}
	res := partResult{st: st}
	for {
		data, ok := rd.next()
		if !ok {
			break
		}
		if e := st.Add(data); e != nil {
			res.bads++
			if len(res.bad) < jsonl.MaxBadReports {
				res.bad = append(res.bad, badLine{rd.line, e})
			}
		}
	}
	if rd.err != io.EOF || stop.Load() {
		// binary data (one pass skips the rest), a huge line, a read
		// error, or another part's stop
		stop.Store(true)
		return partResult{err: errOnePass}
	}
	res.lines = rd.line
	return res
}

// lineReader frames a part's records as jsonl.Reader frames a file's
// (jsonl.Reader releases the output guard around its reads, which only
// the main goroutine holds), by jsonl.Trim's rules, reading the part in
// blocks of its own buffer's size: the lines of a block are found with
// one search each and handed out in place, and a block is looked at for
// a NUL byte once, not line by line.
type lineReader struct {
	r        io.Reader
	buf      []byte
	beg, end int  // the bytes of buf not handed out yet
	eof      bool // r has no more
	line     int
	long     []byte
	err      error        // io.EOF at a clean end; errOnePass for binary data or a huge line
	stop     *atomic.Bool // set by the part that met a huge line or binary data: all stop
}

// partBuf is the size of a part's read buffer; tests lower it.
var partBuf = 256 << 10

// maxPartLine is the longest line the parts read: a longer one sends the
// input to one pass.
const maxPartLine = 1 << 20

func (r *lineReader) next() ([]byte, bool) {
	for r.err == nil {
		line, ok := r.raw()
		if !ok {
			return nil, false
		}
		r.line++
		// No part starts with a BOM: a file that does is read in one
		// pass (compressed), and lineStart cuts before no other.
		if rec, blank := jsonl.Trim(line, false); !blank {
			return rec, true
		}
	}
	return nil, false
}

// raw returns the next line as read, its '\n' included (the last line's
// may be missing), or false with r.err set.
func (r *lineReader) raw() ([]byte, bool) {
	for {
		if i := bytes.IndexByte(r.buf[r.beg:r.end], '\n'); i >= 0 {
			line := r.buf[r.beg : r.beg+i+1]
			r.beg += i + 1
			return line, true
		}
		if r.eof {
			if r.beg == r.end {
				r.err = io.EOF
				return nil, false
			}
			line := r.buf[r.beg:r.end]
			r.beg = r.end
			return line, true
		}
		if r.beg == 0 && r.end == len(r.buf) {
			return r.rawLong()
		}
		r.end = copy(r.buf, r.buf[r.beg:r.end])
		r.beg = 0
		if !r.fill() {
			return nil, false
		}
	}
}

// fill reads into the free end of buf; false with r.err set on binary
// data, a read error or another part's stop.
func (r *lineReader) fill() bool {
	if r.stop.Load() {
		r.err = errOnePass
		return false
	}
	n, err := r.r.Read(r.buf[r.end:])
	// No line of JSON text holds a NUL byte: a part that meets one
	// leaves the input to one pass, which reports it and skips the rest.
	if bytes.IndexByte(r.buf[r.end:r.end+n], 0) >= 0 {
		r.err = errOnePass
		return false
	}
	r.end += n
	switch {
	case err == io.EOF:
		r.eof = true
	case err != nil:
		r.err = err
		return false
	}
	return true
}

// rawLong gathers a line longer than buf, up to maxPartLine: parts would
// each hold a longer line and their states a copy of its run_id, where
// one pass holds one.
func (r *lineReader) rawLong() ([]byte, bool) {
	r.long = append(r.long[:0], r.buf[r.beg:r.end]...)
	r.beg, r.end = 0, 0
	for {
		if len(r.long) > maxPartLine {
			r.err = errOnePass
			return nil, false
		}
		if r.eof {
			return r.long, true
		}
		if !r.fill() {
			return nil, false
		}
		if i := bytes.IndexByte(r.buf[:r.end], '\n'); i >= 0 {
			r.long = append(r.long, r.buf[:i+1]...)
			r.beg = i + 1
			return r.long, true
		}
		r.long = append(r.long, r.buf[:r.end]...)
		r.end = 0
	}
}

// summariseParts summarises the parts on as many goroutines as cores and
// merges their states in order into one; it reports the bad lines through
// in. errOnePass when one pass must read the input instead (nothing was
// reported then).
func summariseParts(in *jsonl.Input, parts []part, o summary.Options, order summary.Order) (*summary.State, error) {
	results := make([]partResult, len(parts))
	done := make([]chan struct{}, len(parts))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var read atomic.Int64
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(cores(), len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return
				}
				results[i] = summarisePart(parts[i], o, order, &read, &stop)
				close(done[i])
			}
		}()
	}
	// Merge in order as parts end; meanwhile the meter is told how far
	// the parts have read, and a signal may stop the tool (nothing is
	// written before the input has been read).
	var st *summary.State
	var failed error
	metered := int64(0)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	meter := func() {
		if n := read.Load(); in.Meter != nil && n > metered {
			in.Meter.Read(int(n - metered))
			metered = n
		}
	}
	for i := range parts {
		for waiting := true; waiting; {
			jsonl.Waiting(func() {
				select {
				case <-done[i]:
					waiting = false
				case <-tick.C:
				}
			})
			meter()
		}
		r := &results[i]
		switch {
		case failed != nil:
		case r.err != nil:
			failed = r.err
		case st == nil:
			st = r.st
		case !st.Fits(r.st):
			failed = errOnePass
		default:
			st.Merge(r.st)
		}
		r.st = nil
	}
	wg.Wait()
	meter()
	if failed != nil {
		return nil, failed
	}
	base := 0
	for i, p := range parts {
		if p.first {
			base = 0
		}
		r := &results[i]
		for j := 0; j < r.bads; j++ {
			b := badLine{err: errUnreported}
			if j < len(r.bad) {
				b = r.bad[j]
			}
			in.Bad(jsonl.Record{File: p.name, Line: base + b.line}, b.err)
		}
		base += r.lines
	}
	return st, nil
}

// errUnreported stands for the reason of a bad line past the ones reported
// one by one: Input only counts it.
var errUnreported = errors.New("bad line")

// quietMeter passes a meter's reads on only when on: the progress of the
// parts, not of the stand-in input that runs them (see parallel).
type quietMeter struct {
	m  jsonl.Meter
	on bool
}

func (q *quietMeter) Read(n int) {
	if q.on {
		q.m.Read(n)
	}
}

func (q *quietMeter) Clear() { q.m.Clear() }

// parallel summarises the parts into a state, or returns nil when the
// input must be read in one pass (nothing was reported then). The parts
// are read inside in.Each, over a stand-in input of one line, so that the
// meter is cleared as Each clears it, on a signal too.
func parallel(in *jsonl.Input, parts []part, o summary.Options, order summary.Order) *summary.State {
	defer closeParts(parts)
	names, stdin, meter := in.Names, in.Stdin, in.Meter
	defer func() { in.Names, in.Stdin, in.Meter = names, stdin, meter }()
	var q *quietMeter
	if meter != nil {
		q = &quietMeter{m: meter}
		in.Meter = q
	}
	in.Names, in.Stdin = []string{"-"}, bytes.NewReader([]byte("{}\n"))
	var st *summary.State
	in.Each(func(jsonl.Record) error {
		if q != nil {
			q.on = true
		}
		st, _ = summariseParts(in, parts, o, order)
		return nil
	})
	return st
}

// parallelState is the summary of the inputs read on several cores, or nil
// when they are to be read in one pass: --strict stops at the first bad
// line, which only one pass finds first; groups by tool name updates by
// the start of their call, which may be in an earlier part.
func parallelState(opts *options, in *jsonl.Input, o summary.Options, order summary.Order) *summary.State {
	if opts.Strict || !summary.New(o).Splittable() {
		return nil
	}
	parts := planParts(opts.Files, cores())
	if parts == nil {
		return nil
	}
	return parallel(in, parts, o, order)
}
