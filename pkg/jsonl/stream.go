package jsonl

// DefaultChunkSize is the size of the chunks Parts reads a stream in. A
// chunk's state is made, merged and dropped: at 1 MiB that is about 1% of
// evsum's CPU (pprof of BenchmarkPipe). The chunks read ahead, two per
// worker, stay a few MiB, and the last chunk, summarised once the input
// has ended, is short: 4 MiB chunks were slower on a 64 MB pipe.
const DefaultChunkSize = 1 << 20

// chunk is a chunk of a stream (a Block of whole lines) being summarised
// on a worker into a state of its own.
type chunk[S any] struct {
	block *Block
	st    S
	bad   []int32 // the records Add refused, by their index in the block
	why   []error // the reasons of the first maxBadReports of them
}

// streamRun is one Parts.Each over inputs read as streams.
type streamRun[S any] struct {
	p  *Parts[S]
	in *Input
}

// stream reads in's inputs as streams (Input.readBlocks): chunks of whole
// lines, read in order on this goroutine, each summarised on a worker
// into a state of its own (New, Add) and taken in input order: its state
// merged, then its bad lines reported, numbered and capped as Each
// reports them (takeBlock). Nothing is read twice. A line longer than a
// few read buffers (a block of its own, Block.Own) is added by Serial once
// the chunks before it are merged, as one pass would add it, where a
// worker would hold it and a copy of what its state keeps of it. A chunk
// whose Merge returns ErrOnePass is added by Serial: the state merged so
// far is one pass's state at that point, and once the chunk is added the
// next chunk's state merges into it as into the states of the chunks
// before. (A refused merge says something of its chunk only: a call its
// part cannot pair as one pass does. A sum out of range refuses the later
// chunks too, each then added by Serial.)
//
// At most 2*Workers chunks are read ahead of the merging, each chunk's
// buffer read into again once it is merged.
func (p *Parts[S]) stream(in *Input) error {
	s := &streamRun[S]{p: p, in: in}
	size := orDefault(p.ChunkSize, DefaultChunkSize)
	o := NewOrdered(p.Workers, 2*p.Workers, 0, func() struct{} { return struct{}{} }, s.work, s.take)
	// Nothing is written before the input ends but bad-line reports, a
	// line each: a signal may stop the tool while it waits for a worker.
	o.Idle = true
	o.steal(struct{}{})
	defer o.Close()
	err := in.readBlocks(size, func(b *Block) error {
		if !b.Own && b.err == nil {
			o.Next().block = b
			return o.Send(len(b.Data))
		}
		if err := o.Drain(); err != nil {
			return err
		}
		b.Frame(func(int, []byte) {})
		return s.serialTake(b)
	})
	if err == nil {
		err = o.Drain()
	}
	return err
}

// work summarises a chunk into a state of its own, on a worker.
func (s *streamRun[S]) work(_ struct{}, c *chunk[S]) {
	b := c.block
	b.Frame(func(int, []byte) {})
	c.st = s.p.New()
	c.bad, c.why = c.bad[:0], c.why[:0]
	for i, r := range b.recs {
		if r.nul {
			continue // a bad line takeBlock reports
		}
		if err := s.p.Add(c.st, b.Data[r.from:r.to]); err != nil {
			c.bad = append(c.bad, int32(i))
			if len(c.why) < maxBadReports {
				c.why = append(c.why, err)
			}
		}
	}
}

// take merges a chunk's state and reports its bad lines, in input order;
// when its Merge returns ErrOnePass, it adds the chunk's records by
// Serial instead.
func (s *streamRun[S]) take(c *chunk[S]) error {
	b, st := c.block, c.st
	var zero S
	c.block, c.st = nil, zero // merged or dropped: the state may go
	switch err := s.p.Merge(st); err {
	case nil:
	case ErrOnePass:
		return s.serialTake(b)
	default:
		return err
	}
	k := 0 // the next of c.bad
	return s.in.takeBlock(b, func(i int, rec Record) error {
		if k == len(c.bad) || int(c.bad[k]) != i {
			return nil
		}
		// Past maxBadReports of the chunk, the Input only counts
		// the line (the file's cap is reached by then).
		why := errUnreported
		if k < len(c.why) {
			why = c.why[k]
		}
		k++
		return s.in.Bad(rec, why)
	})
}

// serialTake adds the records of b, framed, by Serial, as one pass does.
func (s *streamRun[S]) serialTake(b *Block) error {
	return s.in.takeBlock(b, func(_ int, rec Record) error {
		if err := s.p.Serial(rec.Data); err != nil {
			return s.in.Bad(rec, err)
		}
		return nil
	})
}
