package evsum

import (
	"bytes"
	"errors"
	"slices"

	"github.com/evtools/evtools/internal/summary"
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

// foldPieces folds entries piece by piece: a segment alone, the other
// inputs between two segments together.
func (r *report) foldPieces(in *jsonl.Input, c *segmentCache, entries []jsonl.Entry) (*summary.State, error) {
	st := summary.New(r.set.summary)
	st.SetOrder(r.set.order)
	for len(entries) > 0 {
		n := 1
		for entries[0].Host == nil && n < len(entries) && entries[n].Host == nil {
			n++
		}
		piece := entries[:n]
		entries = entries[n:]
		seg := &piece[0]
		if seg.Host == nil {
			seg = nil
		}
		var ps *summary.State
		if seg != nil {
			ps = c.load(seg)
		}
		if ps == nil {
			in.SetEntries(piece)
			failed, bad := in.Failed(), in.BadLines()
			var err error
			if ps, err = r.fold(in, c.opt); err != nil {
				return nil, err
			}
			if seg != nil && in.Failed() == failed && in.BadLines() == bad {
				c.save(seg, ps)
			}
		}
		if !st.Fits(ps) {
			return nil, errNoSegments
		}
		st.Merge(ps)
	}
	return st, nil
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
