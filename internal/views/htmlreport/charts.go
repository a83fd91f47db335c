package htmlreport

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// A chart is an SVG drawing with its title and a text alternative. The
// geometry is computed here; the template only places it, so every value
// from the data reaches the page through the template's escaping.
//
// Each chart is drawn twice, for a wide page and for a phone (Narrow), and
// the page's style shows one: an SVG drawn at its own size in CSS pixels,
// never scaled, keeps its text at the 11 px it is written in, where one
// drawing scaled down to a phone's width had text 5 px tall.
type chart struct {
	ID, Title, Desc string
	Vertical        bool // bars stand up (over time); else they lie along x
	drawing              // wide
	Narrow          drawing
}

// drawing is a chart's SVG at one size.
type drawing struct {
	W, H   float64
	Bars   []bar
	Labels []text
	Axes   []line
	Legend []legendItem
	g      geom
}

// geom is the size a chart is drawn at: its width, the column of labels
// on the left of a horizontal chart and of values on its right (bars,
// and the side by side bars of percentiles), the longest label in
// characters, and the most period labels under a chart over time.
type geom struct {
	w, labelW, valueW, statValueW float64
	labelChars, ticks             int
}

// The two sizes: wide fits two charts side by side in a 1280-pixel window
// and one on an A4 page; narrow fits a 390-pixel phone.
var (
	wideGeom   = geom{w: 540, labelW: 150, valueW: 130, statValueW: 70, labelChars: 22, ticks: 12}
	narrowGeom = geom{w: 340, labelW: 100, valueW: 110, statValueW: 60, labelChars: 14, ticks: 6}
)

// view is one drawing of a chart as the template writes it: its class
// (which the style shows or hides) and the ids of its title and text.
type view struct {
	Class, ID, Title, Desc string
	drawing
}

// Views are the chart's two drawings.
func (c chart) Views() []view {
	return []view{{"wide", c.ID, c.Title, c.Desc, c.drawing}, {"narrow", c.ID + "-n", c.Title, c.Desc, c.Narrow}}
}

// bar is one rectangle: Value is what its length shows (data-value), in
// the chart's unit, so a test can check lengths against values.
type bar struct {
	X, Y, W, H float64
	Value      float64
	Color      string
	Title      string // its tooltip: label and value
	Series     string
}

type text struct {
	X, Y   float64
	Text   string
	Anchor string // start, middle, end
	Class  string
	Rotate bool
}

type line struct{ X1, Y1, X2, Y2 float64 }

type legendItem struct {
	X, Y  float64
	Color string
	Name  string
}

// item is one thing a chart shows a bar (or a stack) for.
type item struct {
	label  string
	values []float64 // one per series
}

// series of a chart: its name and colour.
type series struct{ name, color string }

const (
	barColor = "#3f6fb5"
	p95Color = "#9db7e0"
	badColor = "#c62828"
)

// charts are the charts that fit the grouping, each drawn at both sizes.
func (p *Page) charts() []chart {
	cs := p.drawCharts(wideGeom)
	for i, n := range p.drawCharts(narrowGeom) {
		cs[i].Narrow = n.drawing
	}
	return cs
}

