package record

import (
	"slices"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// Field is one member of the report's record after its group, described
// once, by its row in Fields: the JSON record, the csv columns, the names
// --sort takes, the columns of the table, md and html, and the word lists
// of --help, the man page and the completion scripts are all derived from
// that table. A new field is a row there (and, when it is a new counter, a
// row of Counters).
type Field struct {
	// Path is its place in the record, objects joined by dots
	// (tokens.input, wall_seconds.p50): its JSON member, its csv column's
	// head, and its name for --sort.
	Path string
	// Shape says what its value is, and so how each format shows it.
	Shape Shape
	// Scale: an integer value holds units of 10^-Scale (cost: 9,
	// nano-dollars; times: 6, microseconds), written as a decimal.
	Scale int
	// Runs: a run-level field: a record needs its runs to say it.
	Runs bool
	// Column is its column in the table, md and html; none when its Name
	// is empty.
	Column Column
	// Value is one record's value of it; nil for the outcomes and the
	// tools, objects of names, which are not one number. The problems'
	// value is their number.
	Value func(r *Record) Value

	counter   Counter // the counter it is, when isCounter
	isCounter bool
	usage     bool // tokens or cost: none when the record's usage is not known (Record.UsageUnknown)
}

// Shape says what a field's value is.
type Shape uint8

// The shapes of the fields.
const (
	ShapeCount    Shape = iota // an integer: events, runs
	ShapeTokens                // a count of tokens: condensed to 1.2M in a narrow table
	ShapeMoney                 // a cost in nano-dollars (Scale 9): 4 decimals for people
	ShapeTime                  // a Unix time: a date for people, without year and seconds when condensed
	ShapeSeconds               // a duration in seconds: 1m52s in a fitted table
	ShapeMillis                // a duration in milliseconds: 850ms or 1.73s in a fitted table
	ShapeOutcomes              // the runs' outcomes: a count per name
	ShapeTools                 // each tool's calls and failures
	ShapeProblems              // the broken invariants, a sentence each; counted where a number goes
)

// Condenses reports whether a value of the shape has a condensed form, which
// a fitted table falls back to when the terminal is narrow.
func (s Shape) Condenses() bool { return s == ShapeTokens || s == ShapeTime }

// Numeric reports whether the shape is shown as a number, aligned right.
func (s Shape) Numeric() bool { return s != ShapeTime && s != ShapeOutcomes && s != ShapeTools }

// Column describes a field's column in the table, md and html.
type Column struct {
	// Name is the column's name in --columns, and another name --sort
	// takes for the field (a counter's comes from the counter table:
	// counterField).
	Name string
	// Head is its header in the unfitted table, md and html (Name with
	// spaces for underscores when empty); FitHead its header in a fitted
	// table, when it differs.
	Head, FitHead string
	// Place is its place among the default table's columns, 1 first; 0:
	// shown only when --columns names it.
	Place int
	// Alert: red in a coloured table when not 0.
	Alert bool
	// Sparse: a default column shown only when the report's counter is
	// not 0 anywhere (State.Has), as the unpriced calls, which most
	// reports never have; --columns shows it always.
	Sparse bool
	// Condense and Drop are the steps at which a table fitted to a narrow
	// terminal condenses the column (a shape that Condenses) and drops it
	// (0: never); the widest and least important go first. At step
	// FitCut the group keys and the outcomes are cut down.
	Condense, Drop int
	// OnePerRun: the value is 1 on every row grouped by run alone, and
	// the first column to go there.
	OnePerRun bool
}

// FitCut is the step of a fitted table's fitting (see Column.Drop) that
// cuts the group keys and the outcomes down to their minimum.
const FitCut = 330

// Header is the column's header: fitted, a fitted table's.
func (c *Column) Header(fitted bool) string {
	switch {
	case fitted && c.FitHead != "":
		return c.FitHead
	case c.Head != "":
		return c.Head
	}
	return strings.ReplaceAll(c.Name, "_", " ") // model_calls: "model calls"
}

func intValue(v int64) Value { return Value{I: v, Has: true} }

func statValue(s *Stats, v *float64) Value { return Value{F: *v, Float: true, Has: s.Has} }

// Fields are the record's fields, in the record's order. What is derived
// from them is derived once: a field is added by AddField, not by hand.
var Fields = []Field{
	counterField(Events, ShapeCount, Column{Place: 3, Drop: 200}),
	{Path: "runs", Runs: true, Column: Column{Name: "runs", Place: 2, Drop: 240, OnePerRun: true},
		Value: func(r *Record) Value { return intValue(r.Runs) }},
	{Path: "first_ts", Shape: ShapeTime, Scale: 6, Column: Column{Name: "first", Place: 1, Condense: 70, Drop: 250},
		Value: func(r *Record) Value { return Value{I: r.FirstTS, Has: r.HasTS} }},
	{Path: "last_ts", Shape: ShapeTime, Scale: 6, Column: Column{Name: "last", Condense: 80, Drop: 230},
		Value: func(r *Record) Value { return Value{I: r.LastTS, Has: r.HasTS} }},
	{Path: "outcomes", Shape: ShapeOutcomes, Runs: true, Column: Column{Name: "outcomes", Place: 4}},
	counterField(ModelCalls, ShapeCount, Column{Place: 5, Drop: 120}),
	counterField(ModelErrors, ShapeCount, Column{Alert: true, Drop: 110}),
	usageField(TokInput, ShapeTokens, Column{Condense: 140, Drop: 280}),
	usageField(TokOutput, ShapeTokens, Column{Condense: 150, Drop: 290}),
	usageField(TokReasoning, ShapeTokens, Column{Condense: 155, Drop: 185}),
	usageField(TokCacheRead, ShapeTokens, Column{Condense: 160, Drop: 190}),
	usageField(TokCacheWrite, ShapeTokens, Column{Condense: 170, Drop: 180}),
	usageField(TokCacheWrite1h, ShapeTokens, Column{FitHead: "cache 1h", Condense: 175, Drop: 178}),
	usageField(TokTotal, ShapeTokens, Column{Place: 6, Condense: 130, Drop: 348}),
	usageField(CostNano, ShapeMoney, Column{Head: "cost $", Place: 7, Drop: 350}),
	// A cost that leaves calls out says so beside it (Sparse: shown by
	// default only then).
	counterField(UnpricedCalls, ShapeCount, Column{FitHead: "unpriced",
		Place: 8, Sparse: true, Alert: true, Drop: 345}),
	counterField(UnpricedTokens, ShapeTokens, Column{FitHead: "unpr tok",
		Place: 9, Sparse: true, Condense: 135, Drop: 195}),
	// so do calls whose log records no usage (Sparse too)
	counterField(NoUsageCalls, ShapeCount, Column{Head: "calls without usage", FitHead: "no usage",
		Place: 9, Sparse: true, Alert: true, Drop: 344}),
	counterField(ToolCalls, ShapeCount, Column{Place: 10, Drop: 210}),
	counterField(ToolFailures, ShapeCount, Column{Place: 11, Alert: true, Drop: 260}),
	{Path: "tools", Shape: ShapeTools},
	counterField(Errors, ShapeCount, Column{Place: 12, Alert: true, Drop: 320}),
	counterField(Guardrails, ShapeCount, Column{Drop: 220}),
	counterField(Kills, ShapeCount, Column{Alert: true, Drop: 270}),
	{Path: "wall_seconds.sum", Shape: ShapeSeconds, Scale: 6, Runs: true,
		Column: Column{Name: "wall_sum", Head: "wall sum s", FitHead: "wall sum", Drop: 90},
		Value:  func(r *Record) Value { return Value{I: r.WallSumUS, Has: r.Wall.Has} }},
	{Path: "wall_seconds.p50", Shape: ShapeSeconds, Runs: true,
		Column: Column{Name: "wall_p50", Head: "wall p50 s", FitHead: "wall p50", Place: 13, Drop: 300},
		Value:  func(r *Record) Value { return statValue(&r.Wall, &r.Wall.P50) }},
	{Path: "wall_seconds.p95", Shape: ShapeSeconds, Runs: true,
		Column: Column{Name: "wall_p95", Head: "wall p95 s", FitHead: "wall p95", Place: 14, Drop: 50},
		Value:  func(r *Record) Value { return statValue(&r.Wall, &r.Wall.P95) }},
	{Path: "wall_seconds.max", Shape: ShapeSeconds, Runs: true,
		Column: Column{Name: "wall_max", Head: "wall max s", FitHead: "wall max", Drop: 60},
		Value:  func(r *Record) Value { return statValue(&r.Wall, &r.Wall.Max) }},
	{Path: "latency_ms.p50", Shape: ShapeMillis,
		Column: Column{Name: "latency_p50", Head: "latency p50 ms", FitHead: "lat p50", Place: 15, Drop: 100},
		Value:  func(r *Record) Value { return statValue(&r.Latency, &r.Latency.P50) }},
	{Path: "latency_ms.p95", Shape: ShapeMillis,
		Column: Column{Name: "latency_p95", Head: "latency p95 ms", FitHead: "lat p95", Place: 16, Drop: 30},
		Value:  func(r *Record) Value { return statValue(&r.Latency, &r.Latency.P95) }},
	{Path: "latency_ms.max", Shape: ShapeMillis,
		Column: Column{Name: "latency_max", Head: "latency max ms", FitHead: "lat max", Drop: 40},
		Value:  func(r *Record) Value { return statValue(&r.Latency, &r.Latency.Max) }},
	{Path: "problems", Shape: ShapeProblems, Runs: true, Column: Column{Name: "problems", Place: 17, Alert: true, Drop: 340},
		Value: func(r *Record) Value { return intValue(int64(len(r.Problems))) }},
}

// counterField is the field of counter c: its path, scale and column's
// name are the counter table's.
func counterField(c Counter, shape Shape, col Column) Field {
	col.Name = c.ColumnName()
	return Field{Path: c.Path(), Shape: shape, Scale: Counters[c].Scale, Column: col,
		Value: func(r *Record) Value { return intValue(r.Counts[c]) }, counter: c, isCounter: true}
}

// usageField is counterField for tokens and cost, which a record whose
// calls' usage is not known has none of: unknown, not 0.
func usageField(c Counter, shape Shape, col Column) Field {
	f := counterField(c, shape, col)
	f.usage = true
	f.Value = func(r *Record) Value { return Value{I: r.Counts[c], Has: !r.UsageUnknown()} }
	return f
}

// AddField appends f to Fields, before any report is made: a field a
// program computes from the others shows up in every format as the
// record's own do. The function it returns takes f away again.
func AddField(f Field) (remove func()) {
	old := Fields
	Fields = append(slices.Clip(old), f)
	schema = newSchemaIndex()
	return func() {
		Fields = old
		schema = newSchemaIndex()
	}
}

// Shown reports whether the default table, md and html of s show the
// field's column: always, unless it is Sparse and s counted nothing for it.
func (f *Field) Shown(s interface{ Has(Counter) bool }) bool {
	return !f.Column.Sparse || f.isCounter && s.Has(f.counter)
}

// place is the object the field is a member of ("" for the record) and
// its name in it (input for tokens.input).
func (f *Field) place() (object, member string) {
	i := strings.LastIndexByte(f.Path, '.')
	return f.Path[:max(i, 0)], f.Path[i+1:]
}

// AppendNumber appends v, a value of f, as a JSON number: null when the
// record has none.
func (f *Field) AppendNumber(b []byte, v Value) []byte {
	switch {
	case !v.Has:
		return append(b, "null"...)
	case v.Float:
		return strconv.AppendFloat(b, v.F, 'f', -1, 64)
	case f.Scale > 0:
		return jsontext.AppendFixed(b, v.I, f.Scale)
	}
	return strconv.AppendInt(b, v.I, 10)
}

// schemaIndex is what is derived from Fields once: the JSON record's
// members with the bytes before each, and the names --sort takes.
type schemaIndex struct {
	members []recordMember
	tail    string // closes the last object
	// sortFields are the fields --sort takes, by path; sortAliases their
	// columns' names where these differ, mapped to the path; sortNames
	// the paths in the record's order.
	sortFields  map[string]*SortField
	sortAliases map[string]string
	sortNames   []string
	// outcomes and tools are the paths of the objects of names, whose
	// members --sort takes as outcomes.NAME and tools.NAME.calls.
	outcomes, tools string
	problems        int // the problems' member, which a record writes apart
}

// recordMember is one field in the JSON record: lead is what comes before its
// value (the comma, the objects closed and opened, its name).
type recordMember struct {
	lead  string
	field *Field
}

var schema = newSchemaIndex()

func newSchemaIndex() *schemaIndex {
	x := &schemaIndex{sortFields: map[string]*SortField{}, sortAliases: map[string]string{}}
	open := "" // the object the last member is in
	for i := range Fields {
		f := &Fields[i]
		lead := ","
		o, member := f.place()
		if o != open {
			if open != "" {
				lead = "},"
			}
			if o != "" {
				lead += `"` + o + `":{`
			}
			open = o
		}
		l := lead + `"` + member + `":`
		x.members = append(x.members, recordMember{lead: l, field: f})
		switch f.Shape {
		case ShapeOutcomes:
			x.outcomes = f.Path
		case ShapeTools:
			x.tools = f.Path
		case ShapeProblems:
			x.problems = i
		}
		if f.Value == nil {
			continue
		}
		x.sortFields[f.Path] = &SortField{Name: f.Path, Runs: f.Runs, Value: f.Value}
		x.sortNames = append(x.sortNames, f.Path)
		if c := f.Column.Name; c != "" && c != f.Path {
			x.sortAliases[c] = f.Path
		}
	}
	if open != "" {
		x.tail = "}"
	}
	return x
}
