package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A live log written in chunks of 100-3000 bytes, cut anywhere in a line,
// while evcursor --state runs again and again as a real process: every
// run exits 0, and every event is delivered exactly once, in order (item
// 13: a half-written last line used to make every run exit 2 and the
// cursor never move).
func TestEvcursorStateOnLogWrittenInChunks(t *testing.T) {
	bin, err := exec.LookPath("evcursor")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logf := filepath.Join(dir, "events.jsonl")
	state := filepath.Join(dir, "s.cursor")
	var all bytes.Buffer
	const events = 3000
	for i := 1; i <= events; i++ {
		fmt.Fprintf(&all, `{"seq":%d,"ts":%d.5,"run_id":"r_1","kind":"tool_call","payload":{"pad":"%s"}}`+"\n", i, 1758800000+i, strings.Repeat("x", i%97))
	}
	data := all.Bytes()
	f, err := os.Create(logf)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer f.Close()
		rng := rand.New(rand.NewPCG(1, 2))
		for rest := data; len(rest) > 0; {
			n := min(100+rng.IntN(2901), len(rest))
			if _, err := f.Write(rest[:n]); err != nil {
				t.Error(err)
				return
			}
			rest = rest[n:]
			time.Sleep(time.Millisecond)
		}
	}()
	var got bytes.Buffer
	runs, exits := 0, 0
	runOnce := func() {
		runs++
		cmd := exec.Command(bin, "--state", state, logf)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &got, &stderr
		if err := cmd.Run(); err != nil {
			exits++
			var ee *exec.ExitError
			if errors.As(err, &ee) && exits <= 3 {
				t.Errorf("run %d: %v: %s", runs, err, stderr.String())
			}
		}
	}
	deadline := time.After(10 * time.Second)
	for producing := true; producing; {
		select {
		case <-done:
			producing = false
		case <-deadline:
			t.Fatal("the producer did not finish in 10 s")
		default:
			runOnce()
		}
	}
	runOnce() // after the last write: the rest
	if exits > 0 {
		t.Errorf("%d of %d runs failed", exits, runs)
	}
	if !bytes.Equal(got.Bytes(), data) {
		gl, wl := bytes.Count(got.Bytes(), []byte("\n")), events
		t.Errorf("%d runs delivered %d lines (%d bytes), want each of the %d events once (%d bytes)", runs, gl, got.Len(), wl, len(data))
	}
	t.Logf("%d runs", runs)
}
