package summary

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Order says how a report orders its groups and how many it shows
// (SetOrder). It belongs to the report, never to the state: partial
// states are the same whatever the report's order, and the merge orders.
type Order struct {
	// Sort orders the groups by one numeric field of their records; nil
	// keeps the default order (by first event time, then by key).
	Sort *SortField
	// Top, when > 0, keeps the first Top groups (after sorting) and folds
	// the rest into one "other" group, so that the groups still add up to
	// the total.
	Top int
}

// SetOrder sets the order of the report's groups (and of the records of a
// breakdown under each).
func (s *State) SetOrder(o Order) { s.order = o }

// A SortField is a numeric field of a record to sort the groups by
// (ParseSort).
type SortField struct {
	Name string // the field as the record's JSON names it, flattened with dots: tokens.total
	Desc bool   // highest first
	// runs: the field is a run-level one (runs, outcomes, wall time,
	// problems): the record needs its runs to say it.
	runs  bool
	value func(r *Record) Value
}

func (f *SortField) String() string {
	if f.Desc {
		return "-" + f.Name
	}
	return f.Name
}

// compare orders a before b (-1) or after (1) by the field: ascending or
// descending, values missing last.
func (f *SortField) compare(a, b Value) int {
	switch {
	case a.Has != b.Has:
		if a.Has {
			return -1
		}
		return 1
	case !a.Has:
		return 0
	}
	c := 0
	if a.Float || b.Float {
		switch {
		case a.F < b.F:
			c = -1
		case a.F > b.F:
			c = 1
		}
	} else {
		switch {
		case a.I < b.I:
			c = -1
		case a.I > b.I:
			c = 1
		}
	}
	if f.Desc {
		return -c
	}
	return c
}

// sortWords are every name ParseSort takes, for suggestions: the
// fields' paths, then their columns' names.
func sortWords() []string {
	var aliases []string
	for a := range schema.sortAliases {
		aliases = append(aliases, a)
	}
	sort.Strings(aliases)
	return append(slices.Clone(schema.sortNames), aliases...)
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
	w := strings.TrimSpace(s)
	desc := false
	switch {
	case strings.HasPrefix(w, "-"):
		desc, w = true, w[1:]
	case strings.HasPrefix(w, "+"):
		w = w[1:]
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
		return &SortField{Name: w, Desc: desc, runs: true, value: func(r *Record) Value {
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
			return &SortField{Name: w, Desc: desc, value: func(r *Record) Value {
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
	hint := ""
	if m := NearestWord(w, sortWords()); m != "" {
		hint = " (did you mean " + m + "?)"
	}
	return nil, fmt.Errorf("--sort %q: %q is not a numeric field of the record%s: one of %s, tokens, %s.NAME, %s.NAME.calls, %s.NAME.failed; - before it sorts highest first",
		s, w, hint, strings.Join(schema.sortNames, ", "), schema.outcomes, schema.tools, schema.tools)
}

// breakdownWords are the --breakdown values: the key each group is
// broken down by, and the member of the record that holds the breakdown.
var breakdownWords = map[string]struct {
	key    Key
	member string
}{
	"model": {keyWords["model"], "models"},
}

// BreakdownWords are the words --breakdown takes: its keys, then none.
func BreakdownWords() []string {
	words := slices.Sorted(maps.Keys(breakdownWords))
	return append(words, "none")
}

// ParseBreakdown reads a --breakdown value: model, or none (or nothing)
// for no breakdown.
func ParseBreakdown(s string) ([]Key, error) {
	w := strings.TrimSpace(s)
	if w == "" || w == "none" {
		return nil, nil
	}
	if b, ok := breakdownWords[w]; ok {
		return []Key{b.key}, nil
	}
	hint := ""
	if m := NearestWord(w, BreakdownWords()); m != "" {
		hint = " (did you mean " + m + "?)"
	}
	return nil, fmt.Errorf("--breakdown %q: not a breakdown%s: model (one sub-record per model under each group) or none", s, hint)
}

// breakdownString is the spelling of a breakdown, as ParseBreakdown reads
// it: "" for none.
func breakdownString(keys []Key) string {
	if len(keys) == 0 {
		return ""
	}
	for w, b := range breakdownWords {
		if b.key.Kind == keys[0].Kind {
			return w
		}
	}
	return keys[0].Name
}

// breakdownMember is the record's member holding the breakdown: models.
func breakdownMember(keys []Key) string {
	return breakdownWords[breakdownString(keys)].member
}
