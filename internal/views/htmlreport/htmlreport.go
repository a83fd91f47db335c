// Package htmlreport writes evsum's report as one self-contained HTML
// page: the headline numbers, charts drawn as inline SVG, the group table
// and the problems, with no script, font, image or style from anywhere
// else, so that a mail client shows it inline and a browser opens it from
// disk. Every value from the data goes through html/template, which
// escapes it for where it lands.
package htmlreport

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// Options describe the report.
type Options struct {
	Keys   []summary.Key  // the grouping (--by)
	Loc    *time.Location // the zone of the times shown (--tz)
	TZName string
	// Window is the report's options, for the window its events were
	// looked for in (--since, --until) when there are none.
	Window summary.Options
	Files  []string // the inputs, for the evfilter commands of the problems
	Head   []string // the table's columns, as --format md heads them
	Right  []bool   // per column: numbers, aligned right
	// Wrap, per column: text that may break anywhere to fit (group keys,
	// outcomes), where numbers and times keep to one line.
	Wrap    []bool
	Cells   func(*record.Record) []string
	Version string
	// Sorted: the groups come in an order of their own (--sort), which
	// the table keeps; otherwise by time, or the costliest kept first.
	Sorted bool

	// MaxRows is the most group rows the table shows (default 200); the
	// rest are folded into one row. MaxBars is the most bars of a chart
	// per group (default 10, then "other"); MaxPeriods the most periods
	// of a chart over time (default 90, the latest).
	MaxRows, MaxBars, MaxPeriods int
	MaxProblems                  int // default 100
}

// Page collects the records of a report and writes them as HTML.
type Page struct {
	o      Options
	groups []*record.Record
	total  *record.Record
}

// New returns an empty page.
func New(o Options) *Page {
	if o.MaxRows <= 0 {
		o.MaxRows = 200
	}
	if o.MaxBars <= 0 {
		o.MaxBars = 10
	}
	if o.MaxPeriods <= 0 {
		o.MaxPeriods = 90
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = 100
	}
	if o.Loc == nil {
		o.Loc = time.UTC
	}
	return &Page{o: o}
}

// Add takes one record of the report, groups first and the total last, as
// summary.State.EachRecord gives them. The record is copied.
func (p *Page) Add(r *record.Record) {
	c := *r
	c.Names = slices.Clone(r.Names)
	c.Vals = slices.Clone(r.Vals)
	c.Outcomes = slices.Clone(r.Outcomes)
	c.Tools = slices.Clone(r.Tools)
	c.Problems = slices.Clone(r.Problems)
	c.Breakdown = slices.Clone(r.Breakdown)
	if r.Total {
		p.total = &c
		return
	}
	p.groups = append(p.groups, &c)
}

// overTime reports whether the first key is a period (day, hour, week or
// month): the charts then run over time.
func (p *Page) overTime() bool {
	return len(p.o.Keys) > 0 && p.o.Keys[0].Kind.Period()
}

// Write writes the page.
func (p *Page) Write(w io.Writer) error {
	if p.total == nil {
		p.total = &record.Record{Total: true}
	}
	d := p.data()
	return page.Execute(w, d)
}

// data is what the template shows.
type data struct {
	Title, Period, Grouping, Version string
	Empty                            string // no events, in words
	Files                            string
	Cards                            []card
	Outcomes                         []outcomeCount
	Charts                           []chart
	Head                             []headCell
	Rows                             []row
	Folded                           string
	Parts                            bool // rows of a breakdown
	Problems                         []problem
	MoreProblems                     int
}

// card is one headline number. Bad: the value counts failures, and is
// red with its note; BadNote: only the note says something went wrong.
type card struct {
	Metric, Label, Value, Note string
	Bad, BadNote               bool
}

type outcomeCount struct {
	Name, N, Color string
}

type headCell struct {
	Text  string
	Right bool
	Wrap  bool
}

type row struct {
	Cells []headCell
	Total bool
	Other bool
	Part  bool // a row of a group's breakdown (one model)
}

type problem struct {
	Text, Command string
}

