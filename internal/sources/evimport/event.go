package evimport

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// mainAgent is the agent_id of an agent's own thread; its subagents have
// ids of their own (docs/evimport.md).
const mainAgent = "main"

// event is one envelope event of a session, before its seq: seq is the
// event's place in its session, given when the session is complete.
type event struct {
	ms      int64 // ts in milliseconds since the epoch; 0: not known
	run     string
	agent   string
	kind    string
	payload []byte // a JSON object
	// unsettled: what more lines of the log may still change (the end of
	// the last run, a response whose last line may be still to come);
	// --follow holds it back
	unsettled bool
}

// object builds a JSON object member by member, in the order they are
// added, so that the same input gives the same bytes.
type object struct {
	b []byte
	a *arena // whose room b is made in, nil for none
}

func newObject() *object { return &object{b: []byte{'{'}} }

// sized is newObject with room for about n bytes: an object with a long
// text is then made without growing it.
func sized(n int) *object {
	b := make([]byte, 1, n+n/8+128)
	b[0] = '{'
	return &object{b: b}
}

// arena is where a worker's payloads are made, one after the other in
// large chunks instead of each in a buffer of its own: they live until
// their group's events are spooled (reset), and most of what evimport
// allocates is theirs. One object is made at a time; one begun while
// another is open gets a buffer of its own.
type arena struct {
	cur  []byte   // the chunk being filled: its length is what is used
	full [][]byte // chunks filled, in use until reset
	free [][]byte // chunks to fill again
	open bool
}

// object begins an object with room for about n bytes in the arena.
func (a *arena) object(n int) *object {
	if a == nil || a.open {
		return sized(n)
	}
	need := n + n/8 + 128
	if cap(a.cur)-len(a.cur) < need {
		if cap(a.cur) > 0 {
			a.full = append(a.full, a.cur)
		}
		a.cur = nil
		if k := len(a.free); k > 0 && cap(a.free[k-1]) >= need {
			a.cur, a.free = a.free[k-1][:0], a.free[:k-1]
		} else {
			a.cur = make([]byte, 0, max(256<<10, 2*need))
		}
	}
	a.open = true
	return &object{b: append(a.cur[len(a.cur):], '{'), a: a}
}

// reset lets the chunks be filled again: nothing made in them is in use.
func (a *arena) reset() {
	for _, c := range a.full {
		if cap(c) <= 1<<20 { // a chunk made for one huge payload is let go
			a.free = append(a.free, c[:0])
		}
	}
	a.full = a.full[:0]
	a.cur = a.cur[:0]
}

func (o *object) key(k string) {
	if len(o.b) > 1 {
		o.b = append(o.b, ',')
	}
	o.b = jsontext.AppendString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *object) str(k, v string) *object {
	o.key(k)
	o.b = jsontext.AppendString(o.b, v)
	return o
}

// strIf adds k only when v is not empty.
func (o *object) strIf(k, v string) *object {
	if v != "" {
		o.str(k, v)
	}
	return o
}

func (o *object) num(k string, v int64) *object {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
	return o
}

func (o *object) boolean(k string, v bool) *object {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
	return o
}

// usd adds a cost in dollars, rounded to 10^-9 (what evsum reads).
func (o *object) usd(k string, v float64) *object {
	o.key(k)
	o.b = jsontext.AppendFixed(o.b, int64(math.Round(v*1e9)), 9)
	return o
}

// raw adds v, which must be one JSON value; nothing when it is empty. A
// value from a document written over several lines (Gemini CLI's older
// files) is compacted: an event is one line.
func (o *object) raw(k string, v []byte) *object {
	if len(v) == 0 {
		return o
	}
	o.key(k)
	if bytes.IndexByte(v, '\n') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, v) == nil {
			o.b = append(o.b, buf.Bytes()...)
			return o
		}
	}
	o.b = append(o.b, v...)
	return o
}

func (o *object) done() []byte {
	o.b = append(o.b, '}')
	if a := o.a; a != nil {
		a.open = false
		used := len(a.cur)
		if cap(o.b) == cap(a.cur)-used && len(o.b) <= cap(a.cur)-used && &a.cur[:used+1][used] == &o.b[0] {
			// made in the chunk: it is the chunk's now
			a.cur = a.cur[:used+len(o.b)]
			return o.b[:len(o.b):len(o.b)]
		}
	}
	return o.b
}

// parseTime reads the RFC 3339 times the logs write, as milliseconds; 0
// when there is none or it does not parse.
func parseTime(s string) int64 {
	if s == "" {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// oneLine is s on one line, cut to n runes, for messages on stderr.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
