package record

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/core/textfmt"
)

// Value is one record's value of a field: an integer (in units of
// 10^-Scale), or a float (percentiles); Has is false for a value the
// record has none of (null in JSON).
type Value struct {
	I     int64
	F     float64
	Float bool
	Has   bool
}

// A SortField is a numeric field of a record to sort the groups by
// (ParseSort).
type SortField struct {
	Name string // the field as the record's JSON names it, flattened with dots: tokens.total
	Desc bool   // highest first
	// Runs: the field is a run-level one (runs, outcomes, wall time,
	// problems): the record needs its runs to say it.
	Runs bool
	// Value is a record's value of the field.
	Value func(r *Record) Value
}

func (f *SortField) String() string {
	if f.Desc {
		return "-" + f.Name
	}
	return f.Name
}

// Compare orders a before b (-1) or after (1) by the field: ascending or
// descending, values missing last.
func (f *SortField) Compare(a, b Value) int {
	switch {
	case a.Has != b.Has:
		if a.Has {
			return -1
		}
		return 1
	case !a.Has:
		return 0
	}
	c := cmp.Compare(a.I, b.I)
	if a.Float || b.Float {
		c = cmp.Compare(a.F, b.F) // no NaN: a sketch takes none
	}
	if f.Desc {
		return -c
	}
	return c
}

// DidYouMean is what a message says of w, a word not among words: the
// nearest of them (textfmt.NearestWord, the measure of every suggestion
// the tools make) as " (did you mean WORD?)", or "" when none is near.
func DidYouMean(w string, words []string) string {
	if m := textfmt.NearestWord(w, words); m != "" {
		return " (did you mean " + m + "?)"
	}
	return ""
}

// sortWords are every name ParseSort takes, for suggestions: the
// fields' paths, then their columns' names.
func sortWords() []string {
	return append(slices.Clone(schema.sortNames), slices.Sorted(maps.Keys(schema.sortAliases))...)
}

// SortNames are the paths of the fields --sort takes, in the record's
// order (the names of outcomes and tools are the data's: outcomes.NAME).
func SortNames() []string { return slices.Clone(schema.sortNames) }

// ParseSort reads a --sort value: a numeric field of the record, as its
// JSON names it with dots between objects (cost_usd, tokens.input,
// latency_ms.p95, outcomes.error, tools.bash.failed), or its table
// column's name (cost, wall_p50); tokens is tokens.total and problems
// their number. A leading - sorts highest first, + (or nothing) lowest
// first.
func ParseSort(s string) (*SortField, error) {
	w, desc := strings.CutPrefix(strings.TrimSpace(s), "-")
	if !desc {
		w = strings.TrimPrefix(w, "+")
	}
	if a, ok := schema.sortAliases[w]; ok {
		w = a
	}
	if f, ok := schema.sortFields[w]; ok {
		c := *f
		c.Desc = desc
		return &c, nil
	}
	// outcomes.NAME and tools.NAME.calls (or .failed): a name no record
	// has sorts as 0 everywhere, as in csv.
	if name, ok := strings.CutPrefix(w, schema.outcomes+"."); ok && name != "" {
		return &SortField{Name: w, Desc: desc, Runs: true, Value: func(r *Record) Value {
			for _, o := range r.Outcomes {
				if o.Name == name {
					return intValue(o.N)
				}
			}
			return intValue(0)
		}}, nil
	}
	if rest, ok := strings.CutPrefix(w, schema.tools+"."); ok {
		i := strings.LastIndexByte(rest, '.')
		if i > 0 && (rest[i+1:] == "calls" || rest[i+1:] == "failed") {
			name, failed := rest[:i], rest[i+1:] == "failed"
			return &SortField{Name: w, Desc: desc, Value: func(r *Record) Value {
				for _, t := range r.Tools {
					if t.Name == name {
						if failed {
							return intValue(t.Failed)
						}
						return intValue(t.Calls)
					}
				}
				return intValue(0)
			}}, nil
		}
	}
	if w == "" {
		return nil, fmt.Errorf("--sort %q: no field (a numeric field of the record, - before it for highest first: -cost_usd)", s)
	}
	return nil, fmt.Errorf("--sort %q: %q is not a numeric field of the record%s: one of %s, tokens, %s.NAME, %s.NAME.calls, %s.NAME.failed; - before it sorts highest first",
		s, w, DidYouMean(w, sortWords()), strings.Join(schema.sortNames, ", "), schema.outcomes, schema.tools, schema.tools)
}
