package evimport

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/pkg/jsonl"
)

// spool holds the events of every converted session until all are
// converted, when they are written in time order. A session is added
// whole, as soon as it is converted, and its events are let go: they are
// kept as the lines they will be, in memory up to spoolInMemory bytes,
// then in a temporary file (removed at the end), so that memory does not
// grow with the input (docs/evimport.md, "Speed and memory").
type spool struct {
	mem  []byte
	file *os.File      // once mem would pass spoolInMemory
	w    *bufio.Writer // on file
	size int64
	segs []segment
	// inMemory: never to a file (a job's events, appended to the spool
	// of all)
	inMemory bool
	// while it is written: the readers of the sessions written before,
	// for the next, and a record too long for a reader's buffer
	readers []*bufio.Reader
	long    []byte
}

// spoolInMemory is how many bytes of events the spool keeps in memory
// before it moves them to a temporary file; a variable for tests.
var spoolInMemory int64 = 4 << 20

// segment is one session's events in the spool: records of the time the
// event sorts by (8 bytes), its seq (8), the length of the rest (4), and
// the rest of its line after the seq, up to the members every event of
// the session ends with (tail), which are kept once, here.
type segment struct {
	order    order
	off, end int64
	firstKey int64
	tail     []byte
}

// order is a session's place among the inputs, which breaks ties between
// events of the same time: the source (claude, codex, pi, gemini, as
// they are converted), the file it was first found in, and the line.
type order struct{ source, file, line int }

func (a order) less(b order) bool {
	if a.source != b.source {
		return a.source < b.source
	}
	if a.file != b.file {
		return a.file < b.file
	}
	return a.line < b.line
}

// add spools the events of s that fall in win, each with its seq: its
// place in its session, from seqBase+1, whatever the window leaves out,
// so that an event's line is the same bytes in every run. The time an
// event sorts by never goes back within a session: a subagent's events
// keep their place after the call that spawned them.
func (sp *spool) add(s *session, at order, win window.Window) error {
	seg := segment{order: at, off: sp.size, tail: appendEventTail(nil, s)}
	sinceMS, untilMS := win.Since.UnixMilli(), win.Until.UnixMilli()
	var key int64
	var rec []byte
	first := true
	if sp.inMemory {
		// room for the session's records at once: grown by append, by
		// a quarter at a time, the memory would be made five times over
		n := 0
		for i := range s.events {
			e := &s.events[i]
			n += 20 + recordHead + len(e.run) + len(e.agent) + len(e.kind) + len(e.payload)
		}
		sp.mem = slices.Grow(sp.mem, n)
	}
	for i := range s.events {
		e := &s.events[i]
		key = max(key, e.ms)
		if !(win.Since.IsZero() || e.ms >= sinceMS) || !(win.Until.IsZero() || e.ms < untilMS) {
			continue
		}
		if first {
			seg.firstKey, first = key, false
		}
		if sp.inMemory {
			// straight into the spool: no copy through rec
			at := len(sp.mem)
			sp.mem = appendRecord(sp.mem, key, s.seqBase+int64(i)+1, e)
			sp.size += int64(len(sp.mem) - at)
			continue
		}
		rec = appendRecord(rec[:0], key, s.seqBase+int64(i)+1, e)
		if err := sp.write(rec); err != nil {
			return err
		}
	}
	seg.end = sp.size
	if seg.end > seg.off {
		sp.segs = append(sp.segs, seg)
	}
	s.events = nil
	return nil
}

// appendRecord appends the spool's record of event e.
func appendRecord(dst []byte, key, seq int64, e *event) []byte {
	at := len(dst)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(key))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(seq))
	dst = append(dst, 0, 0, 0, 0)
	dst = appendEventHead(dst, e)
	binary.LittleEndian.PutUint32(dst[at+16:at+20], uint32(len(dst)-at-20))
	return dst
}

func (sp *spool) write(rec []byte) error {
	sp.size += int64(len(rec))
	if sp.file == nil && (sp.inMemory || int64(len(sp.mem)+len(rec)) <= spoolInMemory) {
		if len(sp.mem)+len(rec) > cap(sp.mem) {
			// doubled, up to spoolInMemory: append grows a large slice
			// by a quarter at a time, which makes it five times over
			more := cap(sp.mem)
			if !sp.inMemory {
				more = min(more, int(spoolInMemory)-len(sp.mem))
			}
			sp.mem = slices.Grow(sp.mem, max(len(rec), more))
		}
		sp.mem = append(sp.mem, rec...)
		return nil
	}
	if sp.file == nil {
		f, err := os.CreateTemp("", "evimport-*.spool")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // gone with the process, whatever happens (where the system allows)
		sp.file, sp.w = f, bufio.NewWriterSize(f, 256<<10)
		if _, err := sp.w.Write(sp.mem); err != nil {
			return err
		}
		sp.mem = nil
	}
	_, err := sp.w.Write(rec)
	return err
}

// append spools the events of another spool, which is in memory.
func (sp *spool) append(o *spool) error {
	for _, seg := range o.segs {
		at := sp.size
		if err := sp.write(o.mem[seg.off:seg.end]); err != nil {
			return err
		}
		seg.off, seg.end = at, sp.size
		sp.segs = append(sp.segs, seg)
	}
	return nil
}

// close lets the temporary file go.
func (sp *spool) close() {
	if sp.file != nil {
		sp.file.Close()
		os.Remove(sp.file.Name())
	}
}

