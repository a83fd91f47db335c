package jsonl

import (
	"bufio"
	"errors"
	"io"
	"runtime"
)

// reader splits a source into records.
type reader struct {
	src  *source
	line int
	long []byte // holds a record longer than the read buffer
	err  error

	scratch []byte // where the rest of a long line is looked at (restOfLine)
	own     bool   // the record Next returned last is in a buffer of its own
	gave    bool   // a buffer of hugeLine bytes or more was handed over before

	unterminated bool // the record Next returned last had no '\n'
}

// NewReader returns a reader over src.
func newReader(src *source) *reader { return &reader{src: src} }

// Next returns the next non-blank record without its line ending, or false
// at the end of input or on a read error (see Err). The slice is valid only
// until the next call.
func (r *reader) Next() ([]byte, bool) {
	if r.err != nil {
		return nil, false
	}
	for {
		rec, err := r.readLine()
		if err != nil && (err != io.EOF || len(rec) == 0) {
			if err != io.EOF {
				r.err = err
			} else {
				r.err = io.EOF
			}
			return nil, false
		}
		r.line++
		r.unterminated = err == io.EOF
		from, to, blank := record(rec, r.line == 1)
		rec = rec[from:to]
		if blank {
			if err == io.EOF {
				r.err = io.EOF
				return nil, false
			}
			continue
		}
		return rec, true
	}
}

// readLine returns one line including its '\n', or the unterminated tail
// with io.EOF.
//
// A line longer than the read buffer is gathered in a buffer of its own.
// Up to 4*readBufSize that buffer is kept and reused. A longer line gets a
// buffer of exactly its size, handed out and then let go: from a plain
// file, whose rest is looked at first to find the line's end (readSized),
// the line is read straight into it, so it is held once; from a pipe or a
// decompressor, it is gathered in chunks and copied once into it
// (readChunks), never held more than twice as appending would.
func (r *reader) readLine() ([]byte, error) {
	r.own = false
	b, err := r.src.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	return r.readLong(b)
}

// readLong finishes a line longer than the read buffer whose first part,
// head, was read already (from the source's buffer, or into a block by
// Input.readBlocks): see readLine. head is copied; the caller may reuse it.
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
func (r *reader) Unterminated() bool { return r.unterminated }

// Own reports whether the record Next returned last is in a buffer of its
// own, which the reader does not reuse: the caller may keep it past the
// next call. Only a line longer than a few read buffers gets one.
func (r *reader) Own() bool { return r.own }

// Line is the line number of the record Next returned last (1-based,
// counting blank lines).
func (r *reader) Line() int { return r.line }

// Err is the read error that ended the records, or nil at a clean end.
func (r *reader) Err() error {
	if errors.Is(r.err, io.EOF) {
		return nil
	}
	return r.err
}
