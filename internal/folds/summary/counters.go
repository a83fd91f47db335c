package summary

import (
	"cmp"

	"github.com/evtools/evtools/internal/folds/record"
)

// counts are a group's counters.
type counts [record.NumCounters]int64

// The frozen form marks the counters that are not zero in a uint64.
var _ [64 - record.NumCounters]struct{}

func (c *counts) add(o *counts) {
	for i := range c {
		c[i] += o[i]
	}
}

// partialName is the counter's member in the partial state.
func partialName(c record.Counter) string {
	return cmp.Or(record.Counters[c].Partial, record.Counters[c].Object, record.Counters[c].Name)
}

// counterSpan returns the counters from c on that belong to the same object (c
// alone when it is in none).
func counterSpan(c record.Counter) record.Counter {
	e := c + 1
	if o := record.Counters[c].Object; o != "" {
		for e < record.NumCounters && record.Counters[e].Object == o {
			e++
		}
	}
	return e
}
