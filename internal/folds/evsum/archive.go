package evsum

import (
	"bytes"
	"errors"
	"slices"

	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/pkg/jsonl"
)

// errNoSegments says the inputs are read as without the cache: they
// hold no archive's segment, or a segment's state would not merge as
// one pass adds its events.
var errNoSegments = errors.New("evsum: no segment to read through the cache")

// summariseArchive summarises the inputs when they hold an archive's
// segments (see cache.go): each segment's state comes from the cache, or
// is folded from its events (on several cores, as any input) and saved;
// the other inputs between them are folded as they come; all are merged
// in input order. Messages are those of one pass: only segments read
// whole and without a bad line are cached, so a segment not read
// would have said nothing.
//
// It returns errNoSegments, having read nothing or dropped what it read
// and said, when the inputs are to be read without the cache.
func (r *report) summariseArchive(in *jsonl.Input, c *segmentCache) (*summary.State, error) {
	entries := in.Entries()
	if !slices.ContainsFunc(entries, func(e jsonl.Entry) bool { return e.Host != nil }) {
		return nil, errNoSegments
	}
	// A report of segments alone, asked before, is kept whole.
	keep := !r.set.partial && !slices.ContainsFunc(entries, func(e jsonl.Entry) bool { return e.Host == nil })
	name, key := reportKey(r.opts, entries)
	if keep && in.Failed() == 0 {
		if rep := c.loadReport(name, key, cutoff(r.opts)); rep != nil {
			return summary.Replayed(r.set.summary, rep), nil
		}
	}
	// What is said is held until the states merge: a merge one pass
	// would not give (sums out of range) reads everything again.
	before := *in
	stderr := in.Stderr
	var held bytes.Buffer
	in.Stderr = &held
	st, err := r.foldPieces(in, c, entries)
	if err == errNoSegments {
		*in = before
		return nil, err
	}
	in.Stderr = stderr
	in.SetEntries(entries)
	stderr.Write(held.Bytes())
	if err == nil && keep && in.Failed() == 0 && in.BadLines() == 0 {
		// only a report that said nothing is kept: it is written
		// again without a word
		r.keep = func(st *summary.State) *summary.State { return c.keepReport(name, key, st) }
	}
	return st, err
}

// piece is a segment, or the other inputs between two segments, and its
// state once a worker has it: loaded from the cache, or folded from the
// segment's events.
type piece struct {
	entries []jsonl.Entry
	seg     *jsonl.Entry // the segment, nil for other inputs
	st      *summary.State
}

// foldPieces folds entries piece by piece, merged in input order. The
// segments are loaded or folded on every core at once, one a core (a
// segment is decompressed on its core, where a stream is on the reading
// goroutine alone), saying nothing: a segment that has anything to say (a
// bad line, a read error) is read again in turn with in, where one pass
// says it, and so are the inputs between segments.
func (r *report) foldPieces(in *jsonl.Input, c *segmentCache, entries []jsonl.Entry) (*summary.State, error) {
	st := summary.New(r.set.summary)
	st.SetOrder(r.set.order)
	work := func(sr *segmentReader, p *piece) {
		if p.seg == nil {
			return
		}
		if p.st = c.load(p.seg); p.st != nil {
			return
		}
		if p.st = sr.fold(p.seg, c.opt); p.st != nil {
			c.save(p.seg, p.st)
		}
	}
	take := func(p *piece) error {
		if p.st == nil {
			in.SetEntries(p.entries)
			var err error
			if p.st, err = r.fold(in, c.opt); err != nil {
				return err
			}
		}
		if !st.Fits(p.st) {
			return errNoSegments
		}
		st.Merge(p.st)
		p.st = nil
		return nil
	}
	o := jsonl.NewOrdered(cores(), 2*cores(), 0, newSegmentReader, work, take)
	o.Idle = true // nothing is written before the report: a signal may stop evsum
	defer o.Close()
	for len(entries) > 0 {
		n := 1
		for entries[0].Host == nil && n < len(entries) && entries[n].Host == nil {
			n++
		}
		p := o.Next()
		*p = piece{entries: entries[:n]}
		if entries[0].Host != nil {
			p.seg = &entries[0]
		}
		entries = entries[n:]
		if err := o.Send(1); err != nil {
			return nil, err
		}
	}
	if err := o.Drain(); err != nil {
		return nil, err
	}
	return st, nil
}

// maxWhole is the largest segment (compressed) a worker reads whole into
// memory; a larger one is read in turn as a stream. A day of a heavy
// user's logs is a few MB compressed.
const maxWhole = 4 << 20

// segmentReader reads segments whole on a worker, into buffers it keeps
// from segment to segment (jsonl.WholeReader): a buffer a segment, of 10
// MB or more, would be garbage that makes the collector run (and scan
// the state merged so far) at every segment, which took half as much CPU
// time again.
type segmentReader struct{ jsonl.WholeReader }

func newSegmentReader() *segmentReader { return &segmentReader{} }

// fold folds the segment seg in one pass, on a worker: read whole,
// decompressed and framed by jsonl.Lines, where a Source's reads belong
// to the reading goroutine; nil when it has anything to say (a read
// error, a bad line, a corrupt frame), which the reading goroutine says
// in turn.
func (sr *segmentReader) fold(seg *jsonl.Entry, o summary.Options) *summary.State {
	if seg.Segment.Bytes > maxWhole {
		return nil
	}
	data, err := sr.ReadFile(seg.Name)
	if err != nil {
		return nil
	}
	st := summary.New(o)
	clean := true
	jsonl.Lines(data, func(_ int, rec []byte, nul bool) bool {
		clean = !nul && st.Add(rec) == nil
		return clean
	})
	if !clean {
		return nil
	}
	return st
}

// fold folds the inputs into a state made with o: on several cores, or
// in one pass.
func (r *report) fold(in *jsonl.Input, o summary.Options) (*summary.State, error) {
	if ps, err := parallelState(r.opts, in, o, r.set.order); err != jsonl.ErrOnePass {
		return ps, err
	}
	st := summary.New(o)
	st.SetOrder(r.set.order)
	err := in.Each(func(rec jsonl.Record) error {
		if e := st.Add(rec.Data); e != nil {
			return in.Bad(rec, e)
		}
		return nil
	})
	return st, err
}