func (p *Page) data() *data {
	t := p.total
	d := &data{Version: p.o.Version}
	d.Period = p.period()
	d.Title = "Agent runs"
	if d.Period != "" {
		d.Title += ", " + d.Period
	}
	if t.Counts[record.Events] == 0 {
		w := p.o.Window
		w.Loc, w.TZName = p.o.Loc, p.o.TZName
		no := w.NoEvents()
		d.Empty = strings.ToUpper(no[:1]) + no[1:] + "."
	}
	var by []string
	for _, k := range p.o.Keys {
		by = append(by, k.Name)
	}
	if len(by) == 0 {
		d.Grouping = "all events together"
	} else {
		d.Grouping = fmt.Sprintf("grouped by %s · %s", strings.Join(by, ", "), textfmt.Plural(groupCount(p.groups), "group"))
	}
	if t.BreakdownMember != "" && len(t.Breakdown) > 0 {
		d.Grouping += " · broken down by " + t.Breakdown[0].Names[0]
	}
	if len(p.o.Files) > 0 {
		d.Files = strings.Join(p.o.Files, " ")
	}
	d.Cards = p.cards()
	for _, o := range t.Outcomes {
		d.Outcomes = append(d.Outcomes, outcomeCount{o.Name, textfmt.Thousands(o.N), outcomeColor(o.Name)})
	}
	d.Charts = p.charts()
	for i, h := range p.o.Head {
		d.Head = append(d.Head, p.cell(i, h))
	}
	d.Rows, d.Folded = p.rows()
	for _, r := range d.Rows {
		d.Parts = d.Parts || r.Part
	}
	d.Problems, d.MoreProblems = p.problems()
	return d
}

// period is the time the report covers, in the report's zone.
func (p *Page) period() string {
	t := p.total
	if !t.HasTS {
		return ""
	}
	a := time.UnixMicro(t.FirstTS).In(p.o.Loc)
	b := time.UnixMicro(t.LastTS).In(p.o.Loc)
	zone := p.o.TZName
	if zone == "" {
		zone = p.o.Loc.String()
	}
	if a.Format("2006-01-02") == b.Format("2006-01-02") {
		return fmt.Sprintf("%s %s – %s %s", a.Format("2006-01-02"), a.Format("15:04"), b.Format("15:04"), zone)
	}
	return fmt.Sprintf("%s – %s %s", a.Format("2006-01-02 15:04"), b.Format("2006-01-02 15:04"), zone)
}

// cards are the headline's numbers. A total is no failure: its value is
// red only when it counts failures (errors, problems), and the runs that
// did not end ok, the model errors and the tool failures are red in the
// note under their total.
func (p *Page) cards() []card {
	t := p.total
	n := &t.Counts
	num := textfmt.Thousands
	var cards []card
	runs := card{Metric: "runs", Label: "Runs", Value: num(t.Runs)}
	var bad int64
	for _, o := range t.Outcomes {
		if o.Name != "ok" && o.Name != "running" {
			bad += o.N
		}
	}
	if bad > 0 {
		runs.Note = fmt.Sprintf("%s did not end ok", num(bad))
		runs.BadNote = true
	}
	cards = append(cards, runs)
	cost := card{Metric: record.CostNano.ColumnName(), Label: "Cost", Value: "$" + record.CostText(n[record.CostNano])}
	if u := n[record.UnpricedCalls]; u > 0 {
		// a cost that leaves calls out says so where it is read
		cost.Note = fmt.Sprintf("%s (%s tokens) not in the cost: no price", textfmt.PluralThousands(u, "unpriced call"), num(n[record.UnpricedTokens]))
		cost.BadNote = true
	}
	tok := card{Metric: record.TokTotal.ColumnName(), Label: "Tokens", Value: num(n[record.TokTotal])}
	if in := n[record.TokInput]; in > 0 {
		tok.Note = fmt.Sprintf("%s%% of input from cache", percent(n[record.TokCacheRead], in))
	}
	if u := n[record.NoUsageCalls]; u > 0 {
		// calls the log has no tokens of: not free, not known
		if t.UsageUnknown() {
			cost.Value, tok.Value = "unknown", "unknown"
		}
		note := textfmt.PluralThousands(u, "model call") + " with no usage recorded"
		if cost.Note != "" {
			note = cost.Note + "; " + note
		}
		cost.Note, cost.BadNote = note, true
		tok.Note, tok.BadNote = textfmt.PluralThousands(u, "model call")+" with no usage recorded", true
	}
	cards = append(cards, cost)
	cards = append(cards, tok)
	mc := card{Metric: record.ModelCalls.ColumnName(), Label: "Model calls", Value: num(n[record.ModelCalls])}
	if e := n[record.ModelErrors]; e > 0 {
		mc.Note, mc.BadNote = textfmt.PluralThousands(e, "error"), true
	}
	cards = append(cards, mc)
	tc := card{Metric: record.ToolCalls.ColumnName(), Label: "Tool calls", Value: num(n[record.ToolCalls])}
	if f := n[record.ToolFailures]; f > 0 {
		tc.Note, tc.BadNote = textfmt.PluralThousands(f, "failure"), true
	}
	cards = append(cards, tc)
	// The kills and guardrails only when some: the kills are killed
	// events, which the logs evimport reads never write, and "0 kills"
	// read as a contradiction beside the outcomes' "killed 21".
	var parts []string
	for _, c := range []struct {
		n    int64
		what string
	}{{n[record.Kills], "kill"}, {n[record.Guardrails], "guardrail"}} {
		if c.n > 0 {
			parts = append(parts, textfmt.PluralThousands(c.n, c.what))
		}
	}
	cards = append(cards, card{Metric: record.Errors.ColumnName(), Label: "Errors", Value: num(n[record.Errors]), Bad: n[record.Errors] > 0,
		Note: strings.Join(parts, ", ")})
	cards = append(cards, card{Metric: "problems", Label: "Problems", Value: num(int64(len(t.Problems))), Bad: len(t.Problems) > 0})
	return cards
}

