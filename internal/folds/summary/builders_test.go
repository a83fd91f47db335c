package summary

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/folds/record"
)

// The report built on several cores (eachBuilt, the total's runs on a
// goroutine of their own) is the report built on one, byte for byte: on a
// corpus of thousands of runs, with problems, frozen groups and runs, and
// the groupings, orders and --top that take each path.
func TestReportOnCores(t *testing.T) {
	if testing.Short() {
		t.Skip("summarises 4 MB")
	}
	defer func(n int) { hotLimit = n }(hotLimit)
	hotLimit = 64 // most groups and runs frozen, as on large inputs
	// chunks of 3 records: the few groups by day or agent (each of many
	// runs) are built on several cores too
	defer func(n int) { builtChunk = n }(builtChunk)
	builtChunk = 3
	// every 40th event left out: runs without their end, tool calls
	// without theirs, turns left open: problems in groups and the total
	var ls [][]byte
	for i, l := range lines(envelopeCorpus(t, 4<<20, 9)) {
		if i%40 != 39 {
			ls = append(ls, l)
		}
	}
	for _, c := range []struct {
		by, sort string
		top      int
		running  bool
	}{
		{by: "run"},
		{by: "run", running: true},
		{by: "run", top: 500},
		{by: "run", sort: "-cost_usd", top: 300},
		{by: "run,agent"},
		{by: "agent"},
		{by: "day"},
		{by: "none"},
	} {
		keys, err := ParseBy(c.by)
		if err != nil {
			t.Fatal(err)
		}
		var o Order
		o.Top = c.top
		if c.sort != "" {
			if o.Sort, err = record.ParseSort(c.sort); err != nil {
				t.Fatal(err)
			}
		}
		s := summarise(t, Options{By: keys}, ls)
		s.SetOrder(o)
		if c.running {
			s.SetRunning(time.Unix(1793520000, 0))
		}
		if c.by == "run" && len(s.runIDs()) < 4*64 {
			t.Fatalf("%d runs: too few for the report to be built on several cores", len(s.runIDs()))
		}
		report := func(procs int) []byte {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var b []byte
			if err := s.EachRecord(func(r *record.Record) error {
				b = append(r.AppendJSON(b), '\n')
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return b
		}
		// EachEncoded: the records encoded where they are built, some
		// left to the writer (as a huge one is), in order.
		encoded := func(procs int) []byte {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var out []byte
			if err := s.EachEncoded(func(b []byte, r *record.Record) []byte {
				if len(r.Problems)%3 == 1 {
					return nil // the writer's
				}
				return append(r.AppendJSON(b), '\n')
			}, func(b []byte, r *record.Record) error {
				if b == nil {
					b = append(r.AppendJSON(nil), '\n')
				}
				out = append(out, b...)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		one := report(1)
		if c.by == "run" && !bytes.Contains(one[bytes.LastIndexByte(one[:len(one)-1], '\n'):], []byte(`"problems":["run `)) {
			t.Fatalf("the total lists no problems: the test would not see them differ")
		}
		for _, procs := range []int{2, 3, 8} {
			if got := report(procs); !bytes.Equal(got, one) {
				t.Errorf("by %s, sort %q, top %d: the report on %d cores differs from one core's:\n%.600s\none core:\n%.600s", c.by, c.sort, c.top, procs, got, one)
			}
			if got := encoded(procs); !bytes.Equal(got, one) {
				t.Errorf("by %s, sort %q, top %d: EachEncoded on %d cores differs from EachRecord on one:\n%.600s\none core:\n%.600s", c.by, c.sort, c.top, procs, got, one)
			}
		}
	}
}

// A writer that fails stops the builders: EachRecord returns its error
// and leaves no goroutine behind.
func TestReportOnCoresWriterFails(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	s := summarise(t, Options{By: []Key{keyWords["run"]}}, lines(envelopeCorpus(t, 1<<20, 3)))
	before := runtime.NumGoroutine()
	n := 0
	err := s.EachRecord(func(*record.Record) error {
		if n++; n == 65 {
			return errTSRange
		}
		return nil
	})
	if err != errTSRange || n != 65 {
		t.Fatalf("EachRecord returned %v after %d records, want the writer's error after 65", err, n)
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines left, %d before", runtime.NumGoroutine(), before)
}
