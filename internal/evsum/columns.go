package evsum

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/evtools/evtools/internal/summary"
	"github.com/evtools/evtools/internal/term"
)

// A col is one column of the human formats (table, md and html): a
// field's (summary.Fields says all there is to know of it) or a group
// key's.
//
// A cell has up to three forms: level 0 is the unfitted table's and md's
// text, which pipes and files get byte for byte as before there was
// fitting; level 1 is a fitted table's (wall times as 1m52s, latencies as
// 1.7s); level 2 is the condensed form a fitted table falls back to when
// the terminal is narrow (tokens as 1.2M, the first time without year and
// seconds). A column without a condensed form shows level 1 at level 2.
type col struct {
	name  string         // in --columns
	field *summary.Field // nil for a key's
	key   int            // the group key it shows, -1 for a field's
}

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
func (c *col) cut() bool { return c.field == nil || c.field.Shape == summary.ShapeOutcomes }

// condenses: level 2 differs from level 1.
func (c *col) condenses() bool { return c.field != nil && c.field.Shape.Condenses() }

// fieldColumns are the columns of the fields that have one: the default
// table's in their places (std), then the others in the record's order.
func fieldColumns() (std, extra []col) {
	for i := range summary.Fields {
		f := &summary.Fields[i]
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

// fieldText is field f's cell for r at level.
func fieldText(f *summary.Field, r *summary.Record, cx *cellCtx, level int) string {
	if f.Shape == summary.ShapeOutcomes {
		return term.Escape(outcomesText(r))
	}
	v := f.Value(r)
	switch {
	case !v.Has:
		return "-"
	case f.Shape == summary.ShapeTime:
		layout := "2006-01-02 15:04:05"
		if level == 2 {
			layout = "01-02 15:04"
		}
		return time.UnixMicro(v.I).In(cx.loc).Format(layout)
	case f.Shape == summary.ShapeTokens && level == 2:
		return siText(v.I)
	case f.Shape == summary.ShapeMoney:
		return summary.CostText(v.I)
	case f.Shape == summary.ShapeSeconds && level > 0:
		return durText(floatOf(v, f.Scale))
	case f.Shape == summary.ShapeMillis && level > 0:
		return msText(floatOf(v, f.Scale))
	}
	return string(f.AppendNumber(nil, v)) // as the JSON has it
}

// floatOf is v as a float: an integer in units of 10^-scale divided out.
func floatOf(v summary.Value, scale int) float64 {
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
// the value as people read it (strings without quotes, null as "-"), and
// (session) for the session's own events by agent; the first key's cell
// says "other (N groups)" for the groups past --top, and "↳ model" on a
// row of a breakdown.
func keyCell(r *summary.Record, k int) string {
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
func (c *col) cell(r *summary.Record, cx *cellCtx, level int) string {
	if c.key >= 0 {
		return keyCell(r, c.key)
	}
	return fieldText(c.field, r, cx, level)
}

// defaultColumns are the keys' columns and then every standard column.
func defaultColumns(names []string) []col {
	std, _ := fieldColumns()
	return append(keyColumns(names), std...)
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
			hint := ""
			if m := nearestWord(w, known); m != "" {
				hint = " (did you mean " + m + "?)"
			}
			return nil, fmt.Errorf("--columns %q: %q is not a column%s: one of %s", list, w, hint, strings.Join(known, ", "))
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
func isKeyWord(w string) bool {
	for _, b := range summary.ByWords() {
		if keys, err := summary.ParseBy(b); err == nil && len(keys) == 1 && (w == b || w == keys[0].Name) {
			return true
		}
	}
	return false
}

// nearestWord is the word of words w is most likely a misspelling of
// (summary.NearestWord: the same measure as --by's suggestions).
func nearestWord(w string, words []string) string { return summary.NearestWord(w, words) }

// durText is a duration in seconds as people read it: 8.39s, 34.6s,
// 1m52s, 2h05m, 3d04h.
func durText(sec float64) string {
	if sec < 0 {
		return "-" + durText(-sec)
	}
	if r := math.Round(sec*100) / 100; r < 10 {
		return strconv.FormatFloat(r, 'f', 2, 64) + "s"
	}
	if r := math.Round(sec*10) / 10; r < 60 {
		return strconv.FormatFloat(r, 'f', 1, 64) + "s"
	}
	if s := int64(math.Round(sec)); s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	if m := int64(math.Round(sec / 60)); m < 24*60 {
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	h := int64(math.Round(sec / 3600))
	return fmt.Sprintf("%dd%02dh", h/24, h%24)
}

// msText is a latency in milliseconds: 850ms below a second, else as
// durText (1.73s).
func msText(ms float64) string {
	if r := math.Round(ms); r < 1000 && ms >= 0 {
		if ms < 10 && ms != r {
			return strconv.FormatFloat(math.Round(ms*10)/10, 'f', -1, 64) + "ms"
		}
		return strconv.FormatFloat(r, 'f', 0, 64) + "ms"
	}
	return durText(ms / 1000)
}

// siText condenses a count from 10,000 on: 35k, 627k, 1.2M, 12M, 3.4B.
func siText(n int64) string {
	if n > -10000 && n < 10000 {
		return itoa(n)
	}
	if n < 0 {
		return "-" + siText(-n)
	}
	f := float64(n)
	units := []struct {
		v float64
		s string
	}{{1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}}
	for i, u := range units {
		x := f / u.v
		if i+1 < len(units) && math.Round(x) >= 1000 {
			continue
		}
		if math.Round(x*10)/10 < 10 {
			return strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64) + u.s
		}
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64) + u.s
	}
	return itoa(n) // not reached
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