// drawCharts draws the charts at one size.
func (p *Page) drawCharts(g geom) []chart {
	var cs []chart
	cost := func(r *record.Record) float64 { return float64(r.Counts[record.CostNano]) / 1e9 }
	tokens := func(r *record.Record) float64 { return float64(r.Counts[record.TokTotal]) }
	if p.overTime() && len(p.groups) > 0 {
		periods, all, earlier := p.periods()
		per := p.o.Keys[0].Name
		span := ""
		if len(periods) < all {
			span = fmt.Sprintf(", the latest %d of %d %ss", len(periods), all, per)
		}
		// The periods left out are summed under each chart: the costliest
		// days may be among them, and a chart that only said "the latest
		// 90" hid them.
		foot := func(sumText func(*record.Record) string) string {
			if earlier == nil {
				return ""
			}
			return fmt.Sprintf("the %s: %s in all", textfmt.PluralThousands(int64(all-len(periods)), "earlier "+per), sumText(earlier))
		}
		cs = append(cs,
			columns(g, "cost", "Cost per "+per+span, "cost, USD", measureItems(periods, cost), []series{{"cost", barColor}}, costText,
				foot(func(r *record.Record) string { return costText(cost(r)) })),
			columns(g, "tokens", "Tokens per "+per+span, "tokens", measureItems(periods, tokens), []series{{"tokens", barColor}}, intText,
				foot(func(r *record.Record) string { return textfmt.PluralThousands(r.Counts[record.TokTotal], "token") })),
		)
		cs = append(cs, columns(g, "runs", "Runs per "+per+", by outcome"+span, "runs", runItems(periods, p.outcomeNames()), p.outcomeSeries(), intText,
			foot(func(r *record.Record) string { return textfmt.PluralThousands(r.Runs, "run") })))
	} else if len(p.groups) > 1 {
		// A chart of a measure only some group has (cost and tokens by
		// tool or by kind: all of it in the group of no tool) would be one
		// bar: only those that tell groups apart are drawn.
		per := p.groupWord()
		if c, ok := p.perGroup(g, "cost", "Cost per "+per+", costliest first", "cost, USD", cost, costText); ok {
			cs = append(cs, c)
		}
		if c, ok := p.perGroup(g, "tokens", "Tokens per "+per+", most first", "tokens", tokens, intText); ok {
			cs = append(cs, c)
		}
		if p.o.Keys[0].Kind == summary.KeyKindField {
			events := func(r *record.Record) float64 { return float64(r.Counts[record.Events]) }
			if c, ok := p.perGroup(g, "events", "Events per "+per+", most first", "events", events, intText); ok {
				cs = append(cs, c)
			}
		}
	}
	if t := p.total; len(t.Breakdown) > 1 {
		// the total's breakdown: what each model cost, and its tokens
		parts := make([]*record.Record, len(t.Breakdown))
		for i := range t.Breakdown {
			parts[i] = &t.Breakdown[i]
		}
		name := parts[0].Names[0]
		if c, ok := p.barsOf(g, parts, "cost-per-"+name, "Cost per "+name+", costliest first", "cost, USD", cost, costText, name); ok {
			cs = append(cs, c)
		}
		if c, ok := p.barsOf(g, parts, "tokens-per-"+name, "Tokens per "+name+", most first", "tokens", tokens, intText, name); ok {
			cs = append(cs, c)
		}
	}
	if c, ok := p.toolsChart(g); ok {
		cs = append(cs, c)
	}
	if c, ok := p.statsChart(g, "latency", "Model latency", "latency", 1e3, func(r *record.Record) record.Stats { return r.Latency }); ok {
		cs = append(cs, c)
	}
	if c, ok := p.statsChart(g, "wall", "Run wall time", "wall time", 1e6, func(r *record.Record) record.Stats { return r.Wall }); ok {
		cs = append(cs, c)
	}
	return cs
}

// groupWord is what one group is, for titles: the grouping as --by names
// it (agent, tool, agent · tool).
func (p *Page) groupWord() string {
	return strings.ReplaceAll(summary.ByString(p.o.Keys), ",", " · ")
}

// perGroup draws a measure per group, the largest first.
func (p *Page) perGroup(g geom, id, title, unit string, value func(*record.Record) float64, format func(float64) string) (chart, bool) {
	return p.barsOf(g, p.groups, id, title, unit, value, format, "group")
}

