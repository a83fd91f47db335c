package evcursor

import (
	"runtime"

	"github.com/evtools/evtools/internal/cursor"
	"github.com/evtools/evtools/internal/jsontext"
	"github.com/evtools/evtools/pkg/jsonl"
)

// Re-numbering on several cores. The validating scan of each line is most
// of the work; it does not depend on the lines before, so the lines of
// regular files are scanned on other goroutines, in batches, and the
// verdicts are taken in input order on this one, where the numbers are
// given, the bad lines reported and the output written: the output, the
// reports and the status are those of the serial loop (TestParallelRenumber).

// rnBatch is a batch of records scanned by one worker.
type rnBatch struct {
	data  []byte
	recs  []rnRec
	seqAt [][2]int // the seq ranges of the records, each relative to its record
	done  chan struct{}
}

type rnRec struct {
	end    int // offset of the record's end in data
	file   string
	line   int
	err    error // the scan's reason when the line is no JSON object
	seqEnd int   // the record's seq ranges end at seqAt[seqEnd]
}

const (
	rnBatchBytes = 256 << 10
	rnBatchRecs  = 4096
)

// scanBatch scans the records of b, the work of a worker.
func scanBatch(b *rnBatch, ev *cursor.Event) {
	b.seqAt = b.seqAt[:0]
	start := 0
	for i := range b.recs {
		r := &b.recs[i]
		r.err = ev.Scan(b.data[start:r.end])
		if r.err == nil {
			b.seqAt = append(b.seqAt, ev.SeqAt...)
		}
		r.seqEnd = len(b.seqAt)
		start = r.end
	}
}

// renumberParallel is renumber's loop with the scans on workers goroutines.
func (j *job) renumberParallel(n *jsontext.Counter, workers int) error {
	nl := []byte{'\n'}
	// One record, scanned or not: the serial loop's body.
	one := func(rec jsonl.Record, err error, seqAt [][2]int) error {
		if err != nil {
			return j.in.Bad(rec, err)
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
	}
	jobs := make(chan *rnBatch, workers)
	defer close(jobs)
	for range workers {
		go func() {
			var ev cursor.Event
			for b := range jobs {
				scanBatch(b, &ev)
				close(b.done)
			}
		}()
	}
	var pending, free []*rnBatch
	cur := &rnBatch{}
	take := func(b *rnBatch) error {
		<-b.done
		start, seqStart := 0, 0
		for _, r := range b.recs {
			rec := jsonl.Record{Data: b.data[start:r.end], File: r.file, Line: r.line}
			if err := one(rec, r.err, b.seqAt[seqStart:r.seqEnd]); err != nil {
				return err
			}
			start, seqStart = r.end, r.seqEnd
		}
		return nil
	}
	// send hands cur to a worker and takes the batches beyond the
	// workers' number (all of them with drain).
	send := func(drain bool) error {
		if len(cur.recs) > 0 {
			cur.done = make(chan struct{})
			jobs <- cur
			pending = append(pending, cur)
			if len(free) > 0 {
				cur, free = free[len(free)-1], free[:len(free)-1]
				cur.data, cur.recs = cur.data[:0], cur.recs[:0]
			} else {
				cur = &rnBatch{}
			}
		}
		keep := workers
		if drain {
			keep = 0
		}
		for len(pending) > keep {
			b := pending[0]
			pending = pending[1:]
			if err := take(b); err != nil {
				return err
			}
			free = append(free, b)
		}
		return nil
	}
	var ev cursor.Event
	err := j.in.Each(func(rec jsonl.Record) error {
		if len(rec.Data) > rnBatchBytes {
			// A long line is not copied into a batch: the lines before it
			// are written, then it is scanned and written here, from the
			// reader's buffer.
			if err := send(true); err != nil {
				return err
			}
			err := ev.Scan(rec.Data)
			err = one(rec, err, ev.SeqAt)
			// Let the line go before the next is read: ev would keep it,
			// and the heap would grow to four such lines before the
			// collector ran (the next, this one, and the garbage of
			// both). One collection costs less than reading a line of
			// several MiB.
			ev = cursor.Event{}
			if len(rec.Data) > 32*rnBatchBytes {
				runtime.GC()
			}
			return err
		}
		cur.data = append(cur.data, rec.Data...)
		cur.recs = append(cur.recs, rnRec{end: len(cur.data), file: rec.File, line: rec.Line})
		if len(cur.data) >= rnBatchBytes || len(cur.recs) >= rnBatchRecs {
			return send(false)
		}
		return nil
	})
	if err == nil {
		err = send(true)
	}
	if err == nil {
		err = j.out.Flush()
	}
	return err
}

// validSeq reports whether raw is a seq cursor.ParseSeq accepts.
func validSeq(raw []byte) bool {
	_, err := cursor.ParseSeq(raw)
	return err == nil
}
