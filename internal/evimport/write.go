package evimport

import (
	"container/heap"
	"strconv"

	"github.com/evtools/evtools/internal/jsontext"
	"github.com/evtools/evtools/pkg/jsonl"
)

// cursor is a session being written: the next event, and the time it
// sorts by, which never goes back within a session (a subagent's events
// keep their place after the call that spawned them).
type cursor struct {
	s     *session
	order int // the session's place among the inputs: ties go by it
	next  int
	key   int64
}

type cursors []*cursor

func (h cursors) Len() int { return len(h) }
func (h cursors) Less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].order < h[j].order
}
func (h cursors) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

func (c *cursor) advance() bool {
	if c.next >= len(c.s.events) {
		return false
	}
	if ms := c.s.events[c.next].ms; ms > c.key {
		c.key = ms
	}
	return true
}

// writeSessions writes the events of all sessions in time order, each
// with its seq: its place in its session, from 1, whatever the window
// leaves out, so that an event's line is the same bytes in every run.
func writeSessions(out *jsonl.Writer, sessions []*session, win window) {
	h := make(cursors, 0, len(sessions))
	for i, s := range sessions {
		c := &cursor{s: s, order: i}
		if c.advance() {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	sinceMS, untilMS := win.since.UnixMilli(), win.until.UnixMilli()
	var line []byte
	for h.Len() > 0 {
		c := h[0]
		e := &c.s.events[c.next]
		c.next++
		inWindow := (win.since.IsZero() || e.ms >= sinceMS) && (win.until.IsZero() || e.ms < untilMS)
		if inWindow {
			line = appendEvent(line[:0], c.s, c.s.seqBase+int64(c.next), e)
			out.WriteLine(line)
		}
		if c.advance() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
}

// appendStr appends a string member: key (with its comma, as in
// `,"kind":`), then v as a JSON string.
func appendStr(dst []byte, key, v string) []byte {
	return jsontext.AppendString(append(dst, key...), v)
}

// appendEvent writes one envelope line: the six envelope members, then
// the session, project and source, which every event carries so that a
// filter or a report can group by them.
func appendEvent(dst []byte, s *session, seq int64, e *event) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, seq, 10)
	dst = append(dst, `,"ts":`...)
	dst = jsontext.AppendFixed(dst, e.ms, 3)
	dst = appendStr(dst, `,"run_id":`, e.run)
	dst = appendStr(dst, `,"agent_id":`, e.agent)
	dst = appendStr(dst, `,"kind":`, e.kind)
	dst = append(dst, `,"payload":`...)
	dst = append(dst, e.payload...)
	dst = appendStr(dst, `,"session":`, s.id)
	dst = appendStr(dst, `,"project":`, s.project)
	dst = appendStr(dst, `,"source":`, s.source)
	return append(dst, '}')
}
