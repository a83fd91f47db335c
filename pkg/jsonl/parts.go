package jsonl

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
)

// Parts reads an Input's regular files on several goroutines, each a
// contiguous part of a file cut at a line boundary, into a state of its
// own (New, Add); the reading goroutine then merges the states in input
// order (Merge) and reports the bad lines numbered from each file's
// start, capped per file, as Each would have. It suits a tool whose
// records depend on the ones before (evsum's runs and turns) but whose
// states of consecutive parts merge into the state of the whole.
//
// With Serial set, inputs that cannot be cut beforehand (stdin, a pipe,
// a gzip or zstd file, files too small to cut, a mix of these and files)
// are read as a stream instead (see stream): chunks of whole lines, read
// in order on the calling goroutine, each summarised on a worker into a
// state of its own and merged in order. Such an input cannot be read
// again, so whatever a part cannot do as one pass does is done by Serial
// on the merged state, from where the parts stopped: a line longer than
// a few read buffers, and every line from the chunk whose Merge returns
// ErrOnePass to the end of the input.
//
// Without Serial, whatever only one pass can do the same is left to one
// pass (Each returns ErrOnePass, having reported nothing): stdin, a pipe,
// a gzip or zstd file, a file that cannot be opened, one too small to
// cut. Found while reading a file's parts, a NUL byte, a line longer than
// MaxLine, a read error, or a Merge that returns ErrOnePass make Each
// return ErrOnePass too, with or without Serial: a file can be read again.
type Parts[S any] struct {
	Workers   int   // goroutines reading parts, and the parts of a file at most
	MinPart   int64 // the smallest part worth a goroutine (DefaultMinPart when 0)
	BufSize   int   // a part's read buffer (DefaultBlockSize when 0)
	MaxLine   int   // the longest line a part reads (DefaultMaxLine when 0)
	ChunkSize int   // a stream's chunks (DefaultChunkSize when 0)

	New   func() S                    // a part's empty state, on its goroutine
	Add   func(s S, rec []byte) error // adds a record; its error makes it a bad line
	Merge func(s S) error             // the parts' states, in input order

	// Serial adds a record to the state merged so far, on the reading
	// goroutine, as one pass adds it; its error makes it a bad line. Nil:
	// what cannot be cut beforehand is left to one pass.
	Serial func(rec []byte) error
}

// DefaultMinPart is the smallest part Parts gives a goroutine.
const DefaultMinPart = 4 << 20

// DefaultMaxLine is the longest line Parts reads: each part would hold a
// longer line, and its state a copy of what it keeps of it (a run_id),
// where one pass holds one.
const DefaultMaxLine = 1 << 20

// ErrOnePass says that Parts cannot give one pass's result: read the input
// with Each instead. Nothing was reported.
var ErrOnePass = errors.New("jsonl: read in one pass")

// part is a byte range of a file, cut at line boundaries.
type part struct {
	file     *os.File
	name     string
	from, to int64
	first    bool // the file's first part: its first line is the file's
}

// badLine is a bad line of a part, numbered within the part.
type badLine struct {
	line int
	err  error
}

// partResult is what a part gives: its state, its lines and its first
// maxBadReports bad lines (bads counts them all).
type partResult[S any] struct {
	pt    part // the part to read
	st    S
	lines int
	bad   []badLine
	bads  int
	err   error // ErrOnePass, or nil
}

// Each reads in's files in parts and merges their states; with Serial,
// inputs that cannot be cut are read as a stream (see stream). It returns
// ErrOnePass when the inputs must be read in one pass (nothing was
// reported then), the first error Merge returns, or what Input.Each
// returns for the inputs read as a stream (ErrStrict, an output error, a
// *stop.Error).
func (p *Parts[S]) Each(in *Input) error {
	parts := p.plan(in.Entries())
	if parts == nil {
		if p.Workers < 2 || p.Serial == nil || in.Growing > 0 {
			return ErrOnePass
		}
		return p.stream(in)
	}
	defer closeParts(parts)
	return in.metered(func() error { return p.read(in, parts) })
}

