package summary

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/evtools/evtools/internal/folds/record"
)

// hotLimit is how many groups (and runs) stay decoded. Past it, all but the
// one in use are frozen: encoded into a compact byte string of varints,
// about a quarter of their decoded size. Runs of a log mostly come one
// after another, so a frozen group or run is rarely touched again; when it
// is, it is thawed. This is what keeps 100,000 runs in a few tens of MB.
// Tests set it to 1 to freeze everything all the time.
var hotLimit = 1024

// getGroup returns the group with key, thawing it if frozen, or nil.
func (s *State) getGroup(key string) *group {
	return unfreeze(s.groups, s.coldGroups, key, func() *group { return s.newGroup("") }, decodeGroupInto)
}

// unfreeze returns the value under key in hot, or decodes the frozen one in
// cold into fresh() and moves it to hot; nil when neither has it. Groups
// and runs are frozen and thawed alike.
func unfreeze[T any](hot map[string]*T, cold map[string]string, key string, fresh func() *T, decode func(*T, string, string) *T) *T {
	if v := hot[key]; v != nil {
		return v
	}
	b, ok := cold[key]
	if !ok {
		return nil
	}
	delete(cold, key)
	v := decode(fresh(), key, b)
	hot[key] = v
	return v
}

// newGroup is a group keyed key, one frozen before when there is one: a
// freeze leaves a thousand groups and runs behind, which new ones take
// the place of instead of being allocated (and collected) again.
func (s *State) newGroup(key string) *group {
	n := len(s.freeGroups)
	if n == 0 {
		return &group{key: key}
	}
	g := s.freeGroups[n-1]
	s.freeGroups = s.freeGroups[:n-1]
	g.key = key
	return g
}

// recycleGroup keeps g, frozen, for newGroup, with the room of its
// slices. Nothing else refers to it: the state's groups are found by key.
func (s *State) recycleGroup(g *group) {
	clear(g.tools)
	*g = group{tools: g.tools[:0], latency: sketch{data: g.latency.data[:0]}}
	s.freeGroups = append(s.freeGroups, g)
}

// newRun and recycleRun do for runs what newGroup and recycleGroup do
// for groups.
func (s *State) newRun(id string) *run {
	n := len(s.freeRuns)
	if n == 0 {
		return newRun(id)
	}
	r := s.freeRuns[n-1]
	s.freeRuns = s.freeRuns[:n-1]
	*r = run{id: id, finishSeq: noSeq, endSeq: noSeq}
	return r
}

func (s *State) recycleRun(r *run) {
	*r = run{}
	s.freeRuns = append(s.freeRuns, r)
}

// peekGroup returns the group with key without thawing it for good.
func (s *State) peekGroup(key string) *group { return s.peekGroupIn(key, nil) }

func (s *State) getRun(id string) *run {
	return unfreeze(s.runs, s.coldRuns, id, func() *run { return s.newRun("") }, decodeRunInto)
}

// peekGroupIn and peekRunIn are peekGroup and peekRun decoding a frozen
// one into g or r, when not nil.
func (s *State) peekGroupIn(key string, g *group) *group {
	return peek(s.groups, s.coldGroups, key, g, decodeGroupInto)
}

func (s *State) peekRunIn(id string, r *run) *run {
	return peek(s.runs, s.coldRuns, id, r, decodeRunInto)
}

// peek is unfreeze that leaves the frozen value frozen, decoding it into
// room (a new value when nil).
func peek[T any](hot map[string]*T, cold map[string]string, key string, room *T, decode func(*T, string, string) *T) *T {
	if v := hot[key]; v != nil {
		return v
	}
	if b, ok := cold[key]; ok {
		if room == nil {
			room = new(T)
		}
		return decode(room, key, b)
	}
	return nil
}

func (s *State) peekRun(id string) *run { return s.peekRunIn(id, nil) }

// frozenGroupTS and frozenRunTS are the first time of a frozen group or
// run, read without decoding the rest.
func frozenGroupTS(b string) (int64, bool) {
	d := dec{b: b}
	for mask := d.u(); mask != 0; mask &= mask - 1 {
		d.i() // the counters, frozen before the span
	}
	hasTS := d.flag()
	return d.i(), hasTS
}

func frozenRunTS(b string) (int64, bool) {
	d := dec{b: b} // the span is the first field run.save freezes
	hasTS := d.flag()
	return d.i(), hasTS
}

