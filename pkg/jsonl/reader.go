package jsonl

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"runtime"
)

// reader reads a source a block of whole lines at a time: for Input.Each
// one record after the other (Next, over the lines in the source's
// buffer, cut by cutLine and framed by record as frame frames them), for
// the engines a block after the other (fill, into blocks of their own,
// which Block.Frame frames).
type reader struct {
	src   *source
	carry []byte // the start of the line after fill's last block, read already
	first bool   // no block was read yet: the next starts the input
	ended bool   // the input ended: nothing more to read
	long  []byte // holds a record longer than the read buffer
	err   error  // the read error the input ended on, named

	scratch []byte // where the rest of a long line is looked at (restOfLine)
	own     bool   // the long line read last is in a buffer of its own
	gave    bool   // a buffer of hugeLine bytes or more was handed over before

	// Next's lines: a block of whole lines of the source's buffer, or a
	// long line, handed over up to off
	block   []byte
	off     int
	taken   int  // bytes of the source's buffer the block holds: let go at the next
	line    int  // the line of the record Next handed over last
	dataOwn bool // the block is a long line in a buffer of its own
}

// newReader returns a reader over src.
func newReader(src *source) *reader { return &reader{src: src, first: true} }

// Next returns the next non-blank record without its line ending, or false
// at the end of input or on a read error (see Err). The slice is valid only
// until the next call.
func (r *reader) Next() ([]byte, bool) {
	for {
		if r.off == len(r.block) && !r.next() {
			return nil, false
		}
		line, _ := cutLine(r.block[r.off:])
		r.off += len(line) // an int: no write barrier per line, as a slice would be
		r.line++
		from, to, blank := record(line, r.line == 1)
		if blank {
			continue
		}
		return line[from:to], true
	}
}

// next reads the next lines for Next: the whole lines in the source's
// buffer, read into it once when it holds none, as a live producer's
// lines are handed over as they come; or a line longer than the buffer.
// It reports false at the end of the input.
func (r *reader) next() bool {
	br := r.src.br
	br.Discard(r.taken)
	r.block, r.off, r.taken, r.dataOwn = nil, 0, 0, false // a huge line's memory may take the next (alloc)
	if r.ended {
		return false
	}
	data, err := br.Peek(br.Buffered())
	seen := 0 // data[:seen] holds no '\n'
	for {
		if cut := len(WholeLines(data[seen:])); cut > 0 && err == nil {
			r.block, r.taken = data[:seen+cut], seen+cut
			break
		}
		if err != nil {
			// the input ended, on its last line or on a read error
			if r.stop(err) {
				data = WholeLines(data)
			}
			r.block, r.taken = data, len(data)
			break
		}
		if len(data) == br.Size() {
			// One line fills the buffer: the rest of it is read as a
			// long line.
			br.Discard(len(data))
			line, err := r.readLong(data)
			if err != nil && r.stop(err) {
				return false
			}
			r.block, r.dataOwn = line, r.own
			break
		}
		seen = len(data)
		data, err = br.Peek(len(data) + 1)
	}
	return len(r.block) > 0
}

// fill reads the next block of whole lines into buf (each with its
// '\n' but the input's last) until it is full, keeping the start of the
// line after them for the next block. A line longer than buf comes alone
// (long), in the reader's buffer or one of its own (own, see readLong).
// It returns io.EOF once the input ended, and a read error (named) after
// the lines read whole before it, dropping the line it cut, as Err says.
func (r *reader) fill(buf []byte) (data []byte, long bool, err error) {
	if r.ended {
		return nil, false, cmp.Or(r.err, io.EOF)
	}
	n := copy(buf, r.carry) // bytes read into buf
	r.carry, r.own = nil, false
	m, err := r.src.readBlock(buf[n:])
	n += m
	data = buf[:n]
	switch whole := len(WholeLines(data[n-m:])); {
	case err != nil:
		if r.stop(err) {
			data = WholeLines(data)
		}
		if len(data) == 0 {
			return nil, false, cmp.Or(r.err, io.EOF)
		}
	case whole > 0:
		// Whole lines up to the last '\n'; the start of the next line
		// goes in the next block.
		r.carry, data = data[n-m+whole:], data[:n-m+whole]
	default:
		// One line fills buf: the rest of it is read as a long line.
		if data, err = r.readLong(data); err != nil && r.stop(err) {
			return nil, false, r.err
		}
		long = true
	}
	r.first = false
	return data, long, nil
}

// stop ends the input on err, io.EOF or a read error, which it names and
// keeps for Err; it reports the latter.
func (r *reader) stop(err error) bool {
	r.ended = true
	if err != io.EOF {
		r.err = fmt.Errorf("%s: %w", r.src.Name, err)
	}
	return r.err != nil
}

