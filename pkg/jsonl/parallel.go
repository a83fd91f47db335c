package jsonl

import "runtime"

// Blocks reads an Input's lines a block at a time (readBlocks) and has
// Workers goroutines frame and judge the blocks (Work), while the reading
// goroutine takes the verdicts back in input order (Take), numbered and
// reported on as Each would: a tool's output, reports and status are
// those of its loop over Each. It suits a tool whose verdict on a record
// does not depend on the records before it (evfilter's expression,
// evcursor's validating scan), and whose output is written in order.
//
// W is what a worker keeps from block to block (a filter's clone, a
// scanner), S what a block's verdicts are kept in until taken; both are
// reused, not allocated per block.
type Blocks[W, S any] struct {
	Workers   int // goroutines judging blocks, at least 1
	BlockSize int // bytes of a block (DefaultBlockSize when 0)
	MaxAhead  int // bytes of blocks read ahead of Take (defaultMaxAhead when 0)
	// Ahead is the blocks read ahead of Take at most (Workers when
	// less): more than the workers lets the reading goroutine go on
	// while a worker it would wait for is being woken, which counts for
	// small blocks, and for a Take that takes as long as the work.
	Ahead int
	// Steal has the reading goroutine judge the oldest block itself
	// when it would wait for it and no worker has begun it (see
	// Ordered.steal), with the worker value it judges huge lines with.
	Steal bool

	// NewWorker makes the value of a worker: called Workers times, and
	// once more for the reading goroutine, which judges the lines of
	// many MiB itself (Block.Own) so that one is held at a time.
	NewWorker func() W
	// Work judges the records of b (found by b.Frame, in order) into s,
	// on a worker's goroutine. s is as the last Take left it.
	Work func(w W, b *Block, s *S)
	// Take is handed each record of a block with the verdicts Work left
	// in s (i counts the block's records from 0, as Frame did), in input
	// order, on the reading goroutine. Its error ends the reading.
	Take func(s *S, i int, rec Record) error
}

// DefaultBlockSize is the size of the blocks a Blocks reads: large enough
// that handing one to a worker costs nothing beside judging it, small
// enough that a few per worker stay in the caches.
const DefaultBlockSize = 256 << 10

// defaultMaxAhead caps the bytes of the blocks a Blocks reads ahead of
// its Take: past it the verdicts of all but the newest are taken before
// reading on. Ordinary blocks never reach it (Workers+1 blocks); with long
// lines at most the newest (one long line, being judged) and the line
// being read are held: twice the longest line, not Workers+1 times.
const defaultMaxAhead = 8 << 20

// blockJob is a block being judged, with its verdicts.
type blockJob[S any] struct {
	block *Block
	s     S
}

// Each reads in's inputs, judges their records on p.Workers goroutines and
// hands them to p.Take in input order. It returns the first error Take
// returns, or an output error, as Each does. It does not hold back
// growing lines (see Input.Growing): with Growing set, use Each.
func (p *Blocks[W, S]) Each(in *Input) error {
	size := orDefault(p.BlockSize, DefaultBlockSize)
	maxAhead := orDefault(p.MaxAhead, defaultMaxAhead)
	take := func(j *blockJob[S]) error {
		err := in.takeBlock(j.block, func(i int, rec Record) error { return p.Take(&j.s, i, rec) })
		j.block = nil // released to the Input by takeBlock
		return err
	}
	work := func(w W, j *blockJob[S]) { p.Work(w, j.block, &j.s) }
	o := NewOrdered(p.Workers, max(p.Ahead, p.Workers), maxAhead, p.NewWorker, work, take)
	defer o.Close()
	here := p.NewWorker()
	if p.Steal {
		o.steal(here)
	}
	err := in.readBlocks(size, func(b *Block) error {
		o.Next().block = b
		if !b.Own {
			return o.Send(len(b.Data))
		}
		// A line of many MiB (in a buffer of its own) is judged here,
		// once the blocks before it are taken, without a copy: while
		// the next is read only this one is held, not one per worker.
		n := len(b.Data)
		if err := o.runHere(here); err != nil {
			return err
		}
		// The huge line before this one is garbage now: collected
		// before the next is read, its memory takes that one (a
		// collection of a small heap costs less than such a line).
		if n > maxAhead {
			runtime.GC()
		}
		return nil
	})
	if err == nil {
		err = o.Drain()
	}
	if err == nil && in.Out != nil {
		err = in.Out.Flush()
	}
	return err
}
