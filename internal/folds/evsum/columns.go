package evsum

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// A col is one column of the human formats (table, md and html): a
// field's (record.Fields says all there is to know of it) or a group
// key's.
//
// A cell has up to three forms: level 0 is the unfitted table's and md's
// text, which pipes and files get byte for byte as before there was
// fitting; level 1 is a fitted table's (wall times as 1m52s, latencies as
// 1.7s); level 2 is the condensed form a fitted table falls back to when
// the terminal is narrow (tokens as 1.2M, the first time without year and
// seconds). A column without a condensed form shows level 1 at level 2.
type col struct {
	name  string        // in --columns
	field *record.Field // nil for a key's
	key   int           // the group key it shows, -1 for a field's
	// step: a column of durations in a fitted table writes every cell to
	// the step of its largest (withSteps), so that all have one precision.
	step textfmt.Step
	// drop and condense, when not 0, are the fitting steps of the column
	// in its grouping (groupingColumns), over its field's.
	drop, condense int
}

// dropRank is the step at which a narrow table drops the column.
func (c *col) dropRank() int { return cmp.Or(c.drop, c.field.Column.Drop) }

// condenseRank is the step at which a narrow table condenses it.
func (c *col) condenseRank() int { return cmp.Or(c.condense, c.field.Column.Condense) }

// cellCtx is what cells need besides their record.
type cellCtx struct {
	loc    *time.Location
	names  []string // the group's key names, in --by order; none for --by none
	inputs []string // the files read, for the commands a report suggests
	sorted bool     // --sort: the groups are in an order of their own
}

func (c *col) header(fitted bool) string {
	if c.field == nil {
		return c.name
	}
	return c.field.Column.Header(fitted)
}

// numeric: right-aligned.
func (c *col) numeric() bool { return c.field != nil && c.field.Shape.Numeric() }

// alert: red when not 0 (colour).
func (c *col) alert() bool { return c.field != nil && c.field.Column.Alert }

// cut: may be cut with … to fit (group keys, outcomes).
func (c *col) cut() bool { return c.field == nil || c.field.Shape == record.ShapeOutcomes }

// condenses: level 2 differs from level 1.
func (c *col) condenses() bool { return c.field != nil && c.field.Shape.Condenses() }

// fieldColumns are the columns of the fields that have one: the default
// table's in their places (std), then the others in the record's order.
func fieldColumns() (std, extra []col) {
	for i := range record.Fields {
		f := &record.Fields[i]
		switch {
		case f.Column.Name == "":
		case f.Column.Place > 0:
			std = append(std, col{name: f.Column.Name, field: f, key: -1})
		default:
			extra = append(extra, col{name: f.Column.Name, field: f, key: -1})
		}
	}
	slices.SortStableFunc(std, func(a, b col) int { return cmp.Compare(a.field.Column.Place, b.field.Column.Place) })
	return std, extra
}

// columnNames are the names --columns takes for the fields, in the order
// its errors list them: the default table's, then the others.
func columnNames() []string {
	std, extra := fieldColumns()
	var names []string
	for _, c := range append(std, extra...) {
		names = append(names, c.name)
	}
	return names
}

// fieldText is column c's cell of field f for r at level. Counts have
// their thousands grouped, and only a condensed column is in k and M
// (textfmt's rule); durations are at the column's step in a fitted table,
// and in plain seconds to the hundredth or in whole milliseconds in md,
// html and the unfitted table, whose headers give the unit.
func (c *col) fieldText(r *record.Record, cx *cellCtx, level int) string {
	f := c.field
	if f.Shape == record.ShapeOutcomes {
		return term.Escape(outcomesText(r))
	}
	v := f.Value(r)
	switch {
	case !v.Has:
		return "-"
	case f.Shape == record.ShapeTime:
		layout := "2006-01-02 15:04:05"
		if level == 2 {
			layout = "01-02 15:04"
		}
		return time.UnixMicro(v.I).In(cx.loc).Format(layout)
	case f.Shape == record.ShapeTokens && level == 2:
		return textfmt.Compact(v.I)
	case f.Shape == record.ShapeMoney:
		return record.CostText(v.I)
	case f.Shape == record.ShapeSeconds && level > 0:
		return textfmt.Duration(micros(v, f.Scale, 1e6), c.step)
	case f.Shape == record.ShapeMillis && level > 0:
		return textfmt.Duration(micros(v, f.Scale, 1e3), c.step)
	case f.Shape == record.ShapeSeconds:
		return textfmt.Decimal(floatOf(v, f.Scale), 2)
	case f.Shape == record.ShapeMillis:
		return textfmt.Decimal(floatOf(v, f.Scale), 0)
	case v.Float:
		return textfmt.Decimal(v.F, 2)
	case f.Scale > 0:
		return string(f.AppendNumber(nil, v))
	}
	return textfmt.Thousands(v.I)
}

