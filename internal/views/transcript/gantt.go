package transcript

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/views/eventtext"
)

// The timeline of a run: a lane per agent, its model calls and tool calls
// as bars on a time axis, its errors, kills and guardrails as marks. The
// SVG has no viewBox: positions along the axis are percentages of its
// width and everything else is in CSS pixels, so that its text stays the
// size of the page's at any width (a scaled drawing's text shrinks to
// nothing on a phone).
type timeline struct {
	Label  string
	Height int
	AxisY  int
	Lanes  []lane
	Bars   []bar
	Marks  []mark
	Ticks  []tick
	More   int // agents folded into the last lane
}

type lane struct {
	Label string
	Y     int // the label's baseline
}

type bar struct {
	X, W  string // percentages
	Y     int
	Class string
	Title string
}

type mark struct {
	X     string
	Y1    int
	Y2    int
	Class string
	Title string
}

type tick struct {
	X, Label, Anchor string
}

// A lane is its label, then a row of model calls and a row of tool calls
// below it, so that a tool call never hides the model call it overlaps.
const (
	laneHeight = 36
	barTop     = 15 // the model row's top below the lane's top
	toolTop    = 25 // the tool row's
	barHeight  = 8
	maxLanes   = 24
)

// span is one bar before it is drawn.
type span struct {
	lane       int
	start, end int64
	class      string
	title      string
	n          int
}

// timeline draws the run's calls; nil when the run has no two times to
// draw between.
func (t *Writer) timeline(r *run) *timeline {
	h := r.head
	if h.first == 0 || h.last <= h.first {
		return nil
	}
	ax := axis{t0: h.first, total: float64(h.last - h.first)}
	spans := mergeSpans(spansOf(r), int64(ax.total)/int64(t.o.MaxBars))
	tl := &timeline{Label: "Timeline of run " + strconv.Itoa(h.n) + ": model and tool calls over " + eventtext.Duration(h.last-h.first)}
	tl.Lanes, tl.More = lanesOf(r)
	tl.Bars = bars(spans, ax)
	tl.Marks = marks(r, ax)
	tl.AxisY = len(tl.Lanes)*laneHeight + 4
	tl.Height = tl.AxisY + 18
	tl.Ticks = ticks(ax, h.last-h.first)
	return tl
}

// axis places the times of a run, in microseconds, along the timeline's
// width, from t0 over total.
type axis struct {
	t0    int64
	total float64
}

// at is where the time us is, as a percentage of the width.
func (ax axis) at(us int64) string { return ax.percent(us - ax.t0) }

// percent is how much of the width the duration d takes.
func (ax axis) percent(d int64) string {
	return strconv.FormatFloat(float64(d)*100/ax.total, 'f', 3, 64) + "%"
}

// laneOf is the lane of the agent in lane l: the agents past the last
// lane share it.
func laneOf(l int) int { return min(l, maxLanes-1) }

// spansOf is a span for each of the run's calls that has a time.
func spansOf(r *run) []span {
	var spans []span
	for _, it := range r.timed {
		if it.start == 0 {
			continue
		}
		end := it.end
		if end < it.start {
			end = it.start // still running when the stream ends: a sliver at its start
		}
		s := span{lane: laneOf(it.lane), start: it.start, end: end, n: 1}
		s.class, s.title = callClass(it)
		if end > it.start {
			s.title += ", " + eventtext.Duration(end-it.start)
		}
		spans = append(spans, s)
	}
	return spans
}

// callClass is the class of a call's bar (m a model call, t a tool call,
// f a failed one) and the start of its title.
func callClass(it *item) (class, title string) {
	if it.kind == kModel {
		title = "model call"
		if it.step != "" {
			title += ", step " + it.step
		}
		if it.model != "" {
			title += ", " + it.model
		}
		return "m", title
	}
	title = "tool " + nonEmpty(it.name, "?")
	if it.failed {
		return "f", title + " FAILED"
	}
	return "t", title
}

