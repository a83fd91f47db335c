package summary

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/folds/record"
)

// Order says how a report orders its groups and how many it shows
// (SetOrder). It belongs to the report, never to the state: partial
// states are the same whatever the report's order, and the merge orders.
type Order struct {
	// Sort orders the groups by one numeric field of their records; nil
	// keeps the default order (by first event time, then by key).
	Sort *record.SortField
	// Top, when > 0, keeps the first Top groups (after sorting) and folds
	// the rest into one "other" group, so that the groups still add up to
	// the total.
	Top int
}

// SetOrder sets the order of the report's groups (and of the records of a
// breakdown under each).
func (s *State) SetOrder(o Order) { s.order = o }

// breakdownWords are the --breakdown values: the key each group is
// broken down by, and the member of the record that holds the breakdown.
var breakdownWords = map[string]struct {
	key    Key
	member string
}{
	"model": {keyWords["model"], "models"},
}

// BreakdownWords are the words --breakdown takes: its keys, then none.
func BreakdownWords() []string { return append(slices.Sorted(maps.Keys(breakdownWords)), "none") }

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
	return nil, fmt.Errorf("--breakdown %q: not a breakdown%s: model (one sub-record per model under each group) or none", s, record.DidYouMean(w, BreakdownWords()))
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
func breakdownMember(keys []Key) string { return breakdownWords[breakdownString(keys)].member }
