package summary

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
)

// TestHugeRunID: a run_id of 8 MB is held once, by the run and its group
// alike (it was held three times, with the key buffer).
func TestHugeRunID(t *testing.T) {
	const n = 8 << 20
	_, ls := corpus.HugeRun("x", n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := summarise(t, Options{By: []Key{keyWords["run"]}}, ls)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	runtime.KeepAlive(ls)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > n*5/4 {
		t.Errorf("the state holds %d bytes for a run_id of %d: more than one copy", grew, n)
	}
}

// A state does not keep a huge line once it has added it: only what it
// counts (here the run_id, as the group's key).
func TestHugeLineForgotten(t *testing.T) {
	_, ls := corpus.HugeRun("x", 10)
	line := fmt.Appendf(nil, `{"seq":9,"ts":1793520009,"run_id":"r","kind":"tool_call","payload":{"tool":"bash","input":"%s"}}`, strings.Repeat("y", hugeLine))
	s := summarise(t, Options{}, ls)
	if err := s.Add(line); err != nil {
		t.Fatal(err)
	}
	collected := make(chan struct{})
	runtime.AddCleanup(&line[0], func(c chan struct{}) { close(c) }, collected)
	line = nil
	for range 100 {
		runtime.GC()
		select {
		case <-collected:
			runtime.KeepAlive(s)
			return
		default:
			runtime.Gosched()
		}
	}
	t.Error("the state still holds the huge line it added")
}
