package htmlreport

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/internal/textfmt"
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
	if p.overTime() && len(p.groups) > 0 {
		periods, folded := p.periods()
		note := ""
		if folded > 0 {
			note = fmt.Sprintf(" The %d earliest periods are left out.", folded)
		}
		cs = append(cs,
			columns(g, "cost", "Cost per "+p.o.Keys[0].Name, "cost, USD", costItems(periods), []series{{"cost", barColor}}, func(v float64) string { return "$" + summary.CostText(int64(math.Round(v*1e9))) }, note),
			columns(g, "tokens", "Tokens per "+p.o.Keys[0].Name, "tokens", tokenItems(periods), []series{{"tokens", barColor}}, intText, note),
		)
		cs = append(cs, columns(g, "runs", "Runs per "+p.o.Keys[0].Name+", by outcome", "runs", runItems(periods, p.outcomeNames()), p.outcomeSeries(), intText, note))
	} else if len(p.groups) > 1 {
		top := p.top(func(r *summary.Record) float64 { return float64(r.Counts[summary.CostNano]) })
		cs = append(cs, bars(g, "cost", "Cost per group, costliest first", "cost, USD", p.foldBy(top, func(r *summary.Record) float64 { return float64(r.Counts[summary.CostNano]) / 1e9 }), []series{{"cost", barColor}}, func(v float64) string { return "$" + summary.CostText(int64(math.Round(v*1e9))) }))
		topT := p.top(func(r *summary.Record) float64 { return float64(r.Counts[summary.TokTotal]) })
		cs = append(cs, bars(g, "tokens", "Tokens per group, most first", "tokens", p.foldBy(topT, func(r *summary.Record) float64 { return float64(r.Counts[summary.TokTotal]) }), []series{{"tokens", barColor}}, intText))
	}
	if t := p.total; len(t.Breakdown) > 1 {
		// the total's breakdown: what each model cost, and its tokens
		parts := slices.Clone(t.Breakdown)
		gs := make([]*summary.Record, len(parts))
		for i := range parts {
			gs[i] = &parts[i]
		}
		name := parts[0].Names[0]
		cost := func(r *summary.Record) float64 { return float64(r.Counts[summary.CostNano]) }
		tokens := func(r *summary.Record) float64 { return float64(r.Counts[summary.TokTotal]) }
		cs = append(cs,
			bars(g, "cost-per-"+name, "Cost per "+name+", costliest first", "cost, USD", p.foldBy(byMeasure(gs, cost), func(r *summary.Record) float64 { return cost(r) / 1e9 }), []series{{"cost", barColor}}, func(v float64) string { return "$" + summary.CostText(int64(math.Round(v*1e9))) }),
			bars(g, "tokens-per-"+name, "Tokens per "+name+", most first", "tokens", p.foldBy(byMeasure(gs, tokens), tokens), []series{{"tokens", barColor}}, intText),
		)
	}
	if c, ok := p.toolsChart(g); ok {
		cs = append(cs, c)
	}
	per := "group"
	if p.overTime() {
		per = p.o.Keys[0].Name
	}
	if c, ok := p.statsChart(g, "latency", "Model latency per "+per, "latency, ms", func(r *summary.Record) summary.Stats { return r.Latency }); ok {
		cs = append(cs, c)
	}
	if c, ok := p.statsChart(g, "wall", "Run wall time per "+per, "wall time, s", func(r *summary.Record) summary.Stats { return r.Wall }); ok {
		cs = append(cs, c)
	}
	return cs
}

