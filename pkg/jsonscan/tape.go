package jsonscan

import (
	"slices"
	"sort"
)

// A Tape records, while NestedSpans validates a line, where the members
// of every object and the elements of every array below the levels it
// reports are, so that a reader that takes those containers apart later
// (an array of tool calls, a tool result in an object in an array) reads
// them from the tape instead of walking their values again: a long string
// three levels down is otherwise skipped once for each level above it.
// Give it to NestedSpans through Inner.Deep; reuse it from line to line.
type Tape struct {
	// Keys are the top-level members whose containers are recorded, as
	// their raw keys are spelled; none: all of them. What is not read
	// again is not worth recording.
	Keys []string
	// Plain, when set, has the scan note which of the long strings in
	// those members are plain (see Plain): it looks at every multi-byte
	// rune in them.
	NotePlain bool

	spans []Span          // each container's members or elements, together
	conts []tapeContainer // by where they start
	// while the scan runs: the members of the containers still open, and
	// for each such container its index in conts and its first in pending
	pending []Span
	open    []openContainer
	full    bool // what did not fit was not recorded: nothing is read back
	plain   []plainString
}

// plainString is where a plain string is: its quotes at start and end-1.
type plainString struct{ start, end int }

// plainMin is the length from which a plain string is noted: a shorter
// one is as quickly looked at again.
const plainMin = 64

// plainString scans the string value at data[i] == '"' and notes it if
// it is plain and long: it returns where the string ends, as scanString.
func (t *Tape) plainString(data []byte, i int) (int, errCode) {
	end, code, plain := scanStringPlain(data, i+1)
	if plain && end-i >= plainMin && len(t.plain) < maxTapeSpans {
		t.plain = append(t.plain, plainString{i, end})
	}
	return end, code
}

// Plain reports whether v, a string value of line in the members the
// tape records (a sub-slice of line, the data the scan that recorded t
// read), is plain: its text quoted again, by a writer that escapes only
// what a JSON string must hold escaped (and \n, \r, \t by their short
// forms), would be the same bytes. Its only escapes are \" \\ \n \r \t,
// and it holds no DEL, no C1 control, no U+2028 or U+2029, and only
// valid UTF-8: a tool may copy it as it is. Only strings of 64 bytes or
// more are noted, when t.NotePlain is set; for others it reports false,
// which says nothing.
func (t *Tape) Plain(line, v []byte) bool {
	if t == nil || len(v) < plainMin {
		return false
	}
	off := OffsetOf(line, v)
	if off < 0 || &line[off] != &v[0] {
		return false
	}
	k, found := slices.BinarySearchFunc(t.plain, off, func(p plainString, off int) int { return p.start - off })
	return found && t.plain[k].end == off+len(v)
}

type tapeContainer struct{ start, end, from, to int }

type openContainer struct{ cont, first int }

// maxTapeSpans bounds what a tape holds (about 1 MiB): a line with more
// members below its top levels is walked again when read, as without a
// tape, rather than held twice.
const maxTapeSpans = 1 << 15

// wants reports whether the containers in the top-level member key are
// recorded.
func (t *Tape) wants(key []byte) bool {
	if len(t.Keys) == 0 {
		return true
	}
	for _, k := range t.Keys {
		if string(key) == k {
			return true
		}
	}
	return false
}

// reset empties t for the next line.
func (t *Tape) reset() {
	t.spans, t.conts, t.pending, t.open, t.full = t.spans[:0], t.conts[:0], t.pending[:0], t.open[:0], false
	t.plain = t.plain[:0]
}

// openAt notes a container starting at i.
func (t *Tape) openAt(i int) {
	if t.full {
		return
	}
	if len(t.conts) >= maxTapeSpans {
		t.full = true
		return
	}
	t.open = append(t.open, openContainer{len(t.conts), len(t.pending)})
	t.conts = append(t.conts, tapeContainer{start: i})
}

// key notes the key of a member of the innermost open container, which
// starts at i; keyEnd notes where it ends, value where the value starts.
func (t *Tape) key(i int) {
	if !t.full {
		t.add(Span{i, -1, -1, -1})
	}
}

// add notes a member or element of an open container, unless the
// tape's bound is passed: it is full then. The bound holds while the
// containers are open too, or an array of a million numbers would be
// noted whole before it is found to be too long.
func (t *Tape) add(sp Span) {
	if len(t.pending) >= maxTapeSpans {
		t.full = true
		return
	}
	t.pending = append(t.pending, sp)
}

func (t *Tape) keyEnd(i int) {
	if !t.full {
		t.pending[len(t.pending)-1].KeyEnd = i
	}
}

// value notes a value starting at i: a member's after its key, or an
// element of an array (no key: KeyStart and KeyEnd -1). Its end is
// noted by valueEnd.
func (t *Tape) value(i int) {
	if t.full {
		return
	}
	if n := len(t.pending); n > 0 && t.pending[n-1].ValueStart < 0 {
		t.pending[n-1].ValueStart = i
		return
	}
	t.add(Span{-1, -1, i, -1})
}

// valueEnd notes that the value of the innermost open container's last
// member ends at i.
func (t *Tape) valueEnd(i int) {
	if !t.full {
		t.pending[len(t.pending)-1].ValueEnd = i
	}
}

// closeAt notes that the innermost open container ends at i (just past
// its '}' or ']').
func (t *Tape) closeAt(i int) {
	if t.full {
		return
	}
	o := t.open[len(t.open)-1]
	t.open = t.open[:len(t.open)-1]
	if len(t.spans)+len(t.pending)-o.first > maxTapeSpans {
		t.full = true
		return
	}
	c := &t.conts[o.cont]
	c.end, c.from = i, len(t.spans)
	t.spans = append(t.spans, t.pending[o.first:]...)
	c.to = len(t.spans)
	t.pending = t.pending[:o.first]
}

// Container returns the members (for an array, the elements, with
// KeyStart and KeyEnd -1) of the object or array v, a sub-slice of line,
// the data the scan that recorded t read, as offsets into line; ok is
// false when v is not a container the tape holds whole.
func (t *Tape) Container(line, v []byte) (spans []Span, ok bool) {
	if t == nil || t.full || len(v) == 0 || len(t.conts) == 0 {
		return nil, false
	}
	off := OffsetOf(line, v)
	if off < 0 || &line[off] != &v[0] {
		return nil, false
	}
	k := sort.Search(len(t.conts), func(k int) bool { return t.conts[k].start >= off })
	if k == len(t.conts) || t.conts[k].start != off || t.conts[k].end != off+len(v) {
		return nil, false
	}
	c := t.conts[k]
	return t.spans[c.from:c.to], true
}
