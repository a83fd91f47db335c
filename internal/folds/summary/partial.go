package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// partialVersion is the version of the partial-state format. The format
// is JSON Lines: a header line, then one line per group and one per run.
// Every line is self-contained, so partial files can be concatenated,
// shuffled or sorted (Hadoop) before --merge reads them, as long as each
// file's header comes before its other lines (sorting keeps it first:
// `{"evsum"` sorts before `{"group"` and `{"run"`).
//
// Version 2 adds to the header the window (since, until; with the text
// given for a duration) and the number of lines after it (lines), which
// --merge checks at the end of each file. Version 1 states are read, but
// only among version 1 states.
const partialVersion = 2

type pHeader struct {
	Evsum    string `json:"evsum"` // always "partial"
	Version  int    `json:"version"`
	By       string `json:"by"`
	TZ       string `json:"tz"`
	Since    string `json:"since,omitempty"`     // UTC RFC 3339
	SinceArg string `json:"since_arg,omitempty"` // the duration given (7d)
	Until    string `json:"until,omitempty"`
	UntilArg string `json:"until_arg,omitempty"`
	// Breakdown is the --breakdown (model), left out when there is none:
	// its group lines have one key more than By. An evsum that does not
	// know it refuses such a state rather than misread it.
	Breakdown string `json:"breakdown,omitempty"`
	Lines     *int64 `json:"lines,omitempty"` // groups and runs written after the header
}

// rfc3339 is a window bound as the header writes it; "" for none.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

type pSketch struct {
	N    uint64     `json:"n"`
	Zero uint64     `json:"zero,omitempty"`
	Min  float64    `json:"min"`
	Max  float64    `json:"max"`
	V    []float64  `json:"v,omitempty"` // the values, up to exactCap
	B    [][2]int64 `json:"b,omitempty"` // [bucket index, count]
}

// obj writes one JSON object of a partial state, member by member.
type obj struct{ b []byte }

func (o *obj) key(name string) {
	if len(o.b) > 0 && o.b[len(o.b)-1] != '{' && o.b[len(o.b)-1] != '[' {
		o.b = append(o.b, ',')
	}
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, `":`...)
}

// int writes a number, left out when it is zero unless always.
func (o *obj) int(name string, v int64, always bool) {
	if v != 0 || always {
		o.key(name)
		o.b = strconv.AppendInt(o.b, v, 10)
	}
}

// opt writes a number that is there only when ok.
func (o *obj) opt(name string, v int64, ok bool) {
	if ok {
		o.int(name, v, true)
	}
}

// str writes a string, left out when it is empty unless always.
func (o *obj) str(name, v string, always bool) {
	if v != "" || always {
		o.key(name)
		o.b = jsontext.AppendString(o.b, v)
	}
}

func (o *obj) open(name string, c byte) {
	o.key(name)
	o.b = append(o.b, c)
}

func (o *obj) close(c byte) { o.b = append(o.b, c) }

// object writes an object whose members are named by names, in their
// order, each value written by value(i); nothing when there are none.
func (o *obj) object(name string, names []string, value func(i int)) {
	if len(names) == 0 {
		return
	}
	o.open(name, '{')
	for i, n := range names {
		o.next(i)
		o.b = jsontext.AppendString(o.b, n)
		o.b = append(o.b, ':')
		value(i)
	}
	o.close('}')
}

// next separates element i of an array or object from the one before.
func (o *obj) next(i int) {
	if i > 0 {
		o.b = append(o.b, ',')
	}
}

// pTurns, pAgent and pCall are the JSON shapes of a run's turns, of an
// agent and of a pending call, which --merge reads with encoding/json
// (run.save names what is written).
type pTurns struct {
	Any      bool   `json:"any,omitempty"`
	Open     bool   `json:"open,omitempty"`
	OpenUS   *int64 `json:"open_us,omitempty"`
	Orphan   bool   `json:"orphan,omitempty"`
	OrphanUS *int64 `json:"orphan_us,omitempty"`
	Group    string `json:"orphan_group,omitempty"`
}