// micros is a duration value in microseconds; unit is how many a unit of
// the value is.
func micros(v record.Value, scale int, unit float64) int64 {
	return int64(math.Round(floatOf(v, scale) * unit))
}

// withSteps are cols with the step of each column of durations set to its
// largest value's over the rows each gives.
func withSteps(cols []col, each func(func(*record.Record) error) error) []col {
	cols = slices.Clone(cols)
	largest := make([]int64, len(cols))
	each(func(r *record.Record) error {
		for i, c := range cols {
			if c.field == nil {
				continue
			}
			unit := 0.0
			switch c.field.Shape {
			case record.ShapeSeconds:
				unit = 1e6
			case record.ShapeMillis:
				unit = 1e3
			}
			if v := c.field.Value; unit > 0 && v(r).Has {
				us := micros(v(r), c.field.Scale, unit)
				largest[i] = max(largest[i], us, -us)
			}
		}
		return nil
	})
	for i := range cols {
		cols[i].step = textfmt.StepOf(largest[i])
	}
	return cols
}

// floatOf is v as a float: an integer in units of 10^-scale divided out.
func floatOf(v record.Value, scale int) float64 {
	if v.Float {
		return v.F
	}
	return float64(v.I) / math.Pow10(scale)
}

// keyColumns are the columns of the group's keys: one per --by key, named
// as in the JSON's group object, or one "group" column for --by none
// (empty but on the total row).
func keyColumns(names []string) []col {
	if len(names) == 0 {
		return []col{{name: "group", key: 0}}
	}
	var cols []col
	for i, n := range names {
		cols = append(cols, col{name: n, key: i})
	}
	return cols
}

// keyCell is the cell of the group's key k: "total" on the total row,
// the value as people read it (strings without quotes), and
// "(no KEY)" for the events without a value of it; the first key's cell
// says "other (N groups)" for the groups past --top, and "↳ model" on a
// row of a breakdown.
func keyCell(r *record.Record, k int) string {
	switch {
	case r.Nested && k == 0:
		return term.Escape(partText(r))
	case r.Other > 0 && k == 0:
		return otherText(r)
	case r.Nested || r.Other > 0:
		return ""
	case r.Total && k == 0:
		return "total"
	case r.Total || len(r.Vals) == 0:
		return ""
	}
	return term.Escape(r.KeyText(k))
}

// cell is column c's text for r at level.
func (c *col) cell(r *record.Record, cx *cellCtx, level int) string {
	if c.key >= 0 {
		return keyCell(r, c.key)
	}
	return c.fieldText(r, cx, level)
}

