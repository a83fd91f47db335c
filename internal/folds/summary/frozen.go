package summary

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"sync"

	"github.com/evtools/evtools/internal/folds/record"
)

// The frozen form of a whole state: what a cache keeps of the state of
// an input that never changes (evsum's cache of an archive's segments),
// to be merged later as the state of a part is. It is the frozen form of
// each group and run (freeze.go), which a loaded state keeps as it is
// (frozen, taking a few bytes each, decoded by the report or by a merge
// that meets the same run), with what else the state holds: the bounds
// of its sums and its call notes. Loading it decodes no group or run, so
// that tens of thousands of runs load in milliseconds: the partial
// state's JSON would be parsed line by line.
//
// Its layout (numbers are varints, strings a length and bytes):
//
//	"evsum frozen state 1\n" CRC-32C(rest) FrozenSchema
//	the bounds of the sums, of the wall times
//	groups: count, then key and frozen form of each
//	runs with open calls (kept hot), then the other runs: each a count,
//	then the id and frozen form of each run
//	call notes: runs, then per run its id and ids, per id its notes
//
// A cache file can be cut short or damaged: the checksum refuses it
// before anything is decoded (the frozen forms are decoded trusting
// their bytes).

const frozenMagic = "evsum frozen state 1\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendFrozen appends s's frozen form to b.
func (s *State) AppendFrozen(b []byte) []byte {
	b = append(b, frozenMagic...)
	crcAt := len(b)
	b = append(b, 0, 0, 0, 0)
	f := &enc{b: b}
	f.s(FrozenSchema())
	for _, bd := range s.sums {
		f.i(bd.pos)
		f.i(bd.neg)
	}
	f.i(s.wall.pos)
	f.i(s.wall.neg)
	var one freezer
	writeFrozenMap(f, &one, s.groups, s.coldGroups, func(*group) bool { return true })
	// Runs with open calls first, apart: a state keeps them hot (the
	// report and the merge look their calls up), so loading decodes them.
	writeFrozenMap(f, &one, s.runs, nil, (*run).hasOpenCalls)
	writeFrozenMap(f, &one, s.runs, s.coldRuns, func(r *run) bool { return !r.hasOpenCalls() })
	f.u(uint64(len(s.notes)))
	for run, byID := range s.notes {
		f.s(run)
		f.u(uint64(len(byID)))
		for id, ns := range byID {
			f.s(id)
			f.u(uint64(len(ns)))
			for _, n := range ns {
				f.u(uint64(n.kind))
				f.flag(n.failed)
				f.s(n.name)
				f.s(n.group)
			}
		}
	}
	b = f.b
	sum := crc32.Checksum(b[crcAt+4:], castagnoli)
	binary.LittleEndian.PutUint32(b[crcAt:], sum)
	return b
}

// writeFrozenMap writes what dec.frozenMap reads: a count, then the key
// and frozen form of each hot value that take takes and of each cold one.
func writeFrozenMap[T saved](f *enc, one *freezer, hot map[string]T, cold map[string]string, take func(T) bool) {
	n := len(cold)
	for _, v := range hot {
		if take(v) {
			n++
		}
	}
	f.u(uint64(n))
	for k, v := range hot {
		if take(v) {
			f.s(k)
			f.s(one.freeze(v))
		}
	}
	for k, fr := range cold {
		f.s(k)
		f.s(fr)
	}
}

// errFrozen says a frozen state is not one this evsum wrote whole.
var errFrozen = errors.New("not a whole frozen state")

// LoadFrozen returns the state whose frozen form is data, made with
// options opt (those it was made with: the cache is keyed by them), its
// groups and runs left frozen. An error says data is not a frozen state
// written whole by this version: cut short, damaged, or of another
// layout of the groups and runs.
func LoadFrozen(opt Options, data []byte) (st *State, err error) {
	if !bytes.HasPrefix(data, []byte(frozenMagic)) || len(data) < len(frozenMagic)+4 {
		return nil, errFrozen
	}
	rest := data[len(frozenMagic):]
	if crc32.Checksum(rest[4:], castagnoli) != binary.LittleEndian.Uint32(rest) {
		return nil, fmt.Errorf("%w: its checksum differs", errFrozen)
	}
	// One string of all: the keys and frozen forms the state keeps are
	// parts of it, not an allocation each.
	body := string(rest[4:])
	// The checksum says the bytes are as written; a layout that does not
	// read to the end (another schema's) is refused, not a crash.
	defer func() {
		if recover() != nil {
			st, err = nil, errFrozen
		}
	}()
	d := &dec{b: body}
	if d.s() != FrozenSchema() {
		return nil, fmt.Errorf("%w: of another layout", errFrozen)
	}
	s := New(opt)
	for i := range s.sums {
		s.sums[i] = bound{pos: d.i(), neg: d.i()}
	}
	s.wall = bound{pos: d.i(), neg: d.i()}
	s.coldGroups = d.frozenMap()
	for range d.count() {
		id := d.s()
		s.runs[id] = decodeRun(id, d.s())
	}
	s.pinned = len(s.runs)
	s.coldRuns = d.frozenMap()
	for range d.count() {
		if s.notes == nil {
			s.notes = callNotes{}
		}
		run := d.s()
		byID := map[string][]callNote{}
		for range d.count() {
			id := d.s()
			ns := make([]callNote, d.count())
			for i := range ns {
				ns[i] = callNote{kind: noteKind(d.u()), failed: d.flag(), name: d.s(), group: d.s()}
			}
			byID[id] = ns
		}
		s.notes[run] = byID
	}
	if d.p != len(d.b) {
		return nil, errFrozen
	}
	return s, nil
}

