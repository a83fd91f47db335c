package evsum

import (
	"slices"

	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/htmlreport"
	"github.com/evtools/evtools/pkg/jsonl"
)

// writeHTML writes the report as one self-contained page: the headline,
// charts, the table with md's columns, and the problems.
func writeHTML(out *jsonl.Writer, st *summary.State, cx *cellCtx, cols []col) error {
	heads := make([]string, len(cols))
	right, wrap := make([]bool, len(cols)), make([]bool, len(cols))
	for i, c := range cols {
		heads[i], right[i], wrap[i] = c.header(false), c.numeric(), c.cut()
	}
	p := htmlreport.New(htmlreport.Options{
		Keys:    st.Options().By,
		Loc:     st.Options().Loc,
		TZName:  st.Options().TZName,
		Window:  st.Options(),
		Files:   cx.inputs,
		Head:    heads,
		Right:   right,
		Wrap:    wrap,
		Version: cli.Version,
		Sorted:  cx.sorted,
		Cells: func(r *record.Record) []string {
			cells := make([]string, len(cols))
			for i := range cols {
				cells[i] = cols[i].cell(r, cx, 0)
			}
			return cells
		},
	})
	if err := st.EachRecord(func(r *record.Record) error { p.Add(r); return nil }); err != nil {
		return err
	}
	if err := p.Write(out); err != nil {
		return err
	}
	return out.Err()
}

// costFirst are the default columns of the page's table with the tokens
// and the cost (and the unpriced calls beside it) right after the group's
// keys: on a phone the table scrolls sideways with the keys held at the
// left, and the figures the report is read for were off screen.
func costFirst(cols []col) []col {
	first := func(c col) bool {
		return c.key < 0 && slices.ContainsFunc([]record.Counter{record.TokTotal, record.CostNano, record.UnpricedCalls, record.UnpricedTokens, record.NoUsageCalls},
			func(k record.Counter) bool { return k.ColumnName() == c.name })
	}
	var keys, main, rest []col
	for _, c := range cols {
		switch {
		case c.key >= 0:
			keys = append(keys, c)
		case first(c):
			main = append(main, c)
		default:
			rest = append(rest, c)
		}
	}
	return slices.Concat(keys, main, rest)
}