// barsOf draws the records' value, the largest first: the first MaxBars
// of them as bars, and what the rest add up to in a line under the chart
// (as a bar it would dwarf the others), with the groups past --top, which
// are no group of their own. It draws nothing when fewer than two
// records have a value.
func (p *Page) barsOf(g geom, rs []*record.Record, id, title, unit string, value func(*record.Record) float64, format func(float64) string, what string) (chart, bool) {
	var shown, rest []*record.Record
	for _, r := range byMeasure(rs, value) {
		if r.Other > 0 || len(shown) == p.o.MaxBars {
			rest = append(rest, r)
		} else {
			shown = append(shown, r)
		}
	}
	some := 0
	for _, r := range rs {
		if value(r) != 0 {
			some++
		}
	}
	if some < 2 {
		return chart{}, false
	}
	items := measureItems(shown, value)
	foot := ""
	if len(rest) > 0 {
		n, v := int64(0), 0.0
		for _, r := range rest {
			n += max(r.Other, 1)
			v += value(r)
		}
		foot = fmt.Sprintf("and %s in all", moreText(n, what, format(v)))
	}
	return bars(g, id, title, unit, items, []series{{unit, barColor}}, format, foot), true
}

// moreText says what n more things of a kind add up to: "2 more groups:
// $0.0300".
func moreText(n int64, what, sum string) string {
	return textfmt.PluralThousands(n, "more "+what) + ": " + sum
}

// costText is a cost in dollars as the headline and the table write it.
func costText(v float64) string { return "$" + record.CostText(int64(math.Round(v*1e9))) }

func intText(v float64) string { return textfmt.Thousands(int64(math.Round(v))) }

// periods sums the groups per period (the first key's value), every
// period from the first to the last, those without events too (an axis
// that skipped them would look continuous), the latest MaxPeriods of
// them, in time order; how many periods there are in all; and the sum of
// the periods left out, nil when none is. Events without a time are in no
// period, and left out.
func (p *Page) periods() ([]*record.Record, int, *record.Record) {
	byPeriod := map[string][]*record.Record{}
	var order []string
	for _, g := range p.groups {
		if g.Other > 0 || g.Vals[0] == "null" {
			continue // the periods past --top, and no time: no period of their own
		}
		k := g.Vals[0]
		if _, ok := byPeriod[k]; !ok {
			order = append(order, k)
		}
		byPeriod[k] = append(byPeriod[k], g)
	}
	slices.Sort(order) // ISO dates, hours, weeks and months sort as text
	order = p.fillPeriods(order)
	all := len(order)
	var earlier *record.Record
	if len(order) > p.o.MaxPeriods {
		var rs []*record.Record
		for _, k := range order[:len(order)-p.o.MaxPeriods] {
			rs = append(rs, byPeriod[k]...)
		}
		earlier = sum(rs)
		order = order[len(order)-p.o.MaxPeriods:]
	}
	var out []*record.Record
	for _, k := range order {
		r := sum(byPeriod[k])
		r.Names, r.Vals = []string{p.o.Keys[0].Name}, []string{k}
		out = append(out, r)
	}
	return out, all, earlier
}

// fillPeriods puts the periods without events between those of keys
// (sorted JSON strings). A span of more than maxFill periods (hours over
// decades) is left with its gaps.
func (p *Page) fillPeriods(keys []string) []string {
	const maxFill = 100_000
	if len(keys) < 2 {
		return keys
	}
	kind := p.o.Keys[0].Kind
	var out []string
	for i, k := range keys {
		out = append(out, k)
		if i+1 == len(keys) {
			break
		}
		for next := k; len(out) < maxFill; {
			n, ok := summary.NextPeriod(kind, record.ValueText(next), p.o.Loc)
			q := `"` + n + `"`
			if !ok || q >= keys[i+1] {
				break
			}
			out = append(out, q)
			next = q
		}
	}
	if len(out) >= maxFill {
		return keys
	}
	return out
}

func label(r *record.Record) string {
	switch {
	case r.Other > 0:
		return "other (" + textfmt.Plural(r.Other, "group") + ")"
	}
	var parts []string
	for i := range r.Vals {
		parts = append(parts, r.KeyText(i)) // as the table shows it
	}
	return strings.Join(parts, " · ")
}