// frozenMap reads a count of keys each followed by a frozen value, as
// the frozen groups and runs are written; none is a nil map, as a state
// that never froze has.
func (d *dec) frozenMap() map[string]string {
	n := d.count()
	if n == 0 {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := d.s()
		m[k] = d.s()
	}
	return m
}

// count reads a count of things that each take at least a byte: one
// larger than the bytes left is a damaged state's.
func (d *dec) count() int {
	n := d.u()
	if n > uint64(len(d.b)-d.p) {
		panic(errFrozen)
	}
	return int(n)
}

// FrozenSchema names the frozen form of groups and runs: the fields
// group.save and run.save name, in their order, with how each is saved,
// and the counters. A state frozen by an evsum of other fields is
// refused by its name, not misread.
func FrozenSchema() string {
	frozenSchemaOnce.Do(func() {
		var w schemaSaver
		for c := record.Counter(0); c < record.NumCounters; c++ {
			w.add("counter", record.Counters[c].Name)
		}
		(&group{}).save(&w)
		r := &run{glass: &glassRun{}}
		r.save(&w)
		(&turnSeg{}).save(&w)
		(&agentSpan{}).save(&w)
		(&call{}).save(&w)
		frozenSchema = fmt.Sprintf("%08x", crc32.Checksum([]byte(w.b.String()), castagnoli))
	})
	return frozenSchema
}

var (
	frozenSchemaOnce sync.Once
	frozenSchema     string
)

// schemaSaver writes down what a save names: each field's kind and name.
type schemaSaver struct{ b strings.Builder }

func (w *schemaSaver) add(kind, name string) {
	w.b.WriteString(kind)
	w.b.WriteByte(' ')
	w.b.WriteString(name)
	w.b.WriteByte('\n')
}

func (w *schemaSaver) id(name string, _ *string)    { w.add("id", name) }
func (w *schemaSaver) keys(name string, _ *group)   { w.add("keys", name) }
func (w *schemaSaver) count(name string, _ *int64)  { w.add("count", name) }
func (w *schemaSaver) signed(name string, _ *int64) { w.add("signed", name) }
func (w *schemaSaver) seq(name string, _ *int64)    { w.add("seq", name) }
func (w *schemaSaver) flag(name string, _ *bool)    { w.add("flag", name) }
func (w *schemaSaver) str(name string, _ *string)   { w.add("str", name) }
func (w *schemaSaver) key(name string, _ *string)   { w.add("key", name) }
func (w *schemaSaver) tools(name string, _ *group)  { w.add("tools", name) }
func (w *schemaSaver) sketch(name string, _ *sketch) {
	w.add("sketch", name)
}
func (w *schemaSaver) runs(name string, _ *group)           { w.add("runs", name) }
func (w *schemaSaver) glass(p **glassRun) *glassRun         { w.add("glass", ""); return *p }
func (w *schemaSaver) turns(name string, _ *turnSeg)        { w.add("turns", name) }
func (w *schemaSaver) counter(c record.Counter, _ *counts)  { w.add("counters", partialName(c)) }
func (w *schemaSaver) time(name string, _ *int64, _ *bool)  { w.add("time", name) }
func (w *schemaSaver) value(name string, _ *int64, _ *bool) { w.add("value", name) }
func (w *schemaSaver) span(first, last string, _, _ *int64, _ *bool) {
	w.add("span", first+" "+last)
}
func (w *schemaSaver) agents(name string, _ *map[string]*agentSpan) { w.add("agents", name) }
func (w *schemaSaver) calls(name string, _ *map[string]*call)       { w.add("calls", name) }