// read reads the parts on p.Workers goroutines (Ordered) and merges them
// in order; it reports the bad lines only once every part merged.
func (p *Parts[S]) read(in *Input, parts []part) error {
	var read atomic.Int64 // bytes read, for the meter
	var stop atomic.Bool  // a part failed: the others stop
	results := make([]partResult[S], 0, len(parts))
	work := func(_ struct{}, j *partResult[S]) { *j = p.readPart(j.pt, &read, &stop) }
	take := func(j *partResult[S]) error {
		r := *j
		*j = partResult[S]{} // merged: the part's own state may go
		err := r.err
		if err == nil {
			err = p.Merge(r.st)
		}
		if err != nil {
			stop.Store(true)
			return err
		}
		r.st = *new(S)
		results = append(results, r)
		return nil
	}
	o := NewOrdered(min(p.Workers, len(parts)), len(parts), 0, func() struct{} { return struct{}{} }, work, take)
	defer o.Close()
	// Nothing is written before every part is read: meanwhile a signal
	// may stop the tool, and the meter follows the parts.
	o.Idle = true
	metered := int64(0)
	o.Tick = func() {
		if n := read.Load(); in.Meter != nil && n > metered {
			in.Meter.Read(int(n - metered))
			metered = n
		}
	}
	for _, pt := range parts {
		o.Next().pt = pt
		o.Send(0) // nothing is taken before Drain: every part may be ahead
	}
	if err := o.Drain(); err != nil {
		return err
	}
	p.report(in, parts, results)
	return nil
}

// report reports the parts' bad lines through in, numbered from the start
// of their file, as one pass would have.
func (p *Parts[S]) report(in *Input, parts []part, results []partResult[S]) {
	base := 0
	for i, pt := range parts {
		if pt.first {
			base = 0
		}
		r := &results[i]
		for j := range r.bads {
			b := badLine{err: errUnreported}
			if j < len(r.bad) {
				b = r.bad[j]
			}
			in.Bad(Record{File: pt.name, Line: base + b.line}, b.err)
		}
		base += r.lines
	}
}

// errUnreported stands for the reason of a bad line past the ones reported
// one by one: Input only counts it.
var errUnreported = errors.New("bad line")

// readPart reads one part into a state of its own.
func (p *Parts[S]) readPart(pt part, read *atomic.Int64, stop *atomic.Bool) partResult[S] {
	res := partResult[S]{st: p.New()}
	pr := partReader{
		r:       io.NewSectionReader(pt.file, pt.from, pt.to-pt.from),
		buf:     make([]byte, orDefault(p.BufSize, DefaultBlockSize)),
		maxLine: orDefault(p.MaxLine, DefaultMaxLine),
		first:   pt.first,
		read:    read,
		stop:    stop,
	}
	err := pr.each(func(line int, rec []byte) {
		if e := p.Add(res.st, rec); e != nil {
			res.bads++
			if len(res.bad) < maxBadReports {
				res.bad = append(res.bad, badLine{line, e})
			}
		}
	})
	if err != nil {
		stop.Store(true)
		return partResult[S]{err: ErrOnePass}
	}
	res.lines = pr.lines
	return res
}

// orDefault is n, or def when n is not positive: a size left at 0 is the
// default's.
func orDefault[T int | int64](n, def T) T {
	if n <= 0 {
		return def
	}
	return n
}

// partReader frames a part's records by the rules Each applies, reading
// the part in blocks of buf's size straight into buf and framing each
// block's whole lines in place (Block.Frame): a block is looked at for a
// NUL byte once, not line by line. It does not release the output guard
// around its reads as a source does: only the reading goroutine holds it.
type partReader struct {
	r       io.Reader
	buf     []byte
	maxLine int
	first   bool // the next line is the file's first
	read    *atomic.Int64
	stop    *atomic.Bool
	lines   int   // lines framed, blank ones included
	block   Block // the lines being framed
}

// each calls fn with every record of the part and its line in the part;
// ErrOnePass for a NUL byte, a line longer than maxLine, a read error or
// another part's stop.
func (r *partReader) each(fn func(line int, rec []byte)) error {
	n := 0          // bytes of buf read, from the start of a line
	var long []byte // a line longer than buf, gathered
	inLong := false
	for {
		if r.stop.Load() {
			return ErrOnePass
		}
		m, err := io.ReadFull(r.r, r.buf[n:])
		r.read.Add(int64(m))
		n += m
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return ErrOnePass
		}
		data := r.buf[:n]
		cut := n // whole lines: up to the last '\n', or all at the end
		if !eof {
			cut = len(WholeLines(data))
		}
		if cut == 0 && !eof { // one line fills buf
			long, inLong, n = append(long, data...), true, 0
			if len(long) > r.maxLine {
				return ErrOnePass
			}
			continue
		}
		if inLong {
			line, _ := cutLine(data) // the long line's end
			end := len(line)
			long = append(long, data[:end]...)
			if len(long) > r.maxLine || !r.frame(long, fn) {
				return ErrOnePass
			}
			long, inLong = long[:0], false
			data, cut = data[end:], cut-end
		}
		if !r.frame(data[:cut], fn) {
			return ErrOnePass
		}
		if eof {
			return nil
		}
		n = copy(r.buf, data[cut:])
	}
}

