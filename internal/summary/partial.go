package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// PartialVersion is the version of the partial-state format. The format
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
const PartialVersion = 2

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
	V    []float64  `json:"v,omitempty"` // the values, up to ExactCap
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

// seq writes a sequence number, left out when there is none.
func (o *obj) seq(name string, v int64) { o.opt(name, v, v != noSeq) }

func (o *obj) flag(name string, v bool) {
	if v {
		o.key(name)
		o.b = append(o.b, "true"...)
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

// counters writes the counters of a group from c up to the next special
// member, in Counter order: a counter of an object (tokens) as an array
// element.
func (o *obj) counter(n *counts, c Counter) {
	if Counters[c].Object == "" {
		o.int(c.partialName(), n[c], Counters[c].Always)
		return
	}
	o.open(c.partialName(), '[')
	for i := c; i < c.span(); i++ {
		if i > c {
			o.b = append(o.b, ',')
		}
		o.b = strconv.AppendInt(o.b, n[i], 10)
	}
	o.close(']')
}

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

func (s *Sketch) partial() *pSketch {
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

// WritePartial writes the state as JSON Lines for ReadPartial and --merge.
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
	enc.Encode(pHeader{Evsum: "partial", Version: PartialVersion, By: ByString(s.opt.By), TZ: s.opt.TZName,
		Since: rfc3339(s.opt.Since), SinceArg: s.opt.SinceArg, Until: rfc3339(s.opt.Until), UntilArg: s.opt.UntilArg,
		Breakdown: breakdownString(s.opt.Breakdown), Lines: &lines})
	var o obj
	flush := func() error {
		o.b = append(o.b, '}', '\n')
		buf.Write(o.b)
		o.b = o.b[:0]
		if buf.Len() >= 64<<10 {
			_, err := w.Write(buf.Bytes())
			buf.Reset()
			return err
		}
		return nil
	}
	for _, k := range keys {
		s.peekGroup(k).appendPartial(&o, len(s.keys))
		if err := flush(); err != nil {
			return err
		}
	}
	for _, id := range ids {
		s.peekRun(id).appendPartial(&o)
		if err := flush(); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// appendPartial writes the group's line but its closing brace.
func (g *Group) appendPartial(o *obj, nkeys int) {
	o.b = append(o.b, '{')
	o.open("group", '[')
	for i, v := range g.values(nkeys) {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = append(o.b, v...)
	}
	o.close(']')
	for c := Counter(0); c < NumCounters; c = c.span() {
		o.counter(&g.n, c)
		switch c {
		case Events:
			o.opt("first_us", g.firstTS, g.hasTS)
			o.opt("last_us", g.lastTS, g.hasTS)
		case ToolFailures:
			if len(g.tools) > 0 {
				ts := append([]toolCount(nil), g.tools...)
				sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
				o.open("tools", '{')
				for i, t := range ts {
					if i > 0 {
						o.b = append(o.b, ',')
					}
					o.b = jsontext.AppendString(o.b, t.name)
					o.b = append(o.b, ':', '[')
					o.b = strconv.AppendInt(o.b, t.calls, 10)
					o.b = append(o.b, ',')
					o.b = strconv.AppendInt(o.b, t.failed, 10)
					o.b = append(o.b, ']')
				}
				o.close('}')
			}
		}
	}
	if p := g.latency.partial(); p != nil {
		o.key("latency_ms")
		v, _ := json.Marshal(p) // numbers only
		o.b = append(o.b, v...)
	}
	var runs []string
	g.eachRun(func(r string) { runs = append(runs, r) })
	if len(runs) > 0 {
		sort.Strings(runs)
		o.open("runs", '[')
		for i, r := range runs {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = jsontext.AppendString(o.b, r)
		}
		o.close(']')
	}
}

// appendPartial writes the run's line but its closing brace.
func (r *Run) appendPartial(o *obj) {
	o.b = append(o.b, '{')
	o.str("run", r.id, true)
	o.opt("min_us", r.minTS, r.hasTS)
	o.opt("max_us", r.maxTS, r.hasTS)
	o.flag("run_log", r.runLog)
	gl := r.gr()
	for i, name := range runCounters {
		o.int(name, r.n[i], false)
		switch runCounter(i) {
		case rFinished:
			o.seq("finish_seq", r.finishSeq)
			o.str("outcome", r.outcome, false)
			o.opt("wall_us", r.wallUS, r.hasWall)
		case rEndMarks:
			o.seq("end_seq", r.endSeq)
		case rToolsOpen:
			o.flag("error", gl.glassError)
			o.opt("agent_end_us", gl.agentEndTS, gl.agentEnd)
		}
	}
	if t := gl.turns; t.any {
		o.open("turns", '{')
		o.flag("any", true)
		o.flag("open", t.open)
		o.opt("open_us", t.openTS, t.open && t.openHasTS)
		o.flag("orphan", t.orphan)
		o.opt("orphan_us", t.orphanTS, t.orphan && t.orphanHasT)
		o.str("orphan_group", t.orphanGrp, false)
		o.close('}')
	}
	if len(r.agents) > 0 {
		ids := make([]string, 0, len(r.agents))
		for id := range r.agents {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		o.open("agents", '{')
		for i, id := range ids {
			a := r.agents[id]
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = jsontext.AppendString(o.b, id)
			o.b = append(o.b, ':', '{')
			o.flag("spawned", a.spawned)
			o.opt("start_us", a.startTS, a.spawned && a.startHasTS)
			o.int("ends", a.ends, false)
			if a.ends > 0 {
				o.seq("end_seq", a.endSeq)
				o.str("outcome", a.outcome, false)
				o.opt("end_us", a.endTS, a.endHasTS)
			}
			o.close('}')
		}
		o.close('}')
	}
	if len(gl.calls) > 0 {
		ids := make([]string, 0, len(gl.calls))
		for id := range gl.calls {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		o.open("calls", '{')
		for i, id := range ids {
			c := gl.calls[id]
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = jsontext.AppendString(o.b, id)
			o.b = append(o.b, ':', '{')
			o.str("name", c.name, false)
			o.str("group", c.group, true)
			o.flag("started", c.started)
			o.flag("deferred", c.deferred)
			o.flag("ended", c.ended)
			o.flag("failed", c.failed)
			o.str("end_group", c.endGroup, false)
			o.close('}')
		}
		o.close('}')
	}
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

	file fileCount // the file being read
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
		h, err := m.header1(line, at)
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

func (m *Merger) header1(line []byte, at string) (pHeader, error) {
	var h pHeader
	if err := decodeStrict(line, &h); err != nil {
		return h, err
	}
	if h.Evsum != "partial" || h.Version != 1 && h.Version != PartialVersion {
		return h, fmt.Errorf("partial state version %q %d, this evsum reads partial 1 and %d", h.Evsum, h.Version, PartialVersion)
	}
	v1 := h.Version == 1
	switch {
	case v1 && (h.Lines != nil || h.Since != "" || h.Until != "" || h.SinceArg != "" || h.UntilArg != ""):
		return h, errors.New("bad partial state header: version 1 has no lines, since or until")
	case v1 && h.Breakdown != "":
		return h, errors.New("bad partial state header: version 1 has no breakdown")
	case !v1 && (h.Lines == nil || *h.Lines < 0):
		return h, errors.New(`bad partial state header: no "lines", or a negative count`)
	case !v1 && (h.SinceArg != "" && h.Since == "" || h.UntilArg != "" && h.Until == ""):
		return h, errors.New("bad partial state header: a duration without its time")
	}
	var since, until time.Time
	for _, w := range []struct {
		s string
		t *time.Time
	}{{h.Since, &since}, {h.Until, &until}} {
		if w.s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, w.s)
		if err != nil {
			return h, fmt.Errorf("bad partial state header: window %q is not an RFC 3339 time", w.s)
		}
		*w.t = t
	}
	if !since.IsZero() && !until.IsZero() && !until.After(since) {
		return h, errors.New("bad partial state header: until is not after since")
	}
	by, err := ParseBy(h.By)
	if err != nil {
		return h, err
	}
	h.By = ByString(by)
	bd, err := ParseBreakdown(h.Breakdown)
	if err != nil || h.Breakdown == "none" {
		return h, fmt.Errorf("bad partial state header: breakdown %q", h.Breakdown)
	}
	if m.State == nil {
		loc, err := LoadLocation(h.TZ)
		if err != nil {
			return h, err
		}
		m.State = New(Options{By: by, Breakdown: bd, Loc: loc, TZName: h.TZ, Since: since, Until: until,
			WindowOn: !since.IsZero() || !until.IsZero(), SinceArg: h.SinceArg, UntilArg: h.UntilArg})
		m.first, m.firstAt = h, at
		return h, nil
	}
	if h.Version != m.first.Version {
		return h, fmt.Errorf("partial state version %d cannot merge with the state at %s, version %d (make the states again with one evsum)",
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
		return h, fmt.Errorf("partial state made with %s cannot merge with the state at %s, made with %s",
			strings.Join(mine, " "), m.firstAt, strings.Join(theirs, " "))
	}
	return h, nil
}

func (p *pSketch) sketch() (Sketch, error) {
	var s Sketch
	if p == nil {
		return s, nil
	}
	if p.N <= ExactCap {
		if uint64(len(p.V)) != p.N || p.Zero != 0 || len(p.B) != 0 {
			return s, errors.New("bad partial state line: sketch values do not add up")
		}
		for _, v := range p.V {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return s, errors.New("bad partial state line: bad sketch value")
			}
			s.Add(v)
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

// members calls fn with each member of a partial state line, its name
// unescaped, and stops at fn's first error.
func members(line []byte, fn func(name string, v []byte) error) error {
	var err error
	jsonscan.Members(line, func(key, v []byte) {
		if err != nil {
			return
		}
		name := key
		if bytes.IndexByte(key, '\\') >= 0 {
			if u, ok := jsonscan.Unquote(nil, append(append([]byte{'"'}, key...), '"')); ok {
				name = u
			}
		}
		err = fn(string(name), v)
	})
	return err
}

// value decodes one member's value, refusing unknown members of objects.
func value(v []byte, dst any) error {
	return decodeStrict(v, dst)
}

func unknown(name string) error {
	return fmt.Errorf("bad partial state line: unknown field %q", name)
}

func (m *Merger) group(line []byte) error {
	g := &Group{}
	var (
		keys        []json.RawMessage
		first, last *int64
		tools       map[string][2]int64
		latency     *pSketch
		runs        []string
	)
	err := members(line, func(name string, v []byte) error {
		if c, ok := counterByPartial[name]; ok {
			if Counters[c].Object == "" {
				return value(v, &g.n[c])
			}
			a := make([]int64, c.span()-c)
			if err := value(v, &a); err != nil {
				return err
			}
			copy(g.n[c:c.span()], a)
			return nil
		}
		switch name {
		case "group":
			return value(v, &keys)
		case "first_us":
			return value(v, &first)
		case "last_us":
			return value(v, &last)
		case "tools":
			return value(v, &tools)
		case "latency_ms":
			return value(v, &latency)
		case "runs":
			return value(v, &runs)
		}
		return unknown(name)
	})
	if err != nil {
		return err
	}
	s := m.State
	if len(keys) != len(s.keys) {
		by := ByString(s.opt.By)
		if b := breakdownString(s.opt.Breakdown); b != "" {
			by += " --breakdown " + b
		}
		return fmt.Errorf("bad partial state line: group has %d keys, --by %s has %d", len(keys), by, len(s.keys))
	}
	var kb []byte
	for i, v := range keys {
		if i > 0 {
			kb = append(kb, keySep)
		}
		kb = appendCanon(kb, v)
	}
	g.key = string(kb)
	if (first == nil) != (last == nil) {
		return errors.New("bad partial state line: first_us without last_us")
	}
	if first != nil && *first > *last {
		return errors.New("bad partial state line: first_us is after last_us")
	}
	for _, c := range countCounters {
		if g.n[c] < 0 {
			return fmt.Errorf("bad partial state line: %s is negative", c.Column())
		}
	}
	var calls, failed int64
	for _, c := range tools {
		if c[0] < 0 || c[1] < 0 {
			return errors.New("bad partial state line: a tool's count is negative")
		}
		calls, failed = calls+c[0], failed+c[1]
	}
	if calls != g.n[ToolCalls] || failed != g.n[ToolFailures] {
		return errors.New("bad partial state line: the tools' calls or failures do not add up to tool_calls or tool_failures")
	}
	if first != nil {
		g.firstTS, g.lastTS, g.hasTS = *first, *last, true
	}
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := tools[name]
		g.tools = append(g.tools, toolCount{name, c[0], c[1]})
	}
	if g.latency, err = latency.sketch(); err != nil {
		return err
	}
	for _, r := range runs {
		g.touch(r)
	}
	o := &State{opt: s.opt, groups: map[string]*Group{g.key: g}}
	for c := range g.n {
		sum := s.sums[c]
		if !o.sums[c].add(g.n[c]) || !sum.merge(o.sums[c]) {
			return fmt.Errorf("bad partial state line: %s: the sum would be out of range", Counter(c).Column())
		}
	}
	s.Merge(o)
	return nil
}

// countCounters are the counters that count events, never negative
// (tokens and cost are sums of the values the events give).
var countCounters = []Counter{Events, ModelCalls, ModelErrors, ToolCalls, ToolFailures, Errors, Guardrails, Kills}

// runCounterByName finds a run counter by its partial-state member.
var runCounterByName = func() map[string]runCounter {
	m := map[string]runCounter{}
	for i, name := range runCounters {
		m[name] = runCounter(i)
	}
	return m
}()

func (m *Merger) run(line []byte) error {
	r := newRun("")
	var (
		id                              string
		minTS, maxTS, finishSeq, wallUS *int64
		endSeq, agentEnd                *int64
		glassError                      bool
		turns                           *pTurns
		calls                           map[string]*pCall
		agents                          map[string]*pAgent
	)
	err := members(line, func(name string, v []byte) error {
		if c, ok := runCounterByName[name]; ok {
			return value(v, &r.n[c])
		}
		switch name {
		case "run":
			return value(v, &id)
		case "min_us":
			return value(v, &minTS)
		case "max_us":
			return value(v, &maxTS)
		case "run_log":
			return value(v, &r.runLog)
		case "finish_seq":
			return value(v, &finishSeq)
		case "outcome":
			return value(v, &r.outcome)
		case "wall_us":
			return value(v, &wallUS)
		case "end_seq":
			return value(v, &endSeq)
		case "error":
			return value(v, &glassError)
		case "agent_end_us":
			return value(v, &agentEnd)
		case "turns":
			return value(v, &turns)
		case "calls":
			return value(v, &calls)
		case "agents":
			return value(v, &agents)
		}
		return unknown(name)
	})
	if err != nil {
		return err
	}
	r.id = id
	if (minTS == nil) != (maxTS == nil) {
		return errors.New("bad partial state line: min_us without max_us")
	}
	if minTS != nil && *minTS > *maxTS {
		return errors.New("bad partial state line: min_us is after max_us")
	}
	for i, name := range runCounters {
		// tools_open is tool_call minus tool_result: a part may end a
		// call the part before it began
		if runCounter(i) != rToolsOpen && r.n[i] < 0 {
			return fmt.Errorf("bad partial state line: %s is negative", name)
		}
	}
	if minTS != nil {
		r.minTS, r.maxTS, r.hasTS = *minTS, *maxTS, true
	}
	if finishSeq != nil {
		r.finishSeq = *finishSeq
	}
	if wallUS != nil {
		r.wallUS, r.hasWall = *wallUS, true
	}
	if endSeq != nil {
		r.endSeq = *endSeq
	}
	if glassError || agentEnd != nil || turns != nil || len(calls) > 0 {
		r.gw().glassError = glassError
	}
	if agentEnd != nil {
		r.glass.agentEnd, r.glass.agentEndTS = true, *agentEnd
	}
	if t := turns; t != nil {
		r.glass.turns = turnSeg{any: t.Any, open: t.Open, orphan: t.Orphan, orphanGrp: t.Group}
		if t.OpenUS != nil {
			r.glass.turns.openTS, r.glass.turns.openHasTS = *t.OpenUS, true
		}
		if t.OrphanUS != nil {
			r.glass.turns.orphanTS, r.glass.turns.orphanHasT = *t.OrphanUS, true
		}
	}
	for aid, a := range agents {
		if a == nil || a.Ends < 0 || !a.Spawned && a.StartUS != nil ||
			a.Ends == 0 && (a.EndSeq != nil || a.Outcome != "" || a.EndUS != nil) || !a.Spawned && a.Ends == 0 {
			return errors.New("bad partial state line: impossible agent")
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
		if r.agents == nil {
			r.agents = map[string]*agentSpan{}
		}
		r.agents[aid] = sp
	}
	for cid, c := range calls {
		if c == nil || !c.Started && !c.Ended || c.Deferred && !c.Started || c.Started && !c.Deferred && c.Ended {
			return errors.New("bad partial state line: impossible pending tool call")
		}
		if r.glass.calls == nil {
			r.glass.calls = map[string]*call{}
		}
		r.glass.calls[cid] = &call{name: c.Name, group: c.Group, started: c.Started, deferred: c.Deferred, ended: c.Ended, failed: c.Failed, endGroup: c.EndGroup}
	}
	s := m.State
	o := &State{opt: s.opt, groups: map[string]*Group{}, runs: map[string]*Run{r.id: r}}
	if wall := s.wall; r.hasWall && (!o.wall.add(r.wallUS) || !wall.merge(o.wall)) {
		return errors.New("bad partial state line: the sum of wall times would be out of range")
	}
	s.Merge(o)
	return nil
}