// rows are the group table: every group up to MaxRows (the costliest
// when there are more; over time, the latest), the rest folded into one
// row of their sums, then the total.
func (p *Page) rows() ([]row, string) {
	if p.o.Cells == nil {
		return nil, ""
	}
	gs := p.groups
	var folded []*record.Record
	if len(gs) > p.o.MaxRows {
		switch {
		case p.o.Sorted:
			gs, folded = gs[:p.o.MaxRows], gs[p.o.MaxRows:]
		case p.overTime():
			folded, gs = gs[:len(gs)-p.o.MaxRows], gs[len(gs)-p.o.MaxRows:]
		default:
			byCost := slices.Clone(gs)
			slices.SortStableFunc(byCost, func(a, b *record.Record) int {
				return cmp.Compare(b.Counts[record.CostNano], a.Counts[record.CostNano])
			})
			keep := map[*record.Record]bool{}
			for _, g := range byCost[:p.o.MaxRows] {
				keep[g] = true
			}
			var kept []*record.Record
			for _, g := range gs {
				if keep[g] {
					kept = append(kept, g)
				} else {
					folded = append(folded, g)
				}
			}
			gs = kept
		}
	}
	var rows []row
	cells := func(r *record.Record, total bool) row {
		var cs []headCell
		for i, c := range p.o.Cells(r) {
			cs = append(cs, p.cell(i, c))
		}
		return row{Cells: cs, Total: total, Other: r.Other > 0, Part: r.Nested}
	}
	// a group's row, then the rows of its breakdown
	add := func(r *record.Record, total bool) {
		rows = append(rows, cells(r, total))
		for i := range r.Breakdown {
			rows = append(rows, cells(&r.Breakdown[i], false))
		}
	}
	for _, g := range gs {
		add(g, false)
	}
	note := ""
	if len(folded) > 0 {
		// Other marks the sum as the folded groups' row, so its cells name
		// it as every view names the groups past --top, whatever the keys.
		other := sum(folded)
		other.Other = groupCount(folded)
		rows = append(rows, cells(other, false))
		switch {
		case p.o.Sorted:
			note = "The last " + areFolded(len(folded), "group", " in this order") + "; evsum --format jsonl or csv lists them all."
		case p.overTime():
			note = "The " + areFolded(len(folded), "earliest period", "") + "."
		default:
			note = "The " + areFolded(len(folded), "group", " of least cost") + "; evsum --format jsonl or csv lists them all."
		}
	}
	add(p.total, true)
	return rows, note
}

