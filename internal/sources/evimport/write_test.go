package evimport

import (
	"io"
	"runtime"
	"testing"

	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/pkg/jsonl"
)

// A round of --follow writes its new events, a few lines four times a
// second, through a spool of their own: that spool makes the room its
// events need, not the 4 MiB the whole run's spool takes at once, which
// a live view would make and throw away every round.
func TestFollowRoundSpoolsWhatItWrites(t *testing.T) {
	s := &session{source: "claude", id: "s", project: "/home/ana/src/shop", events: []event{
		{ms: 1000, run: "s/1", kind: "user_message", payload: []byte(`{"text":"hi"}`)},
		{ms: 2000, run: "s/1", kind: "assistant_message", payload: []byte(`{"text":"hello"}`)},
	}}
	w := jsonl.NewWriter(io.Discard)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := writeSessions(w, []*session{s}, window.Window{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<10 {
		t.Errorf("a round of two events allocated %d KiB", alloc>>10)
	}
}