// groupKeys and runIDs list every key, hot or frozen.
func (s *State) groupKeys() []string { return keys(s.groups, s.coldGroups) }

func (s *State) runIDs() []string { return keys(s.runs, s.coldRuns) }

func keys[T any](hot map[string]*T, cold map[string]string) []string {
	return slices.AppendSeq(slices.AppendSeq(make([]string, 0, len(hot)+len(cold)), maps.Keys(hot)), maps.Keys(cold))
}

// maybeFreeze freezes when too many groups or runs are decoded. Runs that
// a freeze must leave hot (open calls) do not count against the limit, and
// the limit grows with them, so that thousands of such runs cost a pass
// now and then rather than a pass over all of them at every event.
func (s *State) maybeFreeze(keepGroup *group, keepRun *run) {
	// Freezing sooner or later, more or less, changes only how much stays
	// decoded (memory), never a value; only runs with open calls must stay
	// hot.
	if len(s.groups) > hotLimit || s.runsOver() {
		s.freeze(keepGroup, keepRun)
	}
}

func (s *State) runsOver() bool { return len(s.runs) > s.pinned+max(hotLimit, s.pinned) }

// freeze encodes the hot groups and runs but keep (which stay hot). Runs
// with open zot tool calls stay hot: their calls are looked up by id.
func (s *State) freeze(keepGroup *group, keepRun *run) {
	s.lastRun, s.lastGroup = nil, nil
	if len(s.groups) > hotLimit {
		if s.coldGroups == nil {
			s.coldGroups = map[string]string{}
		}
		for k, g := range s.groups {
			if g != keepGroup {
				s.coldGroups[k] = s.freezer.freeze(g)
				delete(s.groups, k)
				s.recycleGroup(g)
			}
		}
	}
	if s.runsOver() {
		s.runFreezes++
		if s.coldRuns == nil {
			s.coldRuns = map[string]string{}
		}
		for id, r := range s.runs {
			if r != keepRun && !r.hasOpenCalls() {
				s.coldRuns[id] = s.freezer.freeze(r)
				delete(s.runs, id)
				s.recycleRun(r)
			}
		}
		s.pinned = len(s.runs)
	}
}

type enc struct{ b []byte }

func (e *enc) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) f(v float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
}

// value writes a sketch word: a bucket as a uvarint; an exact value as
// whole microseconds (or milliseconds) when it is one, which is almost
// always, else its 8 bytes.
func (e *enc) value(x uint64, exact bool) {
	if !exact {
		e.u(x)
		return
	}
	v := math.Float64frombits(x)
	// The check us/1000 == v keeps the short form lossless.
	if us := math.Round(v * 1000); us >= 0 && us < 1<<52 && us/1000 == v {
		e.u(uint64(us) << 1)
		return
	}
	e.u(1)
	e.b = binary.LittleEndian.AppendUint64(e.b, x)
}

func (d *dec) value(exact bool) uint64 {
	x := d.u()
	if !exact {
		return x
	}
	if x&1 == 0 {
		return math.Float64bits(float64(x>>1) / 1000)
	}
	return d.u64()
}

func (e *enc) s(v string) { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) flag(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// dec reads what enc wrote; the bytes are always ours, so it trusts them.
type dec struct {
	b string
	p int
}

func (d *dec) u() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := d.b[d.p]
		d.p++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
}
func (d *dec) i() int64 {
	u := d.u()
	return int64(u>>1) ^ -int64(u&1)
}
func (d *dec) u64() uint64 {
	var v uint64
	for k := 7; k >= 0; k-- {
		v = v<<8 | uint64(d.b[d.p+k])
	}
	d.p += 8
	return v
}
func (d *dec) f() float64 { return math.Float64frombits(d.u64()) }
func (d *dec) s() string {
	n := int(d.u())
	v := string(d.b[d.p : d.p+n])
	d.p += n
	return v
}
func (d *dec) flag() bool { d.p++; return d.b[d.p-1] == 1 }

// counts writes the counters that are not zero after a mask of which
// they are: most groups leave several at zero.
func (e *enc) counts(c []int64) {
	var mask uint64
	for i, v := range c {
		if v != 0 {
			mask |= 1 << i
		}
	}
	e.u(mask)
	for _, v := range c {
		if v != 0 {
			e.i(v)
		}
	}
}