// cursor is a session being written: where its next record is, and the
// time that record sorts by. Its reader exists while it is read.
type cursor struct {
	seg *segment
	off int64
	key int64
	r   *bufio.Reader
}

type cursors []*cursor

func (h cursors) Len() int { return len(h) }
func (h cursors) Less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].seg.order.less(h[j].seg.order)
}
func (h cursors) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// writeTo writes the spooled events of all sessions in time order, each
// session's own order kept.
func (sp *spool) writeTo(out *jsonl.Writer) error {
	if sp.w != nil {
		if err := sp.w.Flush(); err != nil {
			return err
		}
	}
	h := make(cursors, 0, len(sp.segs))
	for i := range sp.segs {
		s := &sp.segs[i]
		h = append(h, &cursor{seg: s, off: s.off, key: s.firstKey})
	}
	heap.Init(&h)
	var head [48]byte // a record's first 20 bytes, then room for `{"seq":` and its digits
	for h.Len() > 0 {
		c := h[0]
		if err := sp.next(c, head[:], out); err != nil {
			return err
		}
		if c.off == c.seg.end {
			if c.r != nil {
				sp.readers = append(sp.readers, c.r) // for the next session
			}
			c.r = nil
			heap.Pop(&h)
			continue
		}
		if _, err := sp.peek(c, head[:8]); err != nil {
			return err
		}
		c.key = int64(binary.LittleEndian.Uint64(head[:8]))
		heap.Fix(&h, 0)
	}
	return nil
}

// next writes c's next record to out, the whole line: its seq, the rest
// of the record, and its session's tail. A record is written from where
// it is read (the spool in memory, the buffer of c's reader), not copied
// on the way.
func (sp *spool) next(c *cursor, head []byte, out *jsonl.Writer) error {
	var rest []byte
	if sp.file == nil {
		rec := sp.mem[c.off:]
		copy(head, rec[:20])
		rest = rec[20 : 20+binary.LittleEndian.Uint32(rec[16:20])]
	} else {
		if c.r == nil {
			// 16 KiB for each session being written, and only while it is:
			// sessions mostly follow each other in time.
			r := io.NewSectionReader(sp.file, c.off, c.seg.end-c.off)
			if n := len(sp.readers); n > 0 {
				c.r, sp.readers = sp.readers[n-1], sp.readers[:n-1]
				c.r.Reset(r)
			} else {
				c.r = bufio.NewReaderSize(r, 16<<10)
			}
		}
		if _, err := io.ReadFull(c.r, head[:20]); err != nil {
			return err
		}
		n := int(binary.LittleEndian.Uint32(head[16:20]))
		var err error
		if n <= c.r.Size() {
			rest, err = c.r.Peek(n)
			c.r.Discard(len(rest)) // rest stays as it is until the next read
		} else {
			sp.long = append(sp.long[:0], make([]byte, n)...)
			rest = sp.long
			_, err = io.ReadFull(c.r, rest)
		}
		if err != nil {
			return err
		}
	}
	c.off += 20 + int64(len(rest))
	num := strconv.AppendInt(append(head[20:20], `{"seq":`...), int64(binary.LittleEndian.Uint64(head[8:16])), 10)
	out.Write(num)
	out.Write(rest)
	out.WriteLine(c.seg.tail)
	return nil
}

// peek reads the key of c's next record without taking it.
func (sp *spool) peek(c *cursor, head []byte) ([]byte, error) {
	if sp.file == nil {
		return append(head[:0], sp.mem[c.off:c.off+8]...), nil
	}
	b, err := c.r.Peek(8)
	return append(head[:0], b...), err
}

// writeSessions writes sessions in time order, each with its seq, through
// a spool of their own (--follow's new events of each round).
func writeSessions(out *jsonl.Writer, sessions []*session, win window.Window) error {
	var sp spool
	defer sp.close()
	for i, s := range sessions {
		if err := sp.add(s, order{file: i}, win); err != nil {
			return err
		}
	}
	return sp.writeTo(out)
}

// appendStr appends a string member: key (with its comma, as in
// `,"kind":`), then v as a JSON string.
func appendStr(dst []byte, key, v string) []byte {
	return jsontext.AppendString(append(dst, key...), v)
}

// recordHead is about what appendEventHead writes besides the run, agent,
// kind and payload: their keys, quotes and ts.
const recordHead = 64

// appendEventHead writes one envelope line after its seq, up to its tail:
// the other five envelope members.
func appendEventHead(dst []byte, e *event) []byte {
	dst = append(dst, `,"ts":`...)
	dst = jsontext.AppendFixed(dst, e.ms, 3)
	dst = appendStr(dst, `,"run_id":`, e.run)
	dst = appendStr(dst, `,"agent_id":`, e.agent)
	dst = appendStr(dst, `,"kind":`, e.kind)
	dst = append(dst, `,"payload":`...)
	return append(dst, e.payload...)
}

// appendEventTail writes the end of every line of session s: its session,
// project and source, which every event carries so that a filter or a
// report can group by them.
func appendEventTail(dst []byte, s *session) []byte {
	dst = appendStr(dst, `,"session":`, s.id)
	dst = appendStr(dst, `,"project":`, s.project)
	dst = appendStr(dst, `,"source":`, s.source)
	if s.host != "" {
		dst = appendStr(dst, `,"host":`, s.host)
	}
	return append(dst, '}')
}
