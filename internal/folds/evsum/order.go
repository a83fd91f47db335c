package evsum

import (
	"fmt"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// sortFlag is --sort's value. It takes the next argument even when it
// starts with a dash, so that --sort -cost_usd reads as it is written
// (kong would take -cost_usd for short flags); an argument starting with
// two dashes is the next flag, not a field.
type sortFlag string

func (f *sortFlag) Decode(ctx *kong.DecodeContext) error {
	t := ctx.Scan.Peek()
	s, ok := t.Value.(string)
	switch {
	case t.IsEOL() || !ok:
		return fmt.Errorf("expected a field (--sort -cost_usd)")
	case strings.HasPrefix(s, "--") && !t.IsValue():
		return fmt.Errorf("expected a field but got the flag %s (--sort -cost_usd)", s)
	}
	ctx.Scan.Pop()
	*f = sortFlag(s)
	return nil
}

// reportOrder reads --sort and --top; an error is the user's.
func reportOrder(opts *options) (summary.Order, error) {
	var o summary.Order
	if opts.Top < 0 {
		return o, fmt.Errorf("--top %d: the number of groups to show (0 for all)", opts.Top)
	}
	o.Top = opts.Top
	if opts.Sort != "" {
		f, err := record.ParseSort(string(opts.Sort))
		if err != nil {
			return o, err
		}
		o.Sort = f
	}
	return o, nil
}

// eachRow calls fn with each row of the report in order: each record,
// and after a record with a breakdown the records of its parts (Nested).
func eachRow(st *summary.State, fn func(*record.Record) error) error {
	return st.EachRecord(func(r *record.Record) error {
		if err := fn(r); err != nil {
			return err
		}
		for i := range r.Breakdown {
			if err := fn(&r.Breakdown[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// otherText is the label of the groups past --top, folded into one.
func otherText(r *record.Record) string {
	return "other (" + textfmt.Plural(r.Other, "group") + ")"
}

// partText is the label of a row of a breakdown: ↳ and the model, as the
// group keys read (strings without quotes), (no model) for events that
// name none.
func partText(r *record.Record) string {
	return "↳ " + r.KeyText(0)
}

// labelColumn checks that --columns, with a breakdown, shows the column
// its rows are labelled in: the first key's (group, with --by none).
func labelColumn(list string, cols []col, st *summary.State) error {
	if len(st.Options().Breakdown) == 0 || slices.ContainsFunc(cols, func(c col) bool { return c.key == 0 }) {
		return nil
	}
	first := "group"
	if by := st.Options().By; len(by) > 0 {
		first = by[0].Name
	}
	return fmt.Errorf("--columns %q: --breakdown labels its rows in the %s column: show it", list, first)
}