type pAgent struct {
	Spawned bool   `json:"spawned,omitempty"`
	StartUS *int64 `json:"start_us,omitempty"`
	Ends    int64  `json:"ends,omitempty"`
	EndSeq  *int64 `json:"end_seq,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	EndUS   *int64 `json:"end_us,omitempty"`
}

type pCall struct {
	Name     string `json:"name,omitempty"`
	Group    string `json:"group"`
	Started  bool   `json:"started,omitempty"`
	Deferred bool   `json:"deferred,omitempty"`
	Ended    bool   `json:"ended,omitempty"`
	Failed   bool   `json:"failed,omitempty"`
	EndGroup string `json:"end_group,omitempty"`
}

func (s *sketch) partial() *pSketch {
	if s.n == 0 {
		return nil
	}
	p := &pSketch{N: s.n, Zero: s.zero, Min: s.min, Max: s.max}
	if !s.bucketed() {
		p.V = s.exact()
		sort.Float64s(p.V)
		return p
	}
	for _, x := range s.data {
		idx, n := unpack(x)
		p.B = append(p.B, [2]int64{int64(idx), int64(n)})
	}
	return p
}

// WritePartial writes the state as JSON Lines for --merge (Merger).
// Groups and runs are written sorted by key, so the same state always
// gives the same bytes.
func (s *State) WritePartial(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	keys := s.groupKeys()
	sort.Strings(keys)
	ids := s.runIDs()
	sort.Strings(ids)
	lines := int64(len(keys) + len(ids))
	enc.Encode(pHeader{Evsum: "partial", Version: partialVersion, By: ByString(s.opt.By), TZ: s.opt.TZName,
		Since: rfc3339(s.opt.Since), SinceArg: s.opt.SinceArg, Until: rfc3339(s.opt.Until), UntilArg: s.opt.UntilArg,
		Breakdown: breakdownString(s.opt.Breakdown), Lines: &lines})
	pw := &partialWriter{nkeys: len(s.keys)}
	flush := func() error {
		pw.b = append(pw.b, '}', '\n')
		buf.Write(pw.b)
		pw.b = pw.b[:0]
		if buf.Len() >= 64<<10 {
			_, err := w.Write(buf.Bytes())
			buf.Reset()
			return err
		}
		return nil
	}
	for _, k := range keys {
		pw.b = append(pw.b, '{')
		s.peekGroup(k).save(pw)
		if err := flush(); err != nil {
			return err
		}
	}
	for _, id := range ids {
		pw.b = append(pw.b, '{')
		s.peekRun(id).save(pw)
		pw.callNotes(s.notes[id])
		if err := flush(); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// partialWriter is the saver that writes a group's or a run's line of the
// partial state, member by member, but its closing brace.
type partialWriter struct {
	obj
	nkeys int // the number of key values of a group
}

func (w *partialWriter) id(name string, v *string) { w.obj.str(name, *v, true) }

func (w *partialWriter) keys(name string, g *group) {
	w.open(name, '[')
	for i, v := range g.values(w.nkeys) {
		w.next(i)
		w.b = append(w.b, v...)
	}
	w.close(']')
}

func (w *partialWriter) span(first, last string, lo, hi *int64, has *bool) {
	w.opt(first, *lo, *has)
	w.opt(last, *hi, *has)
}

// counter writes counter c, in Counter order: the counters of an object
// (tokens) as the elements of an array.
func (w *partialWriter) counter(c record.Counter, n *counts) {
	if record.Counters[c].Object == "" {
		w.int(partialName(c), n[c], record.Counters[c].Always)
		return
	}
	w.open(partialName(c), '[')
	for i := c; i < counterSpan(c); i++ {
		w.next(int(i - c))
		w.b = strconv.AppendInt(w.b, n[i], 10)
	}
	w.close(']')
}

func (w *partialWriter) count(name string, v *int64)  { w.int(name, *v, false) }
func (w *partialWriter) signed(name string, v *int64) { w.int(name, *v, false) }

// seq writes a sequence number, left out when there is none.
func (w *partialWriter) seq(name string, v *int64) { w.opt(name, *v, *v != noSeq) }

func (w *partialWriter) time(name string, v *int64, has *bool)  { w.opt(name, *v, *has) }
func (w *partialWriter) value(name string, v *int64, has *bool) { w.opt(name, *v, *has) }

func (w *partialWriter) flag(name string, v *bool) {
	if *v {
		w.obj.key(name)
		w.b = append(w.b, "true"...)
	}
}

func (w *partialWriter) str(name string, v *string) { w.obj.str(name, *v, false) }
func (w *partialWriter) key(name string, v *string) { w.obj.str(name, *v, true) }

func (w *partialWriter) tools(name string, g *group) {
	ts := append([]toolCount(nil), g.tools...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	w.object(name, names, func(i int) {
		w.b = append(w.b, '[')
		w.b = strconv.AppendInt(w.b, ts[i].calls, 10)
		w.b = append(w.b, ',')
		w.b = strconv.AppendInt(w.b, ts[i].failed, 10)
		w.b = append(w.b, ']')
	})
}

func (w *partialWriter) sketch(name string, s *sketch) {
	if p := s.partial(); p != nil {
		w.obj.key(name)
		v, _ := json.Marshal(p) // numbers only
		w.b = append(w.b, v...)
	}
}

func (w *partialWriter) runs(name string, g *group) {
	var runs []string
	g.eachRun(func(r string) { runs = append(runs, r) })
	if len(runs) == 0 {
		return
	}
	sort.Strings(runs)
	w.open(name, '[')
	for i, r := range runs {
		w.next(i)
		w.b = jsontext.AppendString(w.b, r)
	}
	w.close(']')
}

// glass writes a run's glasspane fields only when it has them: the fields
// of an empty part are all left out anyway.
func (w *partialWriter) glass(p **glassRun) *glassRun { return *p }

func (w *partialWriter) turns(name string, t *turnSeg) {
	if t.any {
		w.open(name, '{')
		t.save(w)
		w.close('}')
	}
}

func (w *partialWriter) agents(name string, m *map[string]*agentSpan) { writeMembers(w, name, *m) }
func (w *partialWriter) calls(name string, m *map[string]*call)       { writeMembers(w, name, *m) }

// writeMembers writes an object of saved values by id, sorted by id; nothing
// when there are none.
func writeMembers[T saved](w *partialWriter, name string, m map[string]T) {
	ids := slices.Sorted(maps.Keys(m))
	w.object(name, ids, func(i int) {
		w.b = append(w.b, '{')
		m[ids[i]].save(w)
		w.b = append(w.b, '}')
	})
}

// callNotes writes a run's call notes, by call id, sorted by id; nothing
// when there are none.
func (w *partialWriter) callNotes(m map[string][]callNote) {
	ids := slices.Sorted(maps.Keys(m))
	w.object("call_notes", ids, func(i int) {
		w.b = append(w.b, '[')
		for j, n := range m[ids[i]] {
			w.next(j)
			v, _ := json.Marshal(n.partial()) // strings and flags only
			w.b = append(w.b, v...)
		}
		w.b = append(w.b, ']')
	})
}

// Merger reads partial states line by line into one State.
//
// A state is its header and the lines after it, up to the next header or
// the end of its file. A state that cannot merge with the first one read
// (another grouping, zone, window or version), or that has a bad line, is
// refused as a whole: it is reported once and the rest of its lines are
// skipped, and Refused says the report must not be written, since it
// would not be the report of the states given. At the end of each file
// (EndFile) its lines are counted against its headers' line counts.
type Merger struct {
	State *State

	first   pHeader // the first state's header
	firstAt string  // where it is: FILE:LINE
	cur     *part   // the state being read
	refused int

	file   fileCount     // the file being read
	reader partialReader // reads its group and run lines
}

// part is one state being read.
type part struct {
	file string
	at   string // its header: FILE:LINE
	skip bool   // refused: its remaining lines are not read
}

// fileCount counts one file's lines against its headers.
type fileCount struct {
	name     string
	at       string // its first header
	expect   int64  // the sum of its headers' lines
	got      int64  // group and run lines read
	uncount  bool   // a version 1 header, or a state refused: no count
	anyState bool
}

// NewMerger returns a Merger; the grouping comes from the first header.
func NewMerger() *Merger { return &Merger{} }

// Refused is the number of states refused so far: when it is not 0 the
// merged state is not the states given and must not be reported.
func (m *Merger) Refused() int { return m.refused }

// File is the file being read: the one of the last line added.
func (m *Merger) File() string { return m.file.name }

// EndFile ends the file being read: when its group and run lines are not
// as many as its headers say (a line dropped, added or cut), its state
// is refused. The next line added starts a new file.
func (m *Merger) EndFile() error {
	f := m.file
	m.file = fileCount{}
	if !f.anyState || f.uncount || f.got == f.expect {
		return nil
	}
	m.refused++
	return fmt.Errorf("%s: partial state has %d group and run lines, its header says %d (a line was lost or added): the state is refused",
		f.at, f.got, f.expect)
}

// refuse refuses the state being read, whose line gave err.
func (m *Merger) refuse(err error) error {
	m.cur.skip = true
	m.file.uncount = true
	m.refused++
	return err
}

func decodeStrict(line []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("not a partial state line: %v", err)
		}
		return fmt.Errorf("bad partial state line: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// Add reads one line of a partial state. It returns an error saying what
// is wrong with a line that is not one; the state is then unchanged.
func (m *Merger) Add(line []byte) error { return m.AddFrom("", 0, line) }

// AddFrom is Add for line number n of file: the file and line name the
// states in messages, and a file's lines belong to its own headers. A
// line of another file than the last ends that one, unchecked: call
// EndFile first for its lines to be counted.
func (m *Merger) AddFrom(file string, n int, line []byte) error {
	if file != m.file.name {
		m.file = fileCount{name: file}
	}
	if err := jsonscan.Check(line); err != nil {
		if m.cur != nil && m.cur.skip && m.cur.file == file {
			return nil // a line of a refused state, reported once
		}
		return err
	}
	var kind string
	jsonscan.Members(line, func(key, _ []byte) {
		if kind == "" {
			switch {
			case jsonscan.KeyIs(key, "evsum"):
				kind = "header"
			case jsonscan.KeyIs(key, "group"):
				kind = "group"
			case jsonscan.KeyIs(key, "run"):
				kind = "run"
			}
		}
	})
	switch kind {
	case "header":
		at := fmt.Sprintf("%s:%d", file, n)
		m.cur = &part{file: file, at: at}
		if !m.file.anyState {
			m.file.anyState, m.file.at = true, at
		}
		// A state whose header is bad or does not fit is refused whole:
		// its lines would be merged under another state's settings.
		h, err := m.readHeader(line, at)
		if err != nil {
			return m.refuse(err)
		}
		if h.Lines == nil {
			m.file.uncount = true
		} else {
			m.file.expect += *h.Lines
		}
		return nil
	case "group", "run":
		switch {
		case m.cur == nil || m.cur.file != file || m.State == nil:
			m.cur = &part{file: file, skip: true}
			m.file.uncount = true
			m.refused++
			return errors.New("partial state line before its header (was it written by evsum --partial?)")
		case m.cur.skip:
			return nil // the state is refused, and reported once
		}
		m.file.got++
		var err error
		if kind == "group" {
			err = m.group(line)
		} else {
			err = m.run(line)
		}
		if err != nil {
			// One bad line and the state is not the state written: its
			// other lines are not read, nor reported.
			return m.refuse(fmt.Errorf("%v: the state of %s is refused", err, m.cur.at))
		}
		return nil
	}
	return errors.New(`not a partial state line: no "evsum", "group" or "run" (was it written by evsum --partial?)`)
}

// settings says how a state was made: the flags of its --partial.
func (h *pHeader) settings() []string {
	window := func(flag, t, arg string) string {
		switch {
		case arg != "":
			return flag + " " + arg
		case t != "":
			return flag + " " + t
		}
		return "no " + flag
	}
	breakdown := "no --breakdown"
	if h.Breakdown != "" {
		breakdown = "--breakdown " + h.Breakdown
	}
	return []string{"--by " + h.By, "--tz " + h.TZ, window("--since", h.Since, h.SinceArg), window("--until", h.Until, h.UntilArg), breakdown}
}

// readHeader reads a state's header: the first one read makes the merged
// state, each other one must have been made with the same settings.
func (m *Merger) readHeader(line []byte, at string) (pHeader, error) {
	var h pHeader
	if err := decodeStrict(line, &h); err != nil {
		return h, err
	}
	opt, err := h.options()
	if err != nil {
		return h, err
	}
	h.By = ByString(opt.By)
	if m.State != nil {
		return h, m.fits(&h)
	}
	if opt.Loc, err = window.LoadLocation(h.TZ); err != nil {
		return h, err
	}
	// The merged state may be written as a state again (--merge
	// --partial): it keeps the call notes of the states.
	opt.CallNotes = true
	m.State = New(opt)
	m.first, m.firstAt = h, at
	return h, nil
}

// options checks a header and returns the options it says its state was
// made with, but its zone.
func (h *pHeader) options() (Options, error) {
	if err := h.checkVersion(); err != nil {
		return Options{}, err
	}
	since, err := windowBound(h.Since)
	if err != nil {
		return Options{}, err
	}
	until, err := windowBound(h.Until)
	if err != nil {
		return Options{}, err
	}
	if !since.IsZero() && !until.IsZero() && !until.After(since) {
		return Options{}, errors.New("bad partial state header: until is not after since")
	}
	by, err := ParseBy(h.By)
	if err != nil {
		return Options{}, err
	}
	bd, err := ParseBreakdown(h.Breakdown)
	if err != nil || h.Breakdown == "none" {
		return Options{}, fmt.Errorf("bad partial state header: breakdown %q", h.Breakdown)
	}
	return Options{By: by, Breakdown: bd, TZName: h.TZ, Since: since, Until: until,
		WindowOn: !since.IsZero() || !until.IsZero(), SinceArg: h.SinceArg, UntilArg: h.UntilArg}, nil
}

// checkVersion says why the header is not one of a version this evsum
// reads, with what that version has, nil when it is.
func (h *pHeader) checkVersion() error {
	if h.Evsum != "partial" || h.Version != 1 && h.Version != partialVersion {
		return fmt.Errorf("partial state version %q %d, this evsum reads partial 1 and %d", h.Evsum, h.Version, partialVersion)
	}
	v1 := h.Version == 1
	switch {
	case v1 && (h.Lines != nil || h.Since != "" || h.Until != "" || h.SinceArg != "" || h.UntilArg != ""):
		return errors.New("bad partial state header: version 1 has no lines, since or until")
	case v1 && h.Breakdown != "":
		return errors.New("bad partial state header: version 1 has no breakdown")
	case !v1 && (h.Lines == nil || *h.Lines < 0):
		return errors.New(`bad partial state header: no "lines", or a negative count`)
	case !v1 && (h.SinceArg != "" && h.Since == "" || h.UntilArg != "" && h.Until == ""):
		return errors.New("bad partial state header: a duration without its time")
	}
	return nil
}

// windowBound reads a bound of the header's window: zero for none.
func windowBound(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad partial state header: window %q is not an RFC 3339 time", s)
	}
	return t, nil
}

// fits says why a state of header h cannot merge with the first state
// read, nil when it can.
func (m *Merger) fits(h *pHeader) error {
	if h.Version != m.first.Version {
		return fmt.Errorf("partial state version %d cannot merge with the state at %s, version %d (make the states again with one evsum)",
			h.Version, m.firstAt, m.first.Version)
	}
	// Only what differs is named: the two states' settings side by side.
	var mine, theirs []string
	a, b := h.settings(), m.first.settings()
	for i := range a {
		if a[i] != b[i] {
			mine, theirs = append(mine, a[i]), append(theirs, b[i])
		}
	}
	if len(mine) > 0 {
		return fmt.Errorf("partial state made with %s cannot merge with the state at %s, made with %s",
			strings.Join(mine, " "), m.firstAt, strings.Join(theirs, " "))
	}
	return nil
}

func (p *pSketch) sketch() (sketch, error) {
	var s sketch
	if p == nil {
		return s, nil
	}
	if p.N <= exactCap {
		if uint64(len(p.V)) != p.N || p.Zero != 0 || len(p.B) != 0 {
			return s, errors.New("bad partial state line: sketch values do not add up")
		}
		for _, v := range p.V {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return s, errors.New("bad partial state line: bad sketch value")
			}
			s.add(v)
		}
		if s.n > 0 && (p.Min != s.min || p.Max != s.max) {
			return s, errors.New("bad partial state line: sketch min or max disagrees with its values")
		}
		return s, nil
	}
	if len(p.V) != 0 {
		return s, errors.New("bad partial state line: sketch values past the exact cap")
	}
	sum := p.Zero
	for _, b := range p.B {
		if b[1] <= 0 || b[0] < -1<<20 || b[0] > 1<<20 {
			return s, errors.New("bad partial state line: bad sketch bucket")
		}
		sum += uint64(b[1])
	}
	if sum != p.N || p.N == 0 || p.Min > p.Max || p.Min < 0 {
		return s, errors.New("bad partial state line: sketch counts do not add up")
	}
	s.n, s.zero, s.min, s.max = p.N, p.Zero, p.Min, p.Max
	for _, b := range p.B {
		s.addBucket(int32(b[0]), uint64(b[1]))
	}
	return s, nil
}

func unknown(name string) error {
	return fmt.Errorf("bad partial state line: unknown field %q", name)
}

// partialReader is the saver that reads a group's or a run's line of the
// partial state: each field takes the members of its name, wherever they
// are in the line. A line is refused for its first member (in the line)
// that does not decode or that no field takes; failing that, for its
// first fault, in the order --merge has always checked them: the group's
// keys, the time spans, the counts, then the members that are objects.
type partialReader struct {
	members []member
	faults  [numFaults]error // the first fault of each kind
	state   *State
	glassIn glassRun // what the line says of the run's glasspane part
}

// A member is one member of the line read, and what reading it gave.
type member struct {
	name  string
	value []byte
	taken bool  // a field took it
	err   error // it did not decode
}

// The kinds of faults a line read can have, in the order they are named.
const (
	faultKeys = iota
	faultSpan
	faultCount
	faultObject
	numFaults
)

// start makes the reader read line; the state's settings say how many
// keys a group has.
func (rd *partialReader) start(line []byte, s *State) {
	*rd = partialReader{members: rd.members[:0], state: s}
	jsonscan.Members(line, func(key, v []byte) {
		name := key
		if bytes.IndexByte(key, '\\') >= 0 {
			// any JSON tool may write the names escaped
			if u, ok := jsonscan.Unquote(nil, append(append([]byte{'"'}, key...), '"')); ok {
				name = u
			}
		}
		rd.members = append(rd.members, member{name: string(name), value: v})
	})
}

// fault notes a fault of kind, unless one came before.
func (rd *partialReader) fault(kind int, err error) {
	if rd.faults[kind] == nil {
		rd.faults[kind] = err
	}
}

// err is why the line is refused, nil when it is not.
func (rd *partialReader) err() error {
	for _, m := range rd.members {
		switch {
		case m.err != nil:
			return m.err
		case !m.taken:
			return unknown(m.name)
		}
	}
	for _, err := range rd.faults {
		if err != nil {
			return err
		}
	}
	return nil
}

// each calls fn with the value of each member called name, in the order of
// the line, and notes the member's first error; false when there is none.
func (rd *partialReader) each(name string, fn func(v []byte) error) bool {
	found := false
	for i := range rd.members {
		m := &rd.members[i]
		if m.name != name {
			continue
		}
		found, m.taken = true, true
		if err := fn(m.value); err != nil && m.err == nil {
			m.err = err
		}
	}
	return found
}

// decode decodes each member called name into dst (the last one stays).
func (rd *partialReader) decode(name string, dst any) {
	rd.each(name, func(v []byte) error { return decodeStrict(v, dst) })
}

// optional decodes the number called name: nil when there is none (or
// null).
func (rd *partialReader) optional(name string) *int64 {
	var p *int64
	rd.decode(name, &p)
	return p
}

func (rd *partialReader) id(name string, v *string) { rd.decode(name, v) }

func (rd *partialReader) keys(name string, g *group) {
	var keys []json.RawMessage
	rd.decode(name, &keys)
	s := rd.state
	if len(keys) != len(s.keys) {
		by := ByString(s.opt.By)
		if b := breakdownString(s.opt.Breakdown); b != "" {
			by += " --breakdown " + b
		}
		rd.fault(faultKeys, fmt.Errorf("bad partial state line: group has %d keys, --by %s has %d", len(keys), by, len(s.keys)))
	}
	var kb []byte
	for i, v := range keys {
		if i > 0 {
			kb = append(kb, keySep)
		}
		kb = appendCanon(kb, v)
	}
	g.key = string(kb)
}

func (rd *partialReader) span(first, last string, lo, hi *int64, has *bool) {
	a, b := rd.optional(first), rd.optional(last)
	switch {
	case (a == nil) != (b == nil):
		rd.fault(faultSpan, fmt.Errorf("bad partial state line: %s without %s", first, last))
	case a != nil && *a > *b:
		rd.fault(faultSpan, fmt.Errorf("bad partial state line: %s is after %s", first, last))
	case a != nil:
		*lo, *hi, *has = *a, *b, true
	}
}

func (rd *partialReader) counter(c record.Counter, n *counts) {
	name := partialName(c)
	if record.Counters[c].Object == "" {
		rd.decode(name, &n[c])
	} else {
		// the counters of an object are an array, in Counter order
		a := make([]int64, counterSpan(c)-c)
		rd.each(name, func(v []byte) error {
			err := decodeStrict(v, &a)
			copy(n[c:counterSpan(c)], a)
			return err
		})
	}
	if slices.Contains(countCounters, c) && n[c] < 0 {
		rd.fault(faultCount, fmt.Errorf("bad partial state line: %s is negative", c.Path()))
	}
}

// countCounters are the counters that count events, never negative
// (tokens and cost are sums of the values the events give).
var countCounters = []record.Counter{record.Events, record.ModelCalls, record.ModelErrors, record.UnpricedCalls, record.ToolCalls, record.ToolFailures, record.Errors, record.Guardrails, record.Kills}

func (rd *partialReader) count(name string, v *int64) {
	rd.decode(name, v)
	if *v < 0 {
		rd.fault(faultCount, fmt.Errorf("bad partial state line: %s is negative", name))
	}
}

func (rd *partialReader) signed(name string, v *int64) { rd.decode(name, v) }

func (rd *partialReader) seq(name string, v *int64) {
	if p := rd.optional(name); p != nil {
		*v = *p
	}
}

func (rd *partialReader) time(name string, v *int64, has *bool) { rd.value(name, v, has) }

func (rd *partialReader) value(name string, v *int64, has *bool) {
	if p := rd.optional(name); p != nil {
		*v, *has = *p, true
	}
}

func (rd *partialReader) flag(name string, v *bool)  { rd.decode(name, v) }
func (rd *partialReader) str(name string, v *string) { rd.decode(name, v) }
func (rd *partialReader) key(name string, v *string) { rd.decode(name, v) }

// tools reads the group's tools, which must add up to its tool calls and
// failures (read before them: the partial state writes them after).
func (rd *partialReader) tools(name string, g *group) {
	var tools map[string][2]int64
	rd.decode(name, &tools)
	var calls, failed int64
	for _, c := range tools {
		if c[0] < 0 || c[1] < 0 {
			rd.fault(faultObject, errors.New("bad partial state line: a tool's count is negative"))
			return
		}
		calls, failed = calls+c[0], failed+c[1]
	}
	if calls != g.n[record.ToolCalls] || failed != g.n[record.ToolFailures] {
		rd.fault(faultObject, errors.New("bad partial state line: the tools' calls or failures do not add up to tool_calls or tool_failures"))
		return
	}
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		c := tools[name]
		g.tools = append(g.tools, toolCount{name, c[0], c[1]})
	}
}

func (rd *partialReader) sketch(name string, s *sketch) {
	var p *pSketch
	rd.decode(name, &p)
	var err error
	if *s, err = p.sketch(); err != nil {
		rd.fault(faultObject, err)
	}
}

func (rd *partialReader) runs(name string, g *group) {
	var runs []string
	rd.decode(name, &runs)
	for _, r := range runs {
		g.touch(r)
	}
}

// glass reads the run's glasspane fields aside: the run gets them (see
// Merger.run) only when they say something.
func (rd *partialReader) glass(p **glassRun) *glassRun { return &rd.glassIn }

func (rd *partialReader) turns(name string, t *turnSeg) {
	var p *pTurns
	rd.decode(name, &p)
	if p == nil {
		return
	}
	// a start time is kept for an open turn only, an end's for an orphan
	*t = turnSeg{any: p.Any, open: p.Open, orphan: p.Orphan, orphanGrp: p.Group}
	if p.OpenUS != nil && p.Open {
		t.openTS, t.openHasTS = *p.OpenUS, true
	}
	if p.OrphanUS != nil && p.Orphan {
		t.orphanTS, t.orphanHasT = *p.OrphanUS, true
	}
}

func (rd *partialReader) agents(name string, m *map[string]*agentSpan) {
	var agents map[string]*pAgent
	rd.decode(name, &agents)
	for id, a := range agents {
		sp, ok := a.span()
		if !ok {
			rd.fault(faultObject, errors.New("bad partial state line: impossible agent"))
			return
		}
		if *m == nil {
			*m = map[string]*agentSpan{}
		}
		(*m)[id] = sp
	}
}

func (rd *partialReader) calls(name string, m *map[string]*call) {
	var calls map[string]*pCall
	rd.decode(name, &calls)
	for id, c := range calls {
		if c == nil || !c.Started && !c.Ended || c.Deferred && !c.Started || c.Started && !c.Deferred && c.Ended {
			rd.fault(faultObject, errors.New("bad partial state line: impossible pending tool call"))
			return
		}
		if *m == nil {
			*m = map[string]*call{}
		}
		(*m)[id] = c.call()
	}
}

// callNotes reads a run's call notes: each id's events, at least two (a
// state notes an id's events from its second on), each one an event
// gives.
func (rd *partialReader) callNotes() map[string][]callNote {
	var ps map[string][]pNote
	rd.decode("call_notes", &ps)
	if len(ps) == 0 {
		return nil
	}
	notes := make(map[string][]callNote, len(ps))
	for id, p := range ps {
		ns := make([]callNote, len(p))
		for i := range p {
			var ok bool
			if ns[i], ok = p[i].note(); !ok {
				rd.fault(faultObject, errors.New("bad partial state line: impossible tool call event"))
				return nil
			}
		}
		if len(ns) < 2 {
			rd.fault(faultObject, errors.New("bad partial state line: a tool call's events are fewer than two"))
			return nil
		}
		notes[id] = ns
	}
	return notes
}

// call is the pending call a partial state describes.
func (c *pCall) call() *call {
	return &call{name: c.Name, group: c.Group, started: c.Started, deferred: c.Deferred, ended: c.Ended, failed: c.Failed, endGroup: c.EndGroup}
}

// span is the agent a partial state describes; false when no run could
// have it (an end before any agent_finished, a start without a spawn).
func (a *pAgent) span() (*agentSpan, bool) {
	if a == nil || a.Ends < 0 || !a.Spawned && a.StartUS != nil ||
		a.Ends == 0 && (a.EndSeq != nil || a.Outcome != "" || a.EndUS != nil) || !a.Spawned && a.Ends == 0 {
		return nil, false
	}
	sp := &agentSpan{spawned: a.Spawned, ends: a.Ends, endSeq: noSeq, outcome: a.Outcome}
	if a.StartUS != nil {
		sp.startTS, sp.startHasTS = *a.StartUS, true
	}
	if a.EndSeq != nil {
		sp.endSeq = *a.EndSeq
	}
	if a.EndUS != nil {
		sp.endTS, sp.endHasTS = *a.EndUS, true
	}
	return sp, true
}

// group reads a group line and merges the group into the state.
func (m *Merger) group(line []byte) error {
	rd := &m.reader
	rd.start(line, m.State)
	g := &group{}
	g.save(rd)
	if err := rd.err(); err != nil {
		return err
	}
	s := m.State
	o := &State{opt: s.opt, groups: map[string]*group{g.key: g}}
	for c := range g.n {
		sum := s.sums[c]
		if !o.sums[c].add(g.n[c]) || !sum.merge(o.sums[c]) {
			return fmt.Errorf("bad partial state line: %s: the sum would be out of range", record.Counter(c).Path())
		}
	}
	s.Merge(o)
	return nil
}

// run reads a run line and merges the run into the state.
func (m *Merger) run(line []byte) error {
	rd := &m.reader
	rd.start(line, m.State)
	r := newRun("")
	r.save(rd)
	notes := rd.callNotes()
	for id, ns := range notes {
		// the notes replayed alone leave the entry the line has
		c := pairNotes(nil, ns, func(string, string, bool) {})
		if e := rd.glassIn.calls[id]; c == nil && e != nil || c != nil && (e == nil || *c != *e) {
			rd.fault(faultObject, errors.New("bad partial state line: a tool call's events do not leave its pending call"))
		}
	}
	if err := rd.err(); err != nil {
		return err
	}
	if !rd.glassIn.empty() {
		gl := rd.glassIn
		r.glass = &gl
	}
	s := m.State
	o := &State{opt: s.opt, groups: map[string]*group{}, runs: map[string]*run{r.id: r}}
	if notes != nil {
		o.notes = callNotes{r.id: notes}
	}
	if wall := s.wall; r.hasWall && (!o.wall.add(r.wallUS) || !wall.merge(o.wall)) {
		return errors.New("bad partial state line: the sum of wall times would be out of range")
	}
	s.Merge(o)
	return nil
}
