package evsum_test

import (
	"bytes"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/folds/evsum"
	"github.com/evtools/evtools/internal/shell/cli"
)

const event = `{"seq":1,"ts":1793520000,"run_id":"r_1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok","wall_seconds":1}}` + "\n"

// A consumer that goes away (| head -1) ends evsum quietly with status 0.
func TestClosedStdout(t *testing.T) {
	r, w := io.Pipe()
	r.Close()
	var stderr bytes.Buffer
	in := strings.NewReader(strings.Repeat(strings.Replace(event, "r_1", "r_x", 1), 1) + event)
	code := evsum.Main([]string{"--by", "none"}, cli.Stdio{In: in, Out: w, Err: &stderr})
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
}

// evsum reads a live pipe to its end and then writes the summary at once:
// the report of a stream that stays open comes when it closes, without
// waiting for anything else.
func TestLivePipe(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- evsum.Main([]string{"--by", "none"}, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
		outW.Close()
	}()
	for i := 0; i < 3; i++ {
		if _, err := io.WriteString(inW, event); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(outR); got <- string(b) }()
	select {
	case s := <-got:
		t.Fatalf("output before the input ended: %q", s)
	case <-time.After(50 * time.Millisecond):
	}
	inW.Close()
	select {
	case s := <-got:
		if !strings.Contains(s, `"events":3`) {
			t.Fatalf("report %q does not count 3 events", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no report after the input closed")
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// evsum runs with GOGC=20 unless GOGC is set (docs/evsum.md): its heap is
// long-lived, and the tighter goal keeps 100,000 runs inside 64 MB.
func TestGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	run := func() {
		t.Helper()
		in := strings.NewReader(event)
		if code := evsum.Main([]string{"--by", "none"}, cli.Stdio{In: in, Out: io.Discard, Err: io.Discard}); code != 0 {
			t.Fatalf("exit %d", code)
		}
	}
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	debug.SetGCPercent(100)
	run()
	if got := debug.SetGCPercent(100); got != 20 {
		t.Errorf("GOGC unset: GC percent %d, want 20", got)
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	run()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("GOGC=50: GC percent %d, want 50 left alone", got)
	}
}

// With the default --running window, a run whose last event is a minute
// old and that has no run_finished yet is running: a report taken mid-run
// lists no problem and --check exits 0. One whose last event is an hour
// old was cut off.
func TestRunInProgressIsNoProblem(t *testing.T) {
	at := func(ago time.Duration, run string) string {
		ts := float64(time.Now().Add(-ago).UnixMilli()) / 1000
		return `{"seq":1,"ts":` + strconv.FormatFloat(ts, 'f', 3, 64) + `,"run_id":"` + run + `","agent_id":"","kind":"user_message","payload":{}}` + "\n"
	}
	for _, c := range []struct {
		ago     time.Duration
		code    int
		outcome string
	}{{time.Minute, 0, `"outcomes":{"running":1}`}, {time.Hour, 1, `"outcomes":{"incomplete":1}`}} {
		var out bytes.Buffer
		code := evsum.Main([]string{"--check", "--by", "none"}, cli.Stdio{In: strings.NewReader(at(c.ago, "r_1")), Out: &out, Err: io.Discard})
		if code != c.code || !strings.Contains(out.String(), c.outcome) {
			t.Errorf("last event %v ago: exit %d, report %s; want exit %d and %s", c.ago, code, out.String(), c.code, c.outcome)
		}
	}
}
