package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// PartialVersion is the version of the partial-state format. The format
// is JSON Lines: a header line, then one line per group and one per run.
// Every line is self-contained, so partial files can be concatenated,
// shuffled or sorted (Hadoop) before --merge reads them, as long as each
// file's header comes before its other lines (sorting keeps it first:
// `{"evsum"` sorts before `{"group"` and `{"run"`).
const PartialVersion = 1

type pHeader struct {
	Evsum   string `json:"evsum"` // always "partial"
	Version int    `json:"version"`
	By      string `json:"by"`
	TZ      string `json:"tz"`
}

type pSketch struct {
	N    uint64     `json:"n"`
	Zero uint64     `json:"zero,omitempty"`
	Min  float64    `json:"min"`
	Max  float64    `json:"max"`
	V    []float64  `json:"v,omitempty"` // the values, up to ExactCap
	B    [][2]int64 `json:"b,omitempty"` // [bucket index, count]
}

type pGroup struct {
	Group      []json.RawMessage   `json:"group"`
	Events     int64               `json:"events"`
	FirstTS    *int64              `json:"first_us,omitempty"`
	LastTS     *int64              `json:"last_us,omitempty"`
	ModelCalls int64               `json:"model_calls,omitempty"`
	ModelErr   int64               `json:"model_errors,omitempty"`
	Tokens     [nTok]int64         `json:"tokens"`
	CostNano   int64               `json:"cost_nano_usd,omitempty"`
	ToolCalls  int64               `json:"tool_calls,omitempty"`
	ToolFail   int64               `json:"tool_failures,omitempty"`
	Tools      map[string][2]int64 `json:"tools,omitempty"`
	Errors     int64               `json:"errors,omitempty"`
	Guardrails int64               `json:"guardrails,omitempty"`
	Kills      int64               `json:"kills,omitempty"`
	Latency    *pSketch            `json:"latency_ms,omitempty"`
	Runs       []string            `json:"runs,omitempty"`
}

