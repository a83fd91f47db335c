package summary

import (
	"runtime"
	"testing"
)

// TestMemoryPerRun measures the live heap a run costs when grouping by run
// (the default): memory grows with runs, never with events.
func TestMemoryPerRun(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 10 MB")
	}
	// a quarter of the hot groups and runs, for a quarter of evsum's
	// typical 40 MB: the same share of them is hot
	defer func(n int) { hotLimit = n }(hotLimit)
	hotLimit /= 4
	ls := lines(envelopeCorpus(t, 10<<20, 5))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := summarise(t, Options{By: []Key{keyWords["run"]}}, ls)
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(s.runIDs()))
	t.Logf("%d runs, %d events: %.0f bytes of live heap per run", len(s.runIDs()), len(ls), per)
	runtime.KeepAlive(s)
	runtime.KeepAlive(ls)
	// 100,000 runs must fit in 64 MB with the collector's headroom.
	if per > 500 {
		t.Errorf("%.0f bytes per run: 100k runs would not fit in 64 MB", per)
	}
}