// defaultColumns are the keys' columns and then the columns the grouping
// fills (groupingColumns), or every standard column.
func defaultColumns(names []string, by []summary.Key) []col {
	std, extra := fieldColumns()
	pick := groupingColumns(by)
	if pick == nil {
		return append(keyColumns(names), std...)
	}
	cols := keyColumns(names)
	for _, p := range pick {
		for _, c := range append(std, extra...) {
			if c.name == p.name {
				c.drop, c.condense = p.drop, p.condense
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// picked is a column of groupingColumns, with the steps a narrow table
// drops and condenses it at, which are the grouping's (see
// record.Column's Drop): 0, its field's.
type picked struct {
	name           string
	drop, condense int
}

// groupingColumns are the columns a grouping of events rather than runs
// fills, in their order; nil for the groupings of runs (run, agent, the
// periods, session, project, source, host, none), which fill every standard
// column. By tool, kind, model or a field, a group's outcomes and wall
// times are none (a run's would only repeat in each of its groups): those
// columns would be empty on every row, and took the room of what the
// grouping is for, which a narrow table now keeps longest: the tool
// calls, failures and events of each tool, each kind's events, each
// model's calls, tokens, cost and latency. The unpriced calls, where
// there are some, follow the cost as in the standard table.
func groupingColumns(by []summary.Key) []picked {
	has := func(kind summary.KeyKind) bool {
		return slices.ContainsFunc(by, func(k summary.Key) bool { return k.Kind == kind })
	}
	// the counters' columns are named by the counter table
	events, models, modelErrors := record.Events.ColumnName(), record.ModelCalls.ColumnName(), record.ModelErrors.ColumnName()
	tokens, cost, errs := record.TokTotal.ColumnName(), record.CostNano.ColumnName(), record.Errors.ColumnName()
	tools, failed := record.ToolCalls.ColumnName(), record.ToolFailures.ColumnName()
	unpriced, unpricedTok, noUsage := record.UnpricedCalls.ColumnName(), record.UnpricedTokens.ColumnName(), record.NoUsageCalls.ColumnName()
	switch {
	case has(summary.KeyTool):
		return []picked{{"first", 100, 50}, {"runs", 150, 0}, {events, 200, 0}, {tools, 350, 0}, {failed, 300, 0}, {errs, 250, 0}}
	case has(summary.KeyKindField):
		return []picked{{"first", 100, 50}, {"last", 90, 60}, {"runs", 150, 0}, {events, 350, 0}, {tools, 300, 0}, {failed, 250, 0}, {errs, 200, 0}}
	case has(summary.KeyModel):
		return []picked{{"first", 100, 50}, {"runs", 150, 0}, {events, 160, 0}, {models, 320, 0}, {modelErrors, 180, 0},
			{tokens, 0, 130}, {cost, 350, 0}, {unpriced, 0, 0}, {unpricedTok, 0, 0}, {noUsage, 0, 0},
			{"latency_p50", 190, 0}, {"latency_p95", 170, 0}, {errs, 200, 0}}
	case slices.ContainsFunc(by, summary.Key.NamesEvents):
		// payload.x, an agent's role: as the standard table, less the
		// outcomes and wall times
		var cols []picked
		for _, n := range []string{"first", "runs", events, models, tokens, cost, unpriced, unpricedTok, noUsage,
			tools, failed, errs, "latency_p50", "latency_p95", "problems"} {
			cols = append(cols, picked{name: n})
		}
		return cols
	}
	return nil
}

// shownColumns are the default columns cols that st has something to
// show in: a Sparse one (the unpriced calls) only when it counted some.
func shownColumns(cols []col, st *summary.State) []col {
	shown := cols[:0:0]
	for _, c := range cols {
		if c.field == nil || c.field.Shown(st) {
			shown = append(shown, c)
		}
	}
	return shown
}

// parseColumns reads a --columns list: column names, in the order to show
// them. "group" stands for all the key columns; a key's column is named
// as in the group object (run_id, agent_id, day, payload.model) or by its
// --by word (run, agent).
func parseColumns(list string, names []string, by []summary.Key) ([]col, error) {
	keys := keyColumns(names)
	byName := map[string][]col{"group": keys}
	var known []string
	if len(names) > 0 {
		known = append(known, "group")
	}
	for i, k := range keys {
		byName[k.name] = keys[i : i+1]
		known = append(known, k.name)
	}
	for _, k := range by {
		// a key's column is also named by its --by word: run for run_id
		if w := summary.ByString([]summary.Key{k}); w != k.Name {
			if _, taken := byName[w]; !taken {
				byName[w] = byName[k.Name]
			}
		}
	}
	std, extra := fieldColumns()
	for _, set := range [][]col{std, extra} {
		for i, c := range set {
			byName[c.name] = set[i : i+1]
			known = append(known, c.name)
		}
	}
	var cols []col
	seen := map[string]bool{}
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		cs, ok := byName[w]
		switch {
		case w == "":
			return nil, fmt.Errorf("--columns %q: empty column name", list)
		case !ok && isKeyWord(w):
			grouped := "not grouped (--by none)"
			if len(names) > 0 {
				grouped = "grouped by " + strings.Join(names, ",")
			}
			return nil, fmt.Errorf("--columns %q: %q is not a column: the report is %s", list, w, grouped)
		case !ok:
			return nil, fmt.Errorf("--columns %q: %q is not a column%s: one of %s", list, w, record.DidYouMean(w, known), strings.Join(known, ", "))
		}
		for _, c := range cs {
			if seen[c.name] {
				return nil, fmt.Errorf("--columns %q: %s given twice", list, c.name)
			}
			seen[c.name] = true
			cols = append(cols, c)
		}
	}
	return cols, nil
}

// isKeyWord reports whether w names a grouping: a --by word, or the key
// column one makes.
// (none, which groups nothing, makes no key column).
func isKeyWord(w string) bool {
	return w != "none" && slices.Contains(summary.ByWords(), w) || slices.Contains(keyColumnWords(), w)
}

// cellWidth is how many terminal cells s takes: wide East Asian characters
// and emoji two, combining marks and joiners none.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

// runeCells is how many terminal cells r takes.
func runeCells(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, joiners, unicode.Mn, unicode.Me):
		return 0
	case unicode.Is(wide, r):
		return 2
	}
	return 1
}

// joiners are the format characters a terminal shows in no cell: the
// zero-width space and joiner, and the variation selectors.
var joiners = &unicode.RangeTable{R16: []unicode.Range16{{0x200b, 0x200b, 1}, {0x200d, 0x200d, 1}, {0xfe00, 0xfe0f, 1}}}

// wide are the runes a terminal shows two cells wide: East Asian wide
// and full-width ones (Hangul, CJK, kana, full-width forms) and the
// emoji blocks.
var wide = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x1100, 0x115f, 1}, {0x2329, 0x232a, 1}, {0x2e80, 0x303e, 1}, {0x3040, 0xa4cf, 1},
		{0xac00, 0xd7a3, 1}, {0xf900, 0xfaff, 1}, {0xfe30, 0xfe6f, 1}, {0xff00, 0xff60, 1}, {0xffe0, 0xffe6, 1},
	},
	R32: []unicode.Range32{{0x1f300, 0x1f64f, 1}, {0x1f900, 0x1f9ff, 1}, {0x20000, 0x3fffd, 1}},
}

// cutMiddle cuts s to at most w cells as cutText does, but with … in its
// middle: the ids of runs and sessions tell each other apart by their
// ends (evimport's SESSION/1 and SESSION/2), which a cut at the end lost,
// leaving two rows with the same text.
func cutMiddle(s string, w int) string {
	if cellWidth(s) <= w || w < 5 {
		return cutText(s, w)
	}
	rs := []rune(s)
	tail, n := len(rs), 0
	for tail > 0 && n+runeCells(rs[tail-1]) <= (w-1)/2 {
		tail--
		n += runeCells(rs[tail])
	}
	return strings.TrimSuffix(cutText(string(rs[:tail]), w-n), "…") + "…" + string(rs[tail:])
}

// midCut: the column's cells are ids cut in the middle (cutMiddle).
func (c *col) midCut() bool { return c.key >= 0 && (c.name == "run_id" || c.name == "session") }

// cutText cuts s to at most w cells, ending it with … when it was longer.
func cutText(s string, w int) string {
	if cellWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		c := runeCells(r)
		if n+c > w-1 {
			break
		}
		b.WriteRune(r)
		n += c
	}
	return b.String() + "…"
}