// readBlock reads into p until it is full, the input ends (io.EOF) or a
// read fails. Once the source's buffer is empty it reads straight from
// what that buffer reads from, into p, not through the buffer.
func (s *source) readBlock(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		var m int
		var err error
		if s.br.Buffered() > 0 {
			m, err = s.br.Read(p[n:])
		} else if _, err = s.br.Read(nil); err == nil { // an error the buffer kept for its next read
			m, err = s.raw.Read(p[n:])
		}
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readLong finishes a line longer than the read buffer whose first part,
// head, fills that buffer (fill), and returns it with its '\n', or the
// unterminated tail with io.EOF. head is copied; the caller may reuse it.
//
// Such a line is gathered in a buffer of its own. Up to 4*readBufSize
// that buffer is kept and reused. A longer line gets a buffer of exactly
// its size, handed out and then let go: from a plain file, whose rest is
// looked at first to find the line's end (readSized), the line is read
// straight into it, so it is held once; from a pipe or a decompressor, it
// is gathered in chunks and copied once into it (readChunks), never held
// more than twice as appending would.
func (r *reader) readLong(head []byte) ([]byte, error) {
	r.own = false
	if rest := r.src.restOfLine(&r.scratch); rest > 0 {
		return r.readSized(head, rest)
	}
	keep := 4 * readBufSize
	r.long = append(r.long[:0], head...)
	for {
		b, err := r.src.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull && len(r.long)+len(b) > keep {
			return r.readChunks(b, err)
		}
		r.long = append(r.long, b...)
		if err != bufio.ErrBufferFull {
			if cap(r.long) > keep && err == nil {
				// Give a huge buffer back once the line is handed out.
				out := r.long
				r.long = nil
				r.own = true
				return out, nil
			}
			return r.long, err
		}
	}
}

// readSized reads a line whose first part, head, was read already and
// whose rest is known to take rest more bytes (its '\n' included, unless
// the file ends first), into a buffer of exactly that size.
func (r *reader) readSized(head []byte, rest int64) ([]byte, error) {
	size := int64(len(head)) + rest
	var buf []byte
	if size <= int64(4*readBufSize) {
		if int64(cap(r.long)) < size {
			r.long = make([]byte, size)
		}
		buf = r.long[:size]
	} else {
		buf = r.alloc(int(size))
		r.own = true
	}
	copy(buf, head)
	n, err := io.ReadFull(r.src.br, buf[len(head):])
	buf = buf[:len(head)+n]
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf, io.EOF // the file was cut short since
	case err != nil:
		return buf, err
	case buf[len(buf)-1] == '\n':
		return buf, nil
	}
	// The file ended without a '\n' when its rest was looked at, or was
	// rewritten since: go on to the line's end, wherever it is now.
	for {
		b, err := r.src.br.ReadSlice('\n')
		buf = append(buf, b...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// readChunks finishes a line of unknown length (from a pipe or a
// decompressor) begun in r.long, b being the next piece read: the pieces
// are gathered in chunks, then copied once into a buffer of the line's
// size. Appending to one buffer instead would copy the line again at every
// growth and hold up to 2.25 times its size, besides the garbage.
func (r *reader) readChunks(b []byte, err error) ([]byte, error) {
	size := 4 * readBufSize
	chunks := [][]byte{append(make([]byte, 0, size), r.long...)}
	total := len(r.long)
	for {
		total += len(b)
		for len(b) > 0 {
			c := &chunks[len(chunks)-1]
			if len(*c) == cap(*c) {
				if size < 64*readBufSize {
					size *= 2
				}
				chunks = append(chunks, make([]byte, 0, size))
				c = &chunks[len(chunks)-1]
			}
			n := min(len(b), cap(*c)-len(*c))
			*c = append(*c, b[:n]...)
			b = b[n:]
		}
		if err != bufio.ErrBufferFull {
			break
		}
		b, err = r.src.br.ReadSlice('\n')
	}
	out := r.alloc(total)[:0]
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	r.own = true
	return out, err
}

// hugeLine is the size from which a line's buffer is collected before
// the next one as big is taken (see alloc).
const hugeLine = 16 << 20

// alloc returns a buffer of its own for a line of size bytes. Before a
// huge one it collects the garbage when a huge buffer was handed over
// before: that line is read, most likely dropped, and its memory can
// take this one instead of the heap growing to hold both (the collector
// would otherwise wait for the heap to double). Its cost, a collection
// per huge line, is small beside reading the line.
func (r *reader) alloc(size int) []byte {
	if size >= hugeLine {
		if r.gave {
			runtime.GC()
		}
		r.gave = true
	}
	return make([]byte, size)
}

// Unterminated reports whether the record Next returned last ended at the
// end of input without a '\n'.
func (r *reader) Unterminated() bool {
	return r.ended && r.off == len(r.block) && r.block[len(r.block)-1] != '\n'
}

// Own reports whether the record Next returned last is in a buffer of its
// own, which the reader does not reuse: the caller may keep it past the
// next call. Only a line longer than a few read buffers gets one.
func (r *reader) Own() bool { return r.dataOwn }

// Line is the line number of the record Next returned last (1-based,
// counting blank lines).
func (r *reader) Line() int { return r.line }

// nul reports whether rec, the record Next returned last, holds a NUL byte.
// It looks at the record alone, while its bytes are in the CPU's first
// cache: a look at the whole block first (up to 256 KiB, eight times that
// cache) had them fetched twice, for a tenth more cache misses.
func (r *reader) nul(rec []byte) bool { return binary(rec) }

// Err is the read error that ended the records, named, or nil at a clean
// end.
func (r *reader) Err() error { return r.err }
