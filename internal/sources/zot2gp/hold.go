package zot2gp

import (
	"github.com/evtools/evtools/internal/sources/zot"
	"github.com/evtools/evtools/pkg/jsonl"
)

// holder converts the records of an input. While the input's first
// recorded time has not come (converter.undecided), the events without a
// time wait for it, with their arrival on the clock: it says whether the
// clock is theirs. A zot run starts with a response that has no time,
// before the user_message that has one; given the clock at once, the
// response of a replayed run would lie months from the rest of the run.
// They wait at most until the input pauses (a live stream: shown as they
// came), the input's end, or maxHeld of them; after a pause or maxHeld,
// the input gets the clock until a recorded time says otherwise, and
// nothing waits any more.
type holder struct {
	c    *converter
	conv func(dst, line []byte) ([]byte, bool, error)
	in   *jsonl.Input
	out  *jsonl.Writer

	buf  []byte
	held []heldRecord
	size int
	f    zot.Fields
	ts   []byte
	str  []byte
	err  error // the --strict end met while releasing at a pause
}

type heldRecord struct {
	rec jsonl.Record
	at  int64 // arrival, Unix milliseconds
}

// maxHeld bounds the events and bytes held.
const maxHeld, maxHeldBytes = 1000, 1 << 20

// record converts rec, or holds it.
func (h *holder) record(rec jsonl.Record) error {
	if h.err != nil {
		return h.err
	}
	if h.c.undecided() && (len(h.held) >= maxHeld || h.size+len(rec.Data) > maxHeldBytes) {
		// So many events and no time: the clock it is, and no more
		// waiting (each event would be read twice and copied).
		h.c.judged = true
	}
	if h.c.undecided() && zot.Scan(rec.Data, &h.f) == nil {
		ts, timed := appendTime(h.ts[:0], h.f.Time, &h.str)
		h.ts = ts
		if !timed {
			rec.Data, rec.Own = append([]byte(nil), rec.Data...), false
			h.held = append(h.held, heldRecord{rec, h.c.now().UnixMilli()})
			h.size += len(rec.Data)
			return nil
		}
		h.c.clockFits(ts) // the first recorded time decides for those held
	}
	if err := h.release(); err != nil {
		return err
	}
	return h.convert(rec)
}

// release converts the events held, each on the clock of its arrival if
// the clock is theirs.
func (h *holder) release() error {
	held := h.held
	h.held, h.size = nil, 0
	defer func() { h.c.at = 0 }()
	for _, r := range held {
		h.c.at = r.at
		if err := h.convert(r.rec); err != nil {
			return err
		}
	}
	return nil
}

// pause is called when the input is about to wait: the events held came
// on a live stream, which gets the clock (until a recorded time says
// otherwise), and they go out as they are.
func (h *holder) pause() {
	if h.err == nil && len(h.held) > 0 {
		h.c.judged = true
		h.err = h.release()
	}
}

// end releases what is held at the end of an input.
func (h *holder) end() error {
	if h.err != nil {
		return h.err
	}
	return h.release()
}

func (h *holder) convert(rec jsonl.Record) error {
	buf, written, bad := h.conv(h.buf[:0], rec.Data)
	h.buf = buf
	if written {
		h.out.Write(buf) // a bad line's repair (--format pi), before its report
	}
	if bad != nil {
		return h.in.Bad(rec, bad)
	}
	if cap(h.buf) > 1<<20 {
		h.buf = nil // a huge line was converted: do not keep its buffer for the rest of the run
	}
	return nil
}