// measureItems are the records' values of a measure, a bar each.
func measureItems(rs []*record.Record, value func(*record.Record) float64) []item {
	var out []item
	for _, r := range rs {
		out = append(out, item{label(r), []float64{value(r)}})
	}
	return out
}

// outcomeNames are the outcomes of the report, ok first.
func (p *Page) outcomeNames() []string {
	var names []string
	for _, o := range p.total.Outcomes {
		names = append(names, o.Name)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Compare(outcomeRank(a), outcomeRank(b))
	})
	return names
}

func (p *Page) outcomeSeries() []series {
	var s []series
	for _, n := range p.outcomeNames() {
		s = append(s, series{n, outcomeColor(n)})
	}
	return s
}

func runItems(periods []*record.Record, names []string) []item {
	var out []item
	for _, r := range periods {
		it := item{label: label(r), values: make([]float64, len(names))}
		for _, o := range r.Outcomes {
			if i := slices.Index(names, o.Name); i >= 0 {
				it.values[i] = float64(o.N)
			}
		}
		out = append(out, it)
	}
	return out
}

// byMeasure returns records ordered by the measure, highest first.
func byMeasure(rs []*record.Record, measure func(*record.Record) float64) []*record.Record {
	gs := slices.Clone(rs)
	slices.SortStableFunc(gs, func(a, b *record.Record) int { return cmp.Compare(measure(b), measure(a)) })
	return gs
}

// toolsChart shows the tools most called, split into calls that went
// well and calls that failed.
func (p *Page) toolsChart(g geom) (chart, bool) {
	ts := slices.Clone(p.total.Tools)
	if len(ts) == 0 {
		return chart{}, false
	}
	slices.SortStableFunc(ts, func(a, b record.ToolStat) int { return cmp.Compare(b.Calls, a.Calls) })
	var items []item
	var rest record.ToolStat
	for i, t := range ts {
		if i < p.o.MaxBars {
			items = append(items, item{t.Name, []float64{float64(t.Calls - t.Failed), float64(t.Failed)}})
		} else {
			rest.Calls += t.Calls
			rest.Failed += t.Failed
		}
	}
	foot := ""
	if len(ts) > p.o.MaxBars {
		// a line, not a bar: the tail of many tools would dwarf the rest
		foot = "and " + moreText(int64(len(ts)-p.o.MaxBars), "tool", fmt.Sprintf("%s, %s failed", textfmt.PluralThousands(rest.Calls, "call"), textfmt.Thousands(rest.Failed)))
	}
	c := bars(g, "tools", "Tools by calls, with their failures", "calls", items, []series{{"ok", barColor}, {"failed", badColor}}, intText, foot)
	// The value beside each bar says the failure share too.
	for i := range c.Labels {
		if c.Labels[i].Class != "value" {
			continue
		}
		it := items[valueIndex(c.Labels[:i+1])]
		calls := it.values[0] + it.values[1]
		if it.values[1] > 0 {
			c.Labels[i].Text = fmt.Sprintf("%s, %s%% failed", textfmt.PluralThousands(int64(calls), "call"), percent(int64(it.values[1]), int64(calls)))
		} else {
			c.Labels[i].Text = textfmt.PluralThousands(int64(calls), "call")
		}
	}
	return c, true
}

// valueIndex is the index of the last value label among labels.
func valueIndex(labels []text) int {
	n := -1
	for _, l := range labels {
		if l.Class == "value" {
			n++
		}
	}
	return n
}