func (d *dec) counts(c []int64) {
	mask := d.u()
	for i := range c {
		if mask&(1<<i) != 0 {
			c[i] = d.i()
		}
	}
}

// freezer is the saver that writes the frozen form of a group or a run:
// each field as varints, in the order of its save. Numbers that are often
// zero cost a byte; times are kept from the record's first time (its
// span's lo), which is near, so they are short. A state keeps one, with
// its buffer, for all its freezes.
type freezer struct {
	enc
	base int64 // the span's lo
}

// freeze is the frozen form of v, a group or a run; the buffer is kept
// for the next one, unless a huge value (a run_id) made it huge.
func (f *freezer) freeze(v saved) string {
	f.b = f.b[:0]
	v.save(f)
	s := string(f.b)
	if cap(f.b) > 1<<20 {
		f.b = nil
	}
	return s
}

// The key and the id are the frozen form's key in its map.
func (f *freezer) id(string, *string)  {}
func (f *freezer) keys(string, *group) {}

func (f *freezer) span(_, _ string, lo, hi *int64, has *bool) {
	f.enc.flag(*has)
	f.i(*lo)
	f.i(*hi - *lo)
	f.base = *lo
}

// counter freezes all the counters at the first, together: most groups
// leave several at zero, which then take no room.
func (f *freezer) counter(c record.Counter, n *counts) {
	if c == 0 {
		f.counts(n[:])
	}
}

func (f *freezer) count(_ string, v *int64)  { f.i(*v) }
func (f *freezer) signed(_ string, v *int64) { f.i(*v) }
func (f *freezer) seq(_ string, v *int64)    { f.i(*v) }

func (f *freezer) time(_ string, v *int64, has *bool) {
	f.enc.flag(*has)
	if *has {
		f.i(*v - f.base)
	}
}

func (f *freezer) value(_ string, v *int64, has *bool) {
	f.enc.flag(*has)
	if *has {
		f.i(*v)
	}
}

func (f *freezer) flag(_ string, v *bool)  { f.enc.flag(*v) }
func (f *freezer) str(_ string, v *string) { f.s(*v) }
func (f *freezer) key(_ string, v *string) { f.s(*v) }

func (f *freezer) tools(_ string, g *group) {
	f.u(uint64(len(g.tools)))
	for _, t := range g.tools {
		f.s(t.name)
		f.i(t.calls)
		f.i(t.failed)
	}
}

func (f *freezer) sketch(_ string, l *sketch) {
	f.u(l.n)
	if l.n > 0 {
		f.u(l.zero)
		f.f(l.min)
		f.f(l.max)
		f.u(uint64(len(l.data)))
		for _, x := range l.data {
			f.enc.value(x, !l.bucketed())
		}
	}
}

func (f *freezer) runs(_ string, g *group) {
	// by run, the group's one run is its key: do not store it twice
	if g.run != "" && len(g.key) == len(g.run)+2 && g.key[1:len(g.key)-1] == g.run {
		f.enc.flag(true)
	} else {
		f.enc.flag(false)
		f.s(g.run)
	}
	f.u(uint64(len(g.runs)))
	for r := range g.runs {
		f.s(r)
	}
}

// glass says whether the run has a glasspane part: most runs of a run
// log have none, and its fields take no room then.
func (f *freezer) glass(p **glassRun) *glassRun {
	f.enc.flag(*p != nil)
	return *p
}

func (f *freezer) turns(_ string, t *turnSeg) { t.save(f) }

func (f *freezer) agents(_ string, m *map[string]*agentSpan) { freezeMembers(f, *m) }
func (f *freezer) calls(_ string, m *map[string]*call)       { freezeMembers(f, *m) }

func freezeMembers[T saved](f *freezer, m map[string]T) {
	f.u(uint64(len(m)))
	for id, v := range m {
		f.s(id)
		v.save(f)
	}
}

// thawer is the saver that reads what freezer wrote, into place.
type thawer struct {
	dec
	base   int64
	mapKey string // the frozen form's key in its map
	room   run    // where a run is decoded
}

func decodeGroup(key string, b string) *group { return decodeGroupInto(&group{}, key, b) }

