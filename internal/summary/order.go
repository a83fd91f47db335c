package summary

import (
	"fmt"
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
	value func(r *Record) sortValue
}

// sortValue is one record's value of a sort field: an exact integer, or
// a float (percentiles); has is false for a value the record has none of
// (null in JSON), which sorts last whatever the direction.
type sortValue struct {
	i     int64
	f     float64
	float bool
	has   bool
}

func (f *SortField) String() string {
	if f.Desc {
		return "-" + f.Name
	}
	return f.Name
}

// compare orders a before b (-1) or after (1) by the field: ascending or
// descending, values missing last.
func (f *SortField) compare(a, b sortValue) int {
	switch {
	case a.has != b.has:
		if a.has {
			return -1
		}
		return 1
	case !a.has:
		return 0
	}
	c := 0
	if a.float || b.float {
		switch {
		case a.f < b.f:
			c = -1
		case a.f > b.f:
			c = 1
		}
	} else {
		switch {
		case a.i < b.i:
			c = -1
		case a.i > b.i:
			c = 1
		}
	}
	if f.Desc {
		return -c
	}
	return c
}

func intValue(v int64) sortValue { return sortValue{i: v, has: true} }

func statValue(s *Stats, v *float64) sortValue {
	return sortValue{f: *v, float: true, has: s.Has}
}

// sortFields are the numeric fields of a record, by their flat names
// (csv's column names), in the record's order; sortAliases are the
// table's column names for some of them (--columns), and tokens for
// tokens.total.
var sortFields, sortAliases = func() (map[string]*SortField, map[string]string) {
	fields := map[string]*SortField{}
	add := func(name string, runs bool, value func(r *Record) sortValue) {
		fields[name] = &SortField{Name: name, runs: runs, value: value}
		sortNames = append(sortNames, name)
	}
	for c := Counter(0); c < NumCounters; c++ {
		add(c.Column(), false, func(r *Record) sortValue { return intValue(r.Counts[c]) })
		if c == Events {
			add("runs", true, func(r *Record) sortValue { return intValue(r.Runs) })
			add("first_ts", false, func(r *Record) sortValue { return sortValue{i: r.FirstTS, has: r.HasTS} })
			add("last_ts", false, func(r *Record) sortValue { return sortValue{i: r.LastTS, has: r.HasTS} })
		}
	}
	add("wall_seconds.sum", true, func(r *Record) sortValue { return sortValue{i: r.WallSumUS, has: r.Wall.Has} })
	add("wall_seconds.p50", true, func(r *Record) sortValue { return statValue(&r.Wall, &r.Wall.P50) })
	add("wall_seconds.p95", true, func(r *Record) sortValue { return statValue(&r.Wall, &r.Wall.P95) })
	add("wall_seconds.max", true, func(r *Record) sortValue { return statValue(&r.Wall, &r.Wall.Max) })
	add("latency_ms.p50", false, func(r *Record) sortValue { return statValue(&r.Latency, &r.Latency.P50) })
	add("latency_ms.p95", false, func(r *Record) sortValue { return statValue(&r.Latency, &r.Latency.P95) })
	add("latency_ms.max", false, func(r *Record) sortValue { return statValue(&r.Latency, &r.Latency.Max) })
	add("problems", true, func(r *Record) sortValue { return intValue(int64(len(r.Problems))) })
	aliases := map[string]string{
		"tokens": "tokens.total", "cost": "cost_usd", "tokens_in": "tokens.input", "tokens_out": "tokens.output",
		"cache_read": "tokens.cache_read", "cache_write": "tokens.cache_write", "failed": "tool_failures",
		"first": "first_ts", "last": "last_ts", "wall_sum": "wall_seconds.sum",
		"wall_p50": "wall_seconds.p50", "wall_p95": "wall_seconds.p95", "wall_max": "wall_seconds.max",
		"latency_p50": "latency_ms.p50", "latency_p95": "latency_ms.p95", "latency_max": "latency_ms.max",
	}
	return fields, aliases
}()

// sortNames are the fields' names in the record's order, for messages;
// sortWords are every name ParseSort takes, for suggestions.
var sortNames []string

var sortWords = func() []string {
	var aliases []string
	for a := range sortAliases {
		aliases = append(aliases, a)
	}
	sort.Strings(aliases)
	return append(append([]string(nil), sortNames...), aliases...)
}()

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
	if a, ok := sortAliases[w]; ok {
		w = a
	}
	if f, ok := sortFields[w]; ok {
		c := *f
		c.Desc = desc
		return &c, nil
	}
	// outcomes.NAME and tools.NAME.calls (or .failed): a name no record
	// has sorts as 0 everywhere, as in csv.
	if name, ok := strings.CutPrefix(w, "outcomes."); ok && name != "" {
		return &SortField{Name: w, Desc: desc, runs: true, value: func(r *Record) sortValue {
			for _, o := range r.Outcomes {
				if o.Name == name {
					return intValue(o.N)
				}
			}
			return intValue(0)
		}}, nil
	}
	if rest, ok := strings.CutPrefix(w, "tools."); ok {
		i := strings.LastIndexByte(rest, '.')
		if i > 0 && (rest[i+1:] == "calls" || rest[i+1:] == "failed") {
			name, failed := rest[:i], rest[i+1:] == "failed"
			return &SortField{Name: w, Desc: desc, value: func(r *Record) sortValue {
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
	if m := NearestWord(w, sortWords); m != "" {
		hint = " (did you mean " + m + "?)"
	}
	return nil, fmt.Errorf("--sort %q: %q is not a numeric field of the record%s: one of %s, tokens, outcomes.NAME, tools.NAME.calls, tools.NAME.failed; - before it sorts highest first",
		s, w, hint, strings.Join(sortNames, ", "))
}

// breakdownWords are the --breakdown values: the key each group is
// broken down by, and the member of the record that holds the breakdown.
var breakdownWords = map[string]struct {
	key    Key
	member string
}{
	"model": {keyWords["model"], "models"},
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
	if m := NearestWord(w, []string{"model", "none"}); m != "" {
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
