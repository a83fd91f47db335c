package summary

import (
	"runtime"

	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/pkg/jsonl"
)

// builtChunk is how many records a goroutine of eachBuilt builds at a
// time (the tests make it small, to build few groups on several cores).
var builtChunk = 64

// builder is what a goroutine of eachBuilt keeps: its problems' cache
// and what the caller adds up.
type builder struct {
	pc    *problemCache
	total group

	// the room frozen groups and runs are decoded into, reused from
	// record to record
	group group
	runs  []run
	own   problemCache
}

// builtRecords is a chunk of refs with their records, built by one
// goroutine, and their encoding when eachBuilt encodes them.
type builtRecords struct {
	refs []ref
	recs []record.Record
	enc  []byte // the records encoded, one after the other
	ends []int  // where each record's bytes end in enc; -1 for one not encoded
}

// eachBuilt builds the records of refs on as many goroutines as cores, a
// chunk at a time, and hands them to write in refs' order, encoded when
// encode is not nil (jsonl.Ordered: the chunks built ahead of write are
// bounded, so memory stays that of a few chunks). Building only reads the
// state. It returns the builders when they are done.
func eachBuilt(refs []ref, build func(key string, b *builder) record.Record, encode func([]byte, *record.Record) []byte, write func(*record.Record, []byte) error) ([]*builder, error) {
	workers := min(runtime.GOMAXPROCS(0), (len(refs)+builtChunk-1)/builtChunk)
	var bs []*builder
	newBuilder := func() *builder {
		b := &builder{}
		b.pc = &b.own
		bs = append(bs, b)
		return b
	}
	work := func(b *builder, c *builtRecords) {
		if c.recs == nil { // a new chunk: its room made once, at its size
			c.recs, c.ends = make([]record.Record, 0, builtChunk), make([]int, 0, builtChunk)
		}
		c.recs, c.enc, c.ends = c.recs[:0], c.enc[:0], c.ends[:0]
		for _, r := range c.refs {
			c.recs = append(c.recs, build(r.key, b))
			if encode == nil {
				continue
			}
			if e := encode(c.enc, &c.recs[len(c.recs)-1]); e != nil {
				c.enc = e
				c.ends = append(c.ends, len(e))
			} else {
				c.ends = append(c.ends, -1)
			}
		}
	}
	take := func(c *builtRecords) error {
		start := 0
		for j := range c.recs {
			var e []byte
			if encode != nil && c.ends[j] >= 0 {
				e = c.enc[start:c.ends[j]]
				start = c.ends[j]
			}
			if err := write(&c.recs[j], e); err != nil {
				return err
			}
		}
		return nil
	}
	// Two chunks a worker, the one being written included: each is
	// built while the one before is written.
	o := jsonl.NewOrdered(workers, 2*workers-1, 0, newBuilder, work, take)
	var err error
	for i := 0; i < len(refs) && err == nil; i += builtChunk {
		o.Next().refs = refs[i:min(i+builtChunk, len(refs))]
		err = o.Send(0)
	}
	if err == nil {
		err = o.Drain()
	}
	o.Close()
	return bs, err
}