// decodeGroupInto decodes into g, reusing the room of its slices.
func decodeGroupInto(g *group, key string, b string) *group {
	tools, data := g.tools[:0], g.latency.data[:0]
	*g = group{tools: tools, latency: sketch{data: data}}
	d := thaw(key, b)
	g.save(d)
	thawers.Put(d)
	return g
}

func decodeRun(id string, b string) *run { return decodeRunInto(&run{}, id, b) }

// decodeRunInto decodes into r. The run is decoded in the thawer's room
// and copied: r, the report's room on its stack, is then not handed to
// the saver, and stays on the stack.
func decodeRunInto(r *run, id string, b string) *run {
	d := thaw(id, b)
	d.room.save(d)
	*r = d.room
	d.room = run{}
	thawers.Put(d)
	return r
}

// thawers hold the thawers not in use: a saver is given to save as an
// interface, so it would be allocated at each thaw, and the report thaws
// every group and run (on several goroutines).
var thawers = sync.Pool{New: func() any { return new(thawer) }}

// thaw is a thawer from thawers reading b, the frozen form keyed key.
func thaw(key, b string) *thawer {
	d := thawers.Get().(*thawer)
	d.dec, d.base, d.mapKey = dec{b: b}, 0, key
	return d
}

func (d *thawer) id(_ string, v *string)  { *v = d.mapKey }
func (d *thawer) keys(_ string, g *group) { g.key = d.mapKey }

func (d *thawer) span(_, _ string, lo, hi *int64, has *bool) {
	*has = d.dec.flag()
	*lo = d.i()
	*hi = *lo + d.i()
	d.base = *lo
}

func (d *thawer) counter(c record.Counter, n *counts) {
	if c == 0 {
		d.counts(n[:])
	}
}

func (d *thawer) count(_ string, v *int64)  { *v = d.i() }
func (d *thawer) signed(_ string, v *int64) { *v = d.i() }
func (d *thawer) seq(_ string, v *int64)    { *v = d.i() }

func (d *thawer) time(_ string, v *int64, has *bool) {
	if *has = d.dec.flag(); *has {
		*v = d.base + d.i()
	}
}

func (d *thawer) value(_ string, v *int64, has *bool) {
	if *has = d.dec.flag(); *has {
		*v = d.i()
	}
}

func (d *thawer) flag(_ string, v *bool)  { *v = d.dec.flag() }
func (d *thawer) str(_ string, v *string) { *v = d.s() }
func (d *thawer) key(_ string, v *string) { *v = d.s() }

func (d *thawer) tools(_ string, g *group) {
	if n := int(d.u()); n > 0 {
		g.tools = slices.Grow(g.tools, n)[:n]
		for i := range g.tools {
			g.tools[i] = toolCount{name: d.s(), calls: d.i(), failed: d.i()}
		}
	}
}

func (d *thawer) sketch(_ string, l *sketch) {
	l.n = d.u()
	if l.n > 0 {
		l.zero = d.u()
		l.min = d.f()
		l.max = d.f()
		n := int(d.u())
		l.data = slices.Grow(l.data, n)[:n]
		for i := range l.data {
			l.data[i] = d.dec.value(!l.bucketed())
		}
	}
}

func (d *thawer) runs(_ string, g *group) {
	if d.dec.flag() {
		g.run = d.mapKey[1 : len(d.mapKey)-1]
	} else {
		g.run = d.s()
	}
	if n := int(d.u()); n > 0 {
		g.runs = make(map[string]struct{}, n)
		for range n {
			g.runs[d.s()] = struct{}{}
		}
	}
}

func (d *thawer) glass(p **glassRun) *glassRun {
	if d.dec.flag() {
		*p = &glassRun{}
	}
	return *p
}

func (d *thawer) turns(_ string, t *turnSeg) { t.save(d) }

func (d *thawer) agents(_ string, m *map[string]*agentSpan) {
	thawMembers(d, m, func() *agentSpan { return &agentSpan{} })
}

func (d *thawer) calls(_ string, m *map[string]*call) {
	thawMembers(d, m, func() *call { return &call{} })
}

func thawMembers[T saved](d *thawer, m *map[string]T, fresh func() T) {
	n := int(d.u())
	if n == 0 {
		return
	}
	*m = make(map[string]T, n)
	for range n {
		id := d.s()
		v := fresh()
		v.save(d)
		(*m)[id] = v
	}
}
