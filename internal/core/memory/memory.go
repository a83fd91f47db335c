// Package memory sets the Go collector for the kind of work a tool does,
// unless the user's GOGC or GOMEMLIMIT says otherwise. Two kinds are
// known: a stream (evfilter, evimport), whose decoded lines are
// short-lived garbage, runs under a soft limit and collects seldom below
// it; a fold (evsum), whose state is long-lived, collects often over a
// heap floor (floor.go). docs/performance.md has the figures.
package memory

import (
	"os"
	"runtime/debug"
)

// Profile is how a tool's collector is set.
type Profile struct {
	Limit   int64 // a soft limit on the heap (GOMEMLIMIT); 0: none
	Percent int   // the heap growth between collections (GOGC)
	Floor   int   // the size of a heap floor laid under the heap; 0: none
}

// floor is the heap floor of the running process, nil before Tune lays
// one: tests run a tool many times in one process, and one floor serves.
var floor *heapFloor

// Tune sets the collector as p says. A GOMEMLIMIT the user set replaces
// the limit and keeps the runtime's percent too (the percent was chosen
// for the limit of p); a GOGC the user set keeps the runtime's percent
// and lays no floor.
func Tune(p Profile) {
	if p.Limit > 0 {
		if os.Getenv("GOMEMLIMIT") != "" {
			return
		}
		debug.SetMemoryLimit(p.Limit)
	}
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(p.Percent)
	if p.Floor > 0 && floor == nil {
		startFloor(p.Floor)
	}
}