type pTurns struct {
	Any      bool   `json:"any,omitempty"`
	Open     bool   `json:"open,omitempty"`
	OpenUS   *int64 `json:"open_us,omitempty"`
	Orphan   bool   `json:"orphan,omitempty"`
	OrphanUS *int64 `json:"orphan_us,omitempty"`
	Group    string `json:"orphan_group,omitempty"`
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

type pRun struct {
	Run        string            `json:"run"`
	MinTS      *int64            `json:"min_us,omitempty"`
	MaxTS      *int64            `json:"max_us,omitempty"`
	RunLog     bool              `json:"run_log,omitempty"`
	Finished   int64             `json:"finished,omitempty"`
	FinishSeq  *int64            `json:"finish_seq,omitempty"`
	Outcome    string            `json:"outcome,omitempty"`
	WallUS     *int64            `json:"wall_us,omitempty"`
	EndMarks   int64             `json:"end_marks,omitempty"`
	EndSeq     *int64            `json:"end_seq,omitempty"`
	ToolsOpen  int64             `json:"tools_open,omitempty"`
	GlassError bool              `json:"error,omitempty"`
	AgentEnd   *int64            `json:"agent_end_us,omitempty"`
	TurnStarts int64             `json:"turn_starts,omitempty"`
	TurnEnds   int64             `json:"turn_ends,omitempty"`
	Turns      *pTurns           `json:"turns,omitempty"`
	Calls      map[string]*pCall `json:"calls,omitempty"`
}

func ptr(v int64, ok bool) *int64 {
	if !ok {
		return nil
	}
	return &v
}

func seqPtr(v int64) *int64 {
	if v == noSeq {
		return nil
	}
	return &v
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
	enc.Encode(pHeader{Evsum: "partial", Version: PartialVersion, By: ByString(s.opt.By), TZ: s.opt.TZName})
	keys := s.groupKeys()
	sort.Strings(keys)
	for _, k := range keys {
		g := s.peekGroup(k)
		p := pGroup{Group: []json.RawMessage{}, Events: g.events, FirstTS: ptr(g.firstTS, g.hasTS), LastTS: ptr(g.lastTS, g.hasTS),
			ModelCalls: g.modelCalls, ModelErr: g.modelErr, Tokens: g.tokens, CostNano: g.costNano,
			ToolCalls: g.toolCalls, ToolFail: g.toolFail, Errors: g.errors, Guardrails: g.guardrails, Kills: g.kills,
			Latency: g.latency.partial()}
		for _, v := range g.values(len(s.opt.By)) {
			p.Group = append(p.Group, json.RawMessage(v))
		}
		for _, t := range g.tools {
			if p.Tools == nil {
				p.Tools = map[string][2]int64{}
			}
			p.Tools[t.name] = [2]int64{t.calls, t.failed}
		}
		g.eachRun(func(r string) { p.Runs = append(p.Runs, r) })
		sort.Strings(p.Runs)
		if err := encodeLine(w, &buf, enc, p); err != nil {
			return err
		}
	}
	ids := s.runIDs()
	sort.Strings(ids)
	for _, id := range ids {
		r := s.peekRun(id)
		p := pRun{Run: id, MinTS: ptr(r.minTS, r.hasTS), MaxTS: ptr(r.maxTS, r.hasTS), RunLog: r.saw13,
			Finished: r.finished, FinishSeq: seqPtr(r.finishSeq), Outcome: r.outcome, WallUS: ptr(r.wallUS, r.hasWall),
			EndMarks: r.endMarks, EndSeq: seqPtr(r.endSeq), ToolsOpen: r.toolsOpen, GlassError: r.gr().glassError,
			AgentEnd: ptr(r.gr().agentEndTS, r.gr().agentEnd), TurnStarts: r.gr().turnStarts, TurnEnds: r.gr().turnEnds}
		if t := r.gr().turns; t.any {
			p.Turns = &pTurns{Any: true, Open: t.open, OpenUS: ptr(t.openTS, t.open && t.openHasTS),
				Orphan: t.orphan, OrphanUS: ptr(t.orphanTS, t.orphan && t.orphanHasT), Group: t.orphanGrp}
		}
		for cid, c := range r.gr().calls {
			if p.Calls == nil {
				p.Calls = map[string]*pCall{}
			}
			p.Calls[cid] = &pCall{Name: c.name, Group: c.group, Started: c.started, Deferred: c.deferred, Ended: c.ended, Failed: c.failed, EndGroup: c.endGroup}
		}
		if err := encodeLine(w, &buf, enc, p); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func encodeLine(w io.Writer, buf *bytes.Buffer, enc *json.Encoder, v any) error {
	if err := enc.Encode(v); err != nil {
		return err
	}
	if buf.Len() >= 64<<10 {
		_, err := w.Write(buf.Bytes())
		buf.Reset()
		return err
	}
	return nil
}

// Merger reads partial states line by line into one State.
type Merger struct {
	State  *State
	header bool
}

// NewMerger returns a Merger; the grouping comes from the first header.
func NewMerger() *Merger { return &Merger{} }

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
func (m *Merger) Add(line []byte) error {
	if err := jsonscan.Check(line); err != nil {
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
		return m.header1(line)
	case "group", "run":
		if m.State == nil {
			return errors.New("partial state line before its header (was it written by evsum --partial?)")
		}
		if kind == "group" {
			return m.group(line)
		}
		return m.run(line)
	}
	return errors.New(`not a partial state line: no "evsum", "group" or "run" (was it written by evsum --partial?)`)
}

func (m *Merger) header1(line []byte) error {
	var h pHeader
	if err := decodeStrict(line, &h); err != nil {
		return err
	}
	if h.Evsum != "partial" || h.Version != PartialVersion {
		return fmt.Errorf("partial state version %q %d, this evsum reads partial %d", h.Evsum, h.Version, PartialVersion)
	}
	by, err := ParseBy(h.By)
	if err != nil {
		return err
	}
	if m.State == nil {
		loc, err := LoadLocation(h.TZ)
		if err != nil {
			return err
		}
		m.State = New(Options{By: by, Loc: loc, TZName: h.TZ})
		return nil
	}
	if got, want := ByString(by), ByString(m.State.opt.By); got != want || h.TZ != m.State.opt.TZName {
		return fmt.Errorf("partial state grouped --by %s --tz %s cannot merge with one grouped --by %s --tz %s", got, h.TZ, want, m.State.opt.TZName)
	}
	return nil
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

func (m *Merger) group(line []byte) error {
	var p pGroup
	if err := decodeStrict(line, &p); err != nil {
		return err
	}
	s := m.State
	if len(p.Group) != len(s.opt.By) {
		return fmt.Errorf("bad partial state line: group has %d keys, --by %s has %d", len(p.Group), ByString(s.opt.By), len(s.opt.By))
	}
	g := &Group{events: p.Events, modelCalls: p.ModelCalls, modelErr: p.ModelErr, tokens: p.Tokens, costNano: p.CostNano,
		toolCalls: p.ToolCalls, toolFail: p.ToolFail, errors: p.Errors, guardrails: p.Guardrails, kills: p.Kills}
	var kb []byte
	for i, v := range p.Group {
		if i > 0 {
			kb = append(kb, keySep)
		}
		kb = appendCanon(kb, v)
	}
	g.key = string(kb)
	if (p.FirstTS == nil) != (p.LastTS == nil) {
		return errors.New("bad partial state line: first_us without last_us")
	}
	if p.FirstTS != nil {
		g.firstTS, g.lastTS, g.hasTS = *p.FirstTS, *p.LastTS, true
	}
	names := make([]string, 0, len(p.Tools))
	for name := range p.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := p.Tools[name]
		g.tools = append(g.tools, toolCount{name, c[0], c[1]})
	}
	var err error
	if g.latency, err = p.Latency.sketch(); err != nil {
		return err
	}
	for _, r := range p.Runs {
		g.touch(r)
	}
	o := &State{opt: s.opt, groups: map[string]*Group{g.key: g}}
	s.Merge(o)
	return nil
}

func (m *Merger) run(line []byte) error {
	var p pRun
	if err := decodeStrict(line, &p); err != nil {
		return err
	}
	r := newRun(p.Run)
	if (p.MinTS == nil) != (p.MaxTS == nil) {
		return errors.New("bad partial state line: min_us without max_us")
	}
	if p.MinTS != nil {
		r.minTS, r.maxTS, r.hasTS = *p.MinTS, *p.MaxTS, true
	}
	r.saw13, r.finished, r.outcome = p.RunLog, p.Finished, p.Outcome
	if p.FinishSeq != nil {
		r.finishSeq = *p.FinishSeq
	}
	if p.WallUS != nil {
		r.wallUS, r.hasWall = *p.WallUS, true
	}
	r.endMarks, r.toolsOpen = p.EndMarks, p.ToolsOpen
	if p.GlassError || p.AgentEnd != nil || p.TurnStarts != 0 || p.TurnEnds != 0 || p.Turns != nil || len(p.Calls) > 0 {
		r.gw().glassError = p.GlassError
	}
	if p.EndSeq != nil {
		r.endSeq = *p.EndSeq
	}
	if p.AgentEnd != nil {
		r.glass.agentEnd, r.glass.agentEndTS = true, *p.AgentEnd
	}
	if r.glass != nil {
		r.glass.turnStarts, r.glass.turnEnds = p.TurnStarts, p.TurnEnds
	}
	if t := p.Turns; t != nil {
		r.glass.turns = turnSeg{any: t.Any, open: t.Open, orphan: t.Orphan, orphanGrp: t.Group}
		if t.OpenUS != nil {
			r.glass.turns.openTS, r.glass.turns.openHasTS = *t.OpenUS, true
		}
		if t.OrphanUS != nil {
			r.glass.turns.orphanTS, r.glass.turns.orphanHasT = *t.OrphanUS, true
		}
	}
	for id, c := range p.Calls {
		if c == nil || !c.Started && !c.Ended || c.Deferred && !c.Started || c.Started && !c.Deferred && c.Ended {
			return errors.New("bad partial state line: impossible pending tool call")
		}
		if r.glass.calls == nil {
			r.glass.calls = map[string]*call{}
		}
		r.glass.calls[id] = &call{name: c.Name, group: c.Group, started: c.Started, deferred: c.Deferred, ended: c.Ended, failed: c.Failed, endGroup: c.EndGroup}
	}
	s := m.State
	o := &State{opt: s.opt, groups: map[string]*Group{}, runs: map[string]*Run{r.id: r}}
	s.Merge(o)
	return nil
}