// lanesOf labels a lane per agent, the first the run's; more is the
// number of agents folded into the last lane when there are too many.
func lanesOf(r *run) (lanes []lane, more int) {
	for i := range min(len(r.lanes), maxLanes) {
		a := r.lanes[i]
		label := a.id
		if i == 0 {
			label = nonEmpty(a.id, "run")
		}
		if i == maxLanes-1 && len(r.lanes) > maxLanes {
			more = len(r.lanes) - maxLanes + 1
			label = textfmt.Plural(int64(more), "more agent")
		}
		lanes = append(lanes, lane{Label: visible(label), Y: i*laneHeight + 11})
	}
	return lanes, more
}

// bars draws the spans, a model call in its lane's upper row, a tool call
// in the lower; a merged span says how many calls it stands for.
func bars(spans []span, ax axis) []bar {
	var out []bar
	for _, s := range spans {
		b := bar{X: ax.at(s.start), W: ax.percent(s.end - s.start),
			Y: s.lane*laneHeight + toolTop, Class: s.class, Title: visible(s.title)}
		if s.class == "m" {
			b.Y = s.lane*laneHeight + barTop
		}
		if s.n > 1 {
			b.Title = textfmt.Plural(int64(s.n), map[string]string{"m": "model call", "t": "tool call", "f": "failed tool call"}[s.class]) +
				" over " + eventtext.Duration(s.end-s.start)
		}
		out = append(out, b)
	}
	return out
}

// marks draws the run's errors, kills and guardrails that have a time,
// across both rows of their lane.
func marks(r *run, ax axis) []mark {
	var out []mark
	for _, it := range r.marks {
		if it.at == 0 {
			continue
		}
		y := laneOf(it.lane) * laneHeight
		m := mark{X: ax.at(it.at), Y1: y + barTop - 2, Y2: y + toolTop + barHeight + 2}
		switch it.kind {
		case kKill:
			m.Class, m.Title = "k", "KILLED: "
		case kGuardrail:
			m.Class, m.Title = "g", "GUARDRAIL: "
		default:
			m.Class, m.Title = "e", "ERROR: "
		}
		m.Title = visible(m.Title + eventtext.OneLine(cutRunes(string(it.text.b), 200)))
		out = append(out, m)
	}
	return out
}

// ticks labels the axis over the duration d, the first tick anchored at
// its start, the last ones near the end at their end, so that no label
// runs off the drawing.
func ticks(ax axis, d int64) []tick {
	var out []tick
	step := tickStep(d)
	for at := int64(0); at <= d; at += step {
		tk := tick{X: ax.at(ax.t0 + at), Label: tickLabel(at), Anchor: "middle"}
		if at == 0 {
			tk.Anchor = "start"
		}
		if float64(at) > 0.9*ax.total {
			tk.Anchor = "end"
		}
		out = append(out, tk)
	}
	return out
}

// mergeSpans joins, lane by lane and class by class, the bars closer to
// each other than gap (a pixel or so of the axis): a run of thousands of
// calls draws at most a few hundred bars a lane, each saying how many
// calls it stands for.
func mergeSpans(spans []span, gap int64) []span {
	slices.SortStableFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.lane, b.lane), strings.Compare(a.class, b.class), cmp.Compare(a.start, b.start))
	})
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 {
			p := &out[n-1]
			if p.lane == s.lane && p.class == s.class && s.start-p.end < gap && (p.n > 1 || s.end-p.start < 4*gap) {
				p.end = max(p.end, s.end)
				p.n += s.n
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// tickStep is the axis's step: 1, 2 or 5 of a power of ten (or a minute,
// an hour), for at most about 6 ticks.
func tickStep(d int64) int64 {
	steps := []int64{1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 3e7, 6e7, 12e7, 3e8, 6e8, 12e8, 18e8, 36e8, 72e8, 216e8, 432e8, 864e8}
	for _, s := range steps {
		if d/s <= 5 {
			return s
		}
	}
	return d / 5
}

// tickLabel is a time since the run's start.
func tickLabel(us int64) string {
	switch {
	case us == 0:
		return "0s"
	case us < 1e6:
		return strconv.FormatInt(us/1000, 10) + "ms"
	case us < 60e6:
		return strconv.FormatFloat(float64(us)/1e6, 'f', -1, 64) + "s"
	}
	return textfmt.Seconds(us / 1e6)
}
