package evcursor

import (
	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/filters/cursor"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Re-numbering on several cores. The validating scan of each line is most
// of the work; it does not depend on the lines before, so the lines of
// regular files are framed and scanned on other goroutines, a block at a
// time (jsonl.Blocks), and the verdicts are taken in input order on this
// one, where the numbers are given, the bad lines reported and the output
// written: the output, the reports and the status are those of the serial
// loop (TestParallelRenumber).

// scanned is what the scans of a block's records found, in the block's
// order: the reason a line is no JSON object, and the byte ranges of its
// seq values (each record's relative to the record, ending at seqEnd).
type scanned struct {
	errs   []error
	seqEnd []int
	seqAt  [][2]int
}

// scanBlock frames and scans the records of b into s, the work of a
// worker.
func scanBlock(ev *cursor.Event, b *jsonl.Block, s *scanned) {
	s.errs, s.seqEnd, s.seqAt = s.errs[:0], s.seqEnd[:0], s.seqAt[:0]
	b.Frame(func(_ int, rec []byte) {
		err := ev.Scan(rec)
		if err == nil {
			s.seqAt = append(s.seqAt, ev.SeqAt...)
		}
		s.errs = append(s.errs, err)
		s.seqEnd = append(s.seqEnd, len(s.seqAt))
	})
	if b.Own {
		// ev points into a line of many MiB: let it go before the next
		// is read, or the heap holds two.
		*ev = cursor.Event{}
	}
}

// renumberParallel is renumber's loop with the scans on workers goroutines.
func (j *job) renumberParallel(n *jsontext.Counter, workers int) error {
	nl := []byte{'\n'}
	engine := jsonl.Blocks[*cursor.Event, scanned]{
		Workers:   workers,
		NewWorker: func() *cursor.Event { return new(cursor.Event) },
		Work:      scanBlock,
		// One record, scanned or not: the serial loop's body.
		Take: func(s *scanned, i int, rec jsonl.Record) error {
			if err := s.errs[i]; err != nil {
				return j.in.Bad(rec, err)
			}
			seqAt := s.seqAt[:s.seqEnd[i]]
			if i > 0 {
				seqAt = seqAt[s.seqEnd[i-1]:]
			}
			if len(seqAt) > 0 {
				last := seqAt[len(seqAt)-1]
				if raw := rec.Data[last[0]:last[1]]; !validSeq(raw) {
					if err := j.in.Bad(rec, escaped(&cursor.SeqError{Raw: string(raw)})); err != nil {
						return err
					}
				}
			}
			cursor.WriteRenumberedAt(j.out, rec.Data, seqAt, n.Bytes())
			j.out.Write(nl)
			n.Inc()
			return j.out.Err()
		},
	}
	return engine.Each(j.in)
}

// validSeq reports whether raw is a seq cursor.ParseSeq accepts.
func validSeq(raw []byte) bool {
	_, err := cursor.ParseSeq(raw)
	return err == nil
}