// frame hands fn the records of whole lines; false on a NUL byte, which
// one pass reports and skips the rest of the file after.
func (r *partReader) frame(lines []byte, fn func(line int, rec []byte)) bool {
	b := &r.block
	b.Data, b.first = lines, r.first
	r.first = false
	// b.lines is the record's line while the record is handed over
	b.Frame(func(_ int, rec []byte) { fn(r.lines+b.lines, rec) })
	r.lines += b.lines
	return b.binary == 0
}

// plan opens the named files and cuts them into parts; nil when they are
// to be read in one pass (the files are closed then, and otherwise by
// closeParts).
func (p *Parts[S]) plan(entries []Entry) []part {
	if p.Workers < 2 || len(entries) == 0 {
		return nil
	}
	var parts []part
	cut := false // some file is in more than one part
	for _, e := range entries {
		name := e.Name
		if e.Err != nil {
			closeParts(parts)
			return nil
		}
		f, size, ok := plainFile(name)
		if !ok {
			closeParts(parts)
			return nil
		}
		cuts := p.cutPoints(f, size)
		cut = cut || len(cuts) > 2
		for i := 0; i+1 < len(cuts); i++ {
			parts = append(parts, part{file: f, name: name, from: cuts[i], to: cuts[i+1], first: i == 0})
		}
		if size == 0 {
			parts = append(parts, part{file: f, name: name, first: true})
		}
	}
	if !cut { // nothing to share between goroutines
		closeParts(parts)
		return nil
	}
	return parts
}

// plainFile opens name when it is a regular file stored as is (not gzip or
// zstd, which cannot be cut), and returns its size.
func plainFile(name string) (*os.File, int64, bool) {
	if name == "-" {
		return nil, 0, false
	}
	// Not opened unless regular: opening a FIFO waits for its writer, and
	// closing it again may leave the writer writing to no reader.
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, false
	}
	var head [4]byte
	n, _ := f.ReadAt(head[:], 0)
	fi, err := f.Stat()
	if codec, _ := codecOf(head[:n]); err != nil || !fi.Mode().IsRegular() || codec != "" {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
}

func closeParts(parts []part) {
	var last *os.File
	for _, pt := range parts {
		if pt.file != last {
			pt.file.Close()
			last = pt.file
		}
	}
}

// cutPoints cuts [0, size) into at most p.Workers parts of at least
// MinPart bytes, each starting just after a '\n': the offsets from 0 to
// size.
func (p *Parts[S]) cutPoints(f *os.File, size int64) []int64 {
	minPart := orDefault(p.MinPart, DefaultMinPart)
	n := int(min(int64(p.Workers), size/minPart))
	cuts := []int64{0}
	for i := 1; i < n; i++ {
		at := size * int64(i) / int64(n)
		if at <= cuts[len(cuts)-1] {
			continue
		}
		c, ok := lineStart(f, at, size, orDefault(p.MaxLine, DefaultMaxLine))
		if !ok {
			break
		}
		if c > cuts[len(cuts)-1] && c < size {
			cuts = append(cuts, c)
		}
	}
	return append(cuts, size)
}

// lineStart finds the start of the first line after offset at, looking no
// further than maxLine: a part would not read a longer line.
func lineStart(f *os.File, at, size int64, maxLine int) (int64, bool) {
	buf := make([]byte, 64<<10)
	for from := at; at < size && at-from <= int64(maxLine); {
		n, err := f.ReadAt(buf, at)
		if n == 0 {
			return 0, err == nil
		}
		if line, rest := cutLine(buf[:n]); rest != nil {
			return at + int64(len(line)), true
		}
		at += int64(n)
	}
	return 0, false
}