// cell is column i's cell of text s.
func (p *Page) cell(i int, s string) headCell {
	return headCell{s, i < len(p.o.Right) && p.o.Right[i], i < len(p.o.Wrap) && p.o.Wrap[i]}
}

// groupCount is how many groups the records are: the record of the groups
// past --top is as many as it folds.
func groupCount(rs []*record.Record) int64 {
	n := int64(0)
	for _, r := range rs {
		n += max(r.Other, 1)
	}
	return n
}

// areFolded says that n of what are folded into one row: "3 groups of
// least cost are folded into one row", "1 group ... is".
func areFolded(n int, what, of string) string {
	verb := " are"
	if n == 1 {
		verb = " is"
	}
	return textfmt.Plural(int64(n), what) + of + verb + " folded into one row"
}

// sum adds records up into one: counters, runs, outcomes, tools and the
// wall-time sum; the percentiles of several groups cannot be added and
// are left out.
func sum(rs []*record.Record) *record.Record {
	o := &record.Record{Names: []string{"group"}, Vals: []string{`"other"`}}
	outcomes := map[string]int64{}
	tools := map[string]*record.ToolStat{}
	for _, r := range rs {
		for i := range o.Counts {
			o.Counts[i] += r.Counts[i]
		}
		o.Runs += r.Runs
		o.WallSumUS += r.WallSumUS
		if r.HasTS {
			if !o.HasTS || r.FirstTS < o.FirstTS {
				o.FirstTS = r.FirstTS
			}
			if !o.HasTS || r.LastTS > o.LastTS {
				o.LastTS = r.LastTS
			}
			o.HasTS = true
		}
		for _, c := range r.Outcomes {
			outcomes[c.Name] += c.N
		}
		for _, t := range r.Tools {
			x := tools[t.Name]
			if x == nil {
				x = &record.ToolStat{Name: t.Name}
				tools[t.Name] = x
			}
			x.Calls += t.Calls
			x.Failed += t.Failed
		}
		o.Problems = append(o.Problems, r.Problems...)
	}
	for _, name := range slices.Sorted(maps.Keys(outcomes)) {
		o.Outcomes = append(o.Outcomes, record.Count{Name: name, N: outcomes[name]})
	}
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		o.Tools = append(o.Tools, *tools[name])
	}
	return o
}

// problems lists the total's problems with the command that extracts the
// run each names.
func (p *Page) problems() ([]problem, int) {
	var out []problem
	ps := p.total.Problems
	more := 0
	if len(ps) > p.o.MaxProblems {
		more = len(ps) - p.o.MaxProblems
		ps = ps[:p.o.MaxProblems]
	}
	files := ""
	for _, f := range p.o.Files {
		if f != "-" {
			files += " " + shellQuote(f)
		}
	}
	if files == "" {
		files = " events.jsonl"
	}
	for _, pr := range ps {
		out = append(out, problem{Text: pr.String(), Command: evfilterCommand(pr, files)})
	}
	return out, more
}

// evfilterCommand is the command that extracts the problem's run from
// the files: its id quoted as JSON, as evfilter's expressions read it;
// none for an id too long to name.
func evfilterCommand(pr record.Problem, files string) string {
	if !pr.Named() {
		return ""
	}
	expr := "run_id==" + string(jsontext.AppendString(nil, pr.Run))
	return "evfilter " + shellQuote(expr) + files
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func percent(part, whole int64) string {
	if whole == 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(part)*100/float64(whole), 'f', 0, 64)
}

// knownOutcomes are the outcomes a report knows, in the order the charts
// stack them (ok first), with their colours; another outcome comes after
// them, in grey. Every legend names them beside their colours.
var knownOutcomes = []struct{ name, color string }{
	{"ok", "#2e7d32"}, {"running", "#1565c0"}, {"incomplete", "#ef6c00"}, {"error", "#c62828"}, {"killed", "#6a1b9a"},
}

// outcomeRank is the place of an outcome in that order.
func outcomeRank(name string) int {
	for i, o := range knownOutcomes {
		if o.name == name {
			return i
		}
	}
	return len(knownOutcomes)
}

func outcomeColor(name string) string {
	if i := outcomeRank(name); i < len(knownOutcomes) {
		return knownOutcomes[i].color
	}
	return "#757575"
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"attr": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
}).Parse(pageHTML))