func intText(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// periods sums the groups per period (the first key's value), the latest
// MaxPeriods of them, in time order.
func (p *Page) periods() ([]*summary.Record, int) {
	byPeriod := map[string][]*summary.Record{}
	var order []string
	for _, g := range p.groups {
		if g.Other > 0 {
			continue // the periods past --top: no period of their own
		}
		k := g.Vals[0]
		if _, ok := byPeriod[k]; !ok {
			order = append(order, k)
		}
		byPeriod[k] = append(byPeriod[k], g)
	}
	slices.Sort(order) // ISO dates, hours, weeks and months sort as text
	folded := 0
	if len(order) > p.o.MaxPeriods {
		folded = len(order) - p.o.MaxPeriods
		order = order[folded:]
	}
	var out []*summary.Record
	for _, k := range order {
		r := sum(byPeriod[k])
		r.Vals = []string{k}
		out = append(out, r)
	}
	return out, folded
}

func label(r *summary.Record) string {
	switch {
	case r.Other > 0:
		return "other (" + textfmt.Plural(r.Other, "group") + ")"
	case r.Nested && r.Vals[0] == "null":
		return "(no " + r.Names[0] + ")"
	}
	var parts []string
	for i := range r.Vals {
		parts = append(parts, r.KeyText(i)) // as the table shows it
	}
	return strings.Join(parts, " · ")
}

func costItems(periods []*summary.Record) []item {
	var out []item
	for _, r := range periods {
		out = append(out, item{label(r), []float64{float64(r.Counts[summary.CostNano]) / 1e9}})
	}
	return out
}

func tokenItems(periods []*summary.Record) []item {
	var out []item
	for _, r := range periods {
		out = append(out, item{label(r), []float64{float64(r.Counts[summary.TokTotal])}})
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

func outcomeRank(name string) int {
	switch name {
	case "ok":
		return 0
	case "running":
		return 1
	case "incomplete":
		return 2
	case "error":
		return 3
	case "killed":
		return 4
	}
	return 5
}

func (p *Page) outcomeSeries() []series {
	var s []series
	for _, n := range p.outcomeNames() {
		s = append(s, series{n, outcomeColor(n)})
	}
	return s
}

func runItems(periods []*summary.Record, names []string) []item {
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

// top returns the groups ordered by the measure, highest first.
func (p *Page) top(measure func(*summary.Record) float64) []*summary.Record {
	return byMeasure(p.groups, measure)
}

// byMeasure returns records ordered by the measure, highest first.
func byMeasure(rs []*summary.Record, measure func(*summary.Record) float64) []*summary.Record {
	gs := slices.Clone(rs)
	slices.SortStableFunc(gs, func(a, b *summary.Record) int { return cmp.Compare(measure(b), measure(a)) })
	return gs
}

// foldBy makes the items of the first MaxBars groups and one "other" of
// the rest.
func (p *Page) foldBy(gs []*summary.Record, value func(*summary.Record) float64) []item {
	var out []item
	var rest float64
	for i, g := range gs {
		if i < p.o.MaxBars {
			out = append(out, item{label(g), []float64{value(g)}})
		} else {
			rest += value(g)
		}
	}
	if len(gs) > p.o.MaxBars {
		out = append(out, item{fmt.Sprintf("other (%d)", len(gs)-p.o.MaxBars), []float64{rest}})
	}
	return out
}

// toolsChart shows the tools most called, split into calls that went
// well and calls that failed.
func (p *Page) toolsChart(g geom) (chart, bool) {
	ts := slices.Clone(p.total.Tools)
	if len(ts) == 0 {
		return chart{}, false
	}
	slices.SortStableFunc(ts, func(a, b summary.ToolStat) int { return cmp.Compare(b.Calls, a.Calls) })
	var items []item
	var rest summary.ToolStat
	for i, t := range ts {
		if i < p.o.MaxBars {
			items = append(items, item{t.Name, []float64{float64(t.Calls - t.Failed), float64(t.Failed)}})
		} else {
			rest.Calls += t.Calls
			rest.Failed += t.Failed
		}
	}
	if len(ts) > p.o.MaxBars {
		items = append(items, item{fmt.Sprintf("other (%d)", len(ts)-p.o.MaxBars), []float64{float64(rest.Calls - rest.Failed), float64(rest.Failed)}})
	}
	c := bars(g, "tools", "Tools by calls, with their failures", "calls", items, []series{{"ok", barColor}, {"failed", badColor}}, intText)
	// The value beside each bar says the failure share too.
	for i := range c.Labels {
		if c.Labels[i].Class != "value" {
			continue
		}
		it := items[valueIndex(c.Labels[:i+1])]
		calls := it.values[0] + it.values[1]
		if it.values[1] > 0 {
			c.Labels[i].Text = fmt.Sprintf("%s, %s%% failed", textfmt.Plural(int64(calls), "call"), percent(int64(it.values[1]), int64(calls)))
		} else {
			c.Labels[i].Text = textfmt.Plural(int64(calls), "call")
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
// the latest periods), when any group has the figure.
func (p *Page) statsChart(g geom, id, title, unit string, stat func(*summary.Record) summary.Stats) (chart, bool) {
	var gs []*summary.Record
	if p.overTime() {
		gs = slices.Clone(p.groups)
		if p.o.Sorted || len(gs) > 0 && gs[len(gs)-1].Other > 0 {
			// the latest periods, in time order; not those past --top
			gs = slices.DeleteFunc(gs, func(r *summary.Record) bool { return r.Other > 0 })
			slices.SortStableFunc(gs, func(a, b *summary.Record) int { return cmp.Compare(a.Vals[0], b.Vals[0]) })
		}
		if len(gs) > p.o.MaxBars {
			gs = gs[len(gs)-p.o.MaxBars:]
		}
	} else {
		gs = p.top(func(r *summary.Record) float64 { return float64(r.Runs) })
		if len(gs) > p.o.MaxBars {
			gs = gs[:p.o.MaxBars]
		}
	}
	if len(p.groups) == 0 {
		gs = []*summary.Record{p.total}
	}
	var items []item
	for _, g := range gs {
		s := stat(g)
		if !s.Has {
			continue
		}
		lb := label(g)
		if g.Total {
			lb = "all"
		}
		items = append(items, item{lb, []float64{s.P50, s.P95}})
	}
	if len(items) == 0 {
		return chart{}, false
	}
	return grouped(g, id, title, unit, items, []series{{"p50", barColor}, {"p95", p95Color}}), true
}

// bars draws horizontal bars, one row per item, its series stacked.
func bars(g geom, id, title, unit string, items []item, ss []series, format func(float64) string) chart {
	const rowH = 24.0
	c, plotW, max, scale := horizontal(g, id, title, g.valueW, items, total)
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
	c.xAxis(plotW, y, format(max), unit)
	if len(ss) > 1 {
		c.Legend = legend(ss, g.labelW, 8)
	}
	c.Desc = title + ", " + unit + ": " + strings.Join(desc, "; ") + "."
	return c
}

// grouped draws horizontal bars, one row per item and series (p50, p95).
func grouped(g geom, id, title, unit string, items []item, ss []series) chart {
	const barH = 14.0
	c, plotW, max, scale := horizontal(g, id, title, g.statValueW, items, largest)
	y := hTop
	var desc []string
	for _, it := range items {
		c.Labels = append(c.Labels, text{X: g.labelW - 6, Y: y + float64(len(ss))*barH/2 + 4, Text: cut(it.label, g.labelChars), Anchor: "end", Class: "label"})
		var parts []string
		for si, v := range it.values {
			w := v * scale
			c.Bars = append(c.Bars, bar{X: g.labelW, Y: y + 2, W: w, H: barH - 3, Value: v, Color: ss[si].color, Series: ss[si].name,
				Title: fmt.Sprintf("%s: %s %s", it.label, ss[si].name, num(v))})
			c.Labels = append(c.Labels, text{X: g.labelW + w + 4, Y: y + barH - 2, Text: num(v), Anchor: "start", Class: "value"})
			parts = append(parts, ss[si].name+" "+num(v))
			y += barH
		}
		desc = append(desc, it.label+" "+strings.Join(parts, ", "))
		y += 8
	}
	c.xAxis(plotW, y, num(max), unit)
	c.Legend = legend(ss, g.labelW, 8)
	c.Desc = title + ", " + unit + ": " + strings.Join(desc, "; ") + "."
	return c
}

// columns draws vertical bars over time, one per period, its series
// stacked.
func columns(g geom, id, title, unit string, items []item, ss []series, format func(float64) string, note string) chart {
	const left, right, top, plotH = 70.0, 10.0, 30.0, 170.0
	plotW := g.w - left - right
	c := chart{ID: id, Title: title, drawing: drawing{W: g.w, g: g}, Vertical: true}
	max, scale := axisScale(items, plotH, total)
	slot := plotW / float64(max1(len(items)))
	bw := math.Min(48, math.Max(1, slot*0.7))
	base := top + plotH
	every := max1(len(items) / g.ticks) // at most about g.ticks period labels
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
		text{X: left - 6, Y: top + 4, Text: format(max), Anchor: "end", Class: "tick"},
		text{X: left - 6, Y: top - 12, Text: unit, Anchor: "start", Class: "axis"},
	)
	c.H = base + 90
	if len(ss) > 1 {
		c.Legend = legend(ss, left, 8)
	}
	c.Desc = title + ", " + unit + ": " + strings.Join(desc, "; ") + "." + note
	return c
}

// axisScale returns the largest measure of the items' values, which the end
// of an axis of the given length stands for, and the length one unit of
// value takes on that axis (0 when nothing is above 0).
func axisScale(items []item, length float64, measure func([]float64) float64) (max, scale float64) {
	for _, it := range items {
		max = math.Max(max, measure(it.values))
	}
	if max > 0 {
		scale = length / max
	}
	return max, scale
}

// The frame of a horizontal chart: a column of labels geom.labelW wide on
// the left, the plot, a column of values on the right; rows start at hTop.
const hTop = 28.0

// horizontal starts a horizontal chart whose value column is valueW wide:
// the chart, its plot's width, and the items' largest measure with the
// scale the plot draws it at (see axisScale).
func horizontal(g geom, id, title string, valueW float64, items []item, measure func([]float64) float64) (c chart, plotW, max, scale float64) {
	plotW = g.w - g.labelW - valueW
	max, scale = axisScale(items, plotW, measure)
	return chart{ID: id, Title: title, drawing: drawing{W: g.w, g: g}}, plotW, max, scale
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
	var out []legendItem
	for _, s := range ss {
		out = append(out, legendItem{X: x, Y: y, Color: s.color, Name: s.name})
		x += 20 + 8*float64(len(s.name)) + 14
	}
	return out
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

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// cut shortens a label to n characters with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