// statsChart shows p50 and p95 per group (the groups with most runs, or
// the latest periods), when any group has the figure; the title says
// which when not all are shown. A group whose p50 is its p95 (one run,
// one call) gets one bar: two would say the same twice. unit is how many
// microseconds a value of the stat is.
func (p *Page) statsChart(g geom, id, what, axis string, unit float64, stat func(*record.Record) record.Stats) (chart, bool) {
	var gs []*record.Record
	per := p.groupWord()
	for _, r := range p.groups {
		if r.Other == 0 && stat(r).Has {
			gs = append(gs, r)
		}
	}
	all := len(gs)
	span := ""
	if p.overTime() {
		per = p.o.Keys[0].Name
		// the latest periods, in time order
		slices.SortStableFunc(gs, func(a, b *record.Record) int { return cmp.Compare(a.Vals[0], b.Vals[0]) })
		if len(gs) > p.o.MaxBars {
			gs = gs[len(gs)-p.o.MaxBars:]
			span = fmt.Sprintf(", the latest %d of %d %ss with one", len(gs), all, per)
		}
	} else {
		gs = byMeasure(gs, func(r *record.Record) float64 { return float64(r.Runs) })
		if len(gs) > p.o.MaxBars {
			gs = gs[:p.o.MaxBars]
			span = fmt.Sprintf(", the %d of %d with most runs", len(gs), all)
		}
	}
	if len(p.groups) == 0 && stat(p.total).Has {
		gs = []*record.Record{p.total}
	} else if all < 2 {
		return chart{}, false // one group's figure is the total's: no chart of one
	}
	var items []item
	for _, g := range gs {
		s := stat(g)
		lb := label(g)
		if g.Total {
			lb = "all"
		}
		it := item{lb, []float64{s.P50 * unit, s.P95 * unit}}
		if s.P50 == s.P95 {
			it.values = it.values[:1]
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return chart{}, false
	}
	return grouped(g, id, what+" per "+per+span, axis, items, []series{{"p50", barColor}, {"p95", p95Color}}), true
}

// bars draws horizontal bars, one row per item, its series stacked.
// foot, when not empty, is a line under the chart (what the bars leave
// out).
func bars(g geom, id, title, unit string, items []item, ss []series, format func(float64) string, foot string) chart {
	const rowH = 24.0
	c, plotW, axisEnd, scale := horizontal(g, id, title, g.valueW, items, total)
	y := hTop
	var desc []string
	for _, it := range items {
		x := g.labelW
		for si, v := range it.values {
			w := v * scale
			if v > 0 {
				c.Bars = append(c.Bars, bar{X: x, Y: y + 4, W: w, H: rowH - 8, Value: v, Color: ss[si].color, Series: ss[si].name,
					Title: fmt.Sprintf("%s: %s %s", it.label, format(v), ss[si].name)})
			}
			x += w
		}
		c.Labels = append(c.Labels, text{X: g.labelW - 6, Y: y + rowH/2 + 4, Text: cut(it.label, g.labelChars), Anchor: "end", Class: "label"})
		c.Labels = append(c.Labels, text{X: x + 6, Y: y + rowH/2 + 4, Text: format(total(it.values)), Anchor: "start", Class: "value"})
		desc = append(desc, it.label+" "+format(total(it.values)))
		y += rowH
	}
	c.xAxis(plotW, y, tickText(format, axisEnd), unit)
	if len(ss) > 1 {
		c.Legend = legend(ss, g.labelW, 8)
	}
	c.describe(title, unit, desc, foot)
	return c
}

// grouped draws horizontal bars of durations in microseconds, one row
// per item and series (p50, p95); an item of one value is one bar, which
// both series share. Every value is written to the step of the largest,
// so that the chart's values have one precision.
func grouped(g geom, id, title, unit string, items []item, ss []series) chart {
	const barH = 14.0
	c, plotW, axisEnd, scale := horizontal(g, id, title, g.statValueW, items, largest)
	step := textfmt.StepOf(int64(axisEnd))
	dur := func(v float64) string { return textfmt.Duration(int64(math.Round(v)), step) }
	y := hTop
	var desc []string
	for _, it := range items {
		c.Labels = append(c.Labels, text{X: g.labelW - 6, Y: y + float64(len(it.values))*barH/2 + 4, Text: cut(it.label, g.labelChars), Anchor: "end", Class: "label"})
		var parts []string
		for si, v := range it.values {
			s := ss[si]
			if len(it.values) == 1 {
				s = series{ss[0].name + " = " + ss[1].name, ss[0].color}
			}
			w := v * scale
			c.Bars = append(c.Bars, bar{X: g.labelW, Y: y + 2, W: w, H: barH - 3, Value: v, Color: s.color, Series: s.name,
				Title: fmt.Sprintf("%s: %s %s", it.label, s.name, dur(v))})
			c.Labels = append(c.Labels, text{X: g.labelW + w + 4, Y: y + barH - 2, Text: dur(v), Anchor: "start", Class: "value"})
			parts = append(parts, s.name+" "+dur(v))
			y += barH
		}
		desc = append(desc, it.label+" "+strings.Join(parts, ", "))
		y += 8
	}
	c.xAxis(plotW, y, dur(axisEnd), unit)
	c.Legend = legend(ss, g.labelW, 8)
	c.describe(title, unit, desc, "")
	return c
}

// columns draws vertical bars over time, one per period, its series
// stacked. foot, when not empty, is a line under the chart (the periods
// it leaves out).
func columns(g geom, id, title, unit string, items []item, ss []series, format func(float64) string, foot string) chart {
	const left, right, plotH = 70.0, 10.0, 170.0
	top := 30.0
	var leg []legendItem
	if len(ss) > 1 {
		// the legend on lines of its own above the unit
		var lines int
		leg, lines = legendIn(ss, left, 8, g.w-right)
		top += 16 * float64(lines)
	}
	plotW := g.w - left - right
	c := chart{ID: id, Title: title, drawing: drawing{W: g.w, g: g, Legend: leg}, Vertical: true}
	axisEnd, scale := axisScale(items, plotH, total)
	slot := plotW / float64(max(len(items), 1))
	bw := math.Min(48, math.Max(1, slot*0.7))
	base := top + plotH
	every := max(len(items)/g.ticks, 1) // at most about g.ticks period labels
	var desc []string
	for i, it := range items {
		x := left + float64(i)*slot + (slot-bw)/2
		y := base
		for si, v := range it.values {
			h := v * scale
			if v > 0 {
				y -= h
				c.Bars = append(c.Bars, bar{X: x, Y: y, W: bw, H: h, Value: v, Color: ss[si].color, Series: ss[si].name,
					Title: fmt.Sprintf("%s: %s %s", it.label, format(v), ss[si].name)})
			}
		}
		if i%every == 0 {
			c.Labels = append(c.Labels, text{X: x + bw/2, Y: base + 14, Text: it.label, Anchor: "end", Class: "tick", Rotate: true})
		}
		desc = append(desc, it.label+" "+format(total(it.values)))
	}
	c.Axes = append(c.Axes, line{left, top, left, base}, line{left, base, left + plotW, base})
	c.Labels = append(c.Labels,
		text{X: left - 6, Y: base + 4, Text: "0", Anchor: "end", Class: "tick"},
		text{X: left - 6, Y: top + 4, Text: tickText(format, axisEnd), Anchor: "end", Class: "tick"},
		text{X: left - 6, Y: top - 12, Text: unit, Anchor: "start", Class: "axis"},
	)
	c.H = base + 90
	c.describe(title, unit, desc, foot)
	return c
}

// describe writes the chart's Desc, what it shows in words (its title,
// unit and each item's values, desc): foot, when not empty, is then its
// last sentence, and a line under the chart too.
func (c *chart) describe(title, unit string, desc []string, foot string) {
	c.Desc = title + ", " + unit + ": " + strings.Join(desc, "; ") + "."
	if foot != "" {
		c.Labels = append(c.Labels, text{X: 6, Y: c.H + 6, Text: foot, Anchor: "start", Class: "foot"})
		c.H += 16
		c.Desc += " " + strings.ToUpper(foot[:1]) + foot[1:] + "."
	}
}

// tickText is an axis's end as format writes it, without the zeros a
// round number ends in: $30 and $0.05 rather than $30.0000 and $0.0500.
func tickText(format func(float64) string, v float64) string {
	s := format(v)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// niceMax is the round number at or above m an axis ends at (1, 1.2,
// 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten), so that its end reads
// $30 or 8,000,000 rather than the largest value's $29.4667.
func niceMax(m float64) float64 {
	if m <= 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	p := math.Pow(10, math.Floor(math.Log10(m)))
	for _, f := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		// a hair over for the float error of m/p
		if m <= f*p*(1+1e-9) {
			return f * p
		}
	}
	return 10 * p
}

// axisScale returns what the end of an axis of the given length stands
// for, the round number (niceMax) at or above the largest measure of the
// items' values, and the length one unit of value takes on that axis (0
// when nothing is above 0).
func axisScale(items []item, length float64, measure func([]float64) float64) (axisEnd, scale float64) {
	for _, it := range items {
		axisEnd = math.Max(axisEnd, measure(it.values))
	}
	axisEnd = niceMax(axisEnd)
	if axisEnd > 0 {
		scale = length / axisEnd
	}
	return axisEnd, scale
}

// The frame of a horizontal chart: a column of labels geom.labelW wide on
// the left, the plot, a column of values on the right; rows start at hTop.
const hTop = 28.0

// horizontal starts a horizontal chart whose value column is valueW wide:
// the chart, its plot's width, and the items' largest measure with the
// scale the plot draws it at (see axisScale).
func horizontal(g geom, id, title string, valueW float64, items []item, measure func([]float64) float64) (c chart, plotW, axisEnd, scale float64) {
	plotW = g.w - g.labelW - valueW
	axisEnd, scale = axisScale(items, plotW, measure)
	return chart{ID: id, Title: title, drawing: drawing{W: g.w, g: g}}, plotW, axisEnd, scale
}

// xAxis draws a horizontal chart's axes, from the rows' top to y below the
// last row and across the plot, with 0 and maxText under the plot's ends
// and the unit under its middle.
func (c *drawing) xAxis(plotW, y float64, maxText, unit string) {
	l := c.g.labelW
	c.Axes = append(c.Axes, line{l, hTop - 4, l, y}, line{l, y, l + plotW, y})
	c.Labels = append(c.Labels,
		text{X: l, Y: y + 16, Text: "0", Anchor: "middle", Class: "tick"},
		text{X: l + plotW, Y: y + 16, Text: maxText, Anchor: "middle", Class: "tick"},
		text{X: l + plotW/2, Y: y + 32, Text: unit, Anchor: "middle", Class: "axis"},
	)
	c.H = y + 40
}

func legend(ss []series, x, y float64) []legendItem {
	items, _ := legendIn(ss, x, y, math.Inf(1))
	return items
}

// legendIn lays the series' names out from x, y in lines that end before
// right, and returns how many lines it took.
func legendIn(ss []series, x, y, right float64) ([]legendItem, int) {
	var out []legendItem
	x0, lines := x, 1
	for _, s := range ss {
		w := 20 + 7*float64(len(s.name))
		if x > x0 && x+w > right {
			x, y, lines = x0, y+16, lines+1
		}
		out = append(out, legendItem{X: x, Y: y, Color: s.color, Name: s.name})
		x += w + 14
	}
	return out, lines
}

// largest is the largest of vs, 0 for none: the measure of a chart whose
// series stand side by side.
func largest(vs []float64) float64 {
	m := 0.0
	for _, v := range vs {
		m = math.Max(m, v)
	}
	return m
}

func total(vs []float64) float64 {
	t := 0.0
	for _, v := range vs {
		t += v
	}
	return t
}

// cut shortens a label to n characters with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
