package jsonl

import (
	"io"
)

// Block is a run of whole lines of one input, read in one piece, that
// Blocks hands a worker: Frame finds its records (on any goroutine), and
// they are taken back in input order, numbered and reported on exactly as
// Each would hand them over one by one.
type Block struct {
	// Data holds whole lines as read, each with its '\n' but the
	// input's last. It is empty in a block that only says the input
	// could not be opened or read further (takeBlock reports it).
	Data []byte
	File string // the input's name, StdinName for stdin

	// Own is set when Data is one line longer than a block, in a
	// buffer of its own (a line longer than a few read buffers): the
	// Input does not reuse it.
	Own bool

	input *blockInput
	first bool  // Data starts at the input's first byte
	err   error // why the input could not be opened or read further
	reuse bool  // Data is a block buffer of the Input's, read into again once taken

	// found by Frame
	recs   []span // the records, in order
	lines  int    // lines in Data, blank ones included
	binary int    // the line (counted in Data from 1) of the first record with a NUL byte; 0: none
}

// span is where a record lies in Block.Data, and its line in the block;
// nul: it holds a NUL byte, a bad line (ErrNUL).
type span struct {
	from, to, line int
	nul            bool
}

// blockInput is what readBlocks and takeBlock share about one input.
type blockInput struct {
	lines int // lines in the blocks taken so far
}

// Frame finds the records of b's lines by the rules Each applies (see
// frame and record: the BOM of an input's first line, '\n'
// and "\r\n", blank lines skipped but counted) and calls fn with each, in
// order, i counting them from 0; rec lies in b.Data. A record holding a
// NUL byte is handed to fn too, and takeBlock reports it as a bad line
// (ErrNUL) instead of handing it over. Frame may run on any goroutine,
// once per block, before takeBlock.
//
// While fn runs, b's line count is the line of the record, counted in
// b.Data from 1 (parts.go numbers its records by it).
func (b *Block) Frame(fn func(i int, rec []byte)) {
	b.recs, b.lines, b.binary = b.recs[:0], 0, 0
	b.lines = frame(b.Data, b.first, false, nil, b, fn)
}

// note notes rec, a record of b on line, and hands it to fn (Frame).
func (b *Block) note(line int, rec []byte, nul bool, fn func(i int, rec []byte)) {
	b.lines = line
	if nul && b.binary == 0 {
		b.binary = line
	}
	fn(len(b.recs), rec)
	from := cap(b.Data) - cap(rec) // rec lies in b.Data: its offset is what its capacity lacks
	b.recs = append(b.recs, span{from, from + len(rec), line, nul})
}

// readBlocks reads the inputs as Each does, but hands fn their lines a
// block at a time instead of a record at a time: whole lines read in one
// piece of up to size bytes (at least 1), straight into the block (a plain file's
// bytes are copied once, by the read). A line longer than size comes in
// a block of its own (read as reader reads a long line: Own when longer
// than a few read buffers). The caller frames each block (Block.Frame,
// on any goroutine) and takes the blocks in the order fn got them with
// takeBlock, on this goroutine, during readBlocks or after it returns:
// takeBlock hands over the records as Each would, with their line
// numbers, and reports at their place in the input what Each reports
// (an input that cannot be opened or read, a line with a NUL byte).
//
// readBlocks returns the first error fn returns, or an output error (see
// IsClosed), and nil otherwise. It does not hold back growing lines: with
// Growing set, use Each.
func (in *Input) readBlocks(size int, fn func(*Block) error) error {
	if in.Growing > 0 {
		panic("jsonl: readBlocks with Growing set")
	}
	size = max(size, 1)
	if size != in.blockSize {
		in.blockSize, in.free = size, nil
	}
	return in.inputs(func(name string, src *source, err error) error {
		st := &blockInput{}
		if err != nil {
			return in.give(fn, &Block{File: name, input: st, err: err})
		}
		return in.eachBlock(src, st, fn)
	})
}

// give hands b to fn, then returns fn's error or an output error.
func (in *Input) give(fn func(*Block) error, b *Block) error {
	if err := fn(b); err != nil {
		return err
	}
	if in.Out != nil && in.Out.err != nil {
		return in.Out.err
	}
	return nil
}

// eachBlock reads one input for readBlocks: the reader's blocks (fill),
// read straight into the Input's block buffers.
func (in *Input) eachBlock(src *source, st *blockInput, fn func(*Block) error) error {
	r := newReader(src)
	for {
		b := in.block(src.Name, st)
		b.first = r.first
		data, long, err := r.fill(b.Data[:cap(b.Data)])
		switch {
		case err == io.EOF:
			in.release(b)
			return nil
		case err != nil:
			in.release(b)
			return in.give(fn, &Block{File: src.Name, input: st, err: err})
		case long:
			// a block of its own, b's buffer read into again
			in.release(b)
			b = &Block{Data: data, File: src.Name, Own: r.own, input: st, first: b.first}
			if !r.own {
				r.long = nil // the block keeps the reader's buffer: the next long line gets another
			}
		default:
			b.Data = data
		}
		if err := in.give(fn, b); err != nil {
			return err
		}
	}
}

// block returns a block to read into, of the input name.
func (in *Input) block(name string, st *blockInput) *Block {
	var b *Block
	if k := len(in.free); k > 0 {
		b = in.free[k-1]
		in.free[k-1] = nil
		in.free = in.free[:k-1]
	} else {
		b = &Block{Data: make([]byte, 0, in.blockSize), reuse: true}
	}
	b.Data, b.File, b.input, b.first = b.Data[:0], name, st, false
	return b
}

// release keeps b, taken or never given, to read into again.
func (in *Input) release(b *Block) {
	if b != nil && b.reuse && cap(b.Data) == in.blockSize {
		b.input = nil
		in.free = append(in.free, b)
	}
}

// takeBlock takes the records of b, a block readBlocks gave and Frame
// framed, handing each to fn as Each would (i is its index in Frame's
// order), and reports at their place what Each reports: a line with a
// NUL byte (a bad line, ErrNUL), an input that could not be opened or
// read further. Blocks are taken in the order readBlocks gave them, on its
// goroutine; b must not be used afterwards. takeBlock returns the first
// error fn returns, an output error (see IsClosed), or ErrStrict for a
// bad line with Strict.
func (in *Input) takeBlock(b *Block, fn func(i int, rec Record) error) error {
	defer in.release(b)
	st := b.input
	if b.err != nil {
		in.Errorf("%v", b.err)
		in.failed++
		return nil
	}
	base := st.lines
	for i, r := range b.recs {
		rec := Record{Data: b.Data[r.from:r.to], File: b.File, Line: base + r.line, Own: b.Own}
		if r.nul {
			if err := in.Bad(rec, ErrNUL); err != nil {
				return err
			}
			continue
		}
		if err := fn(i, rec); err != nil {
			return err
		}
		if in.Out != nil && in.Out.err != nil {
			return in.Out.err
		}
	}
	st.lines += b.lines
	return nil
}
