//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// evcursor --state S log | head -1: the events that fit in the pipe
// buffer were written but never read. They are not delivered, so the
// cursor must not move past them (item 2); a reader that reads it all
// moves it.
func TestEvcursorStateUnreadPipeIsNotDelivered(t *testing.T) {
	bin, err := exec.LookPath("evcursor")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logf := filepath.Join(dir, "events.jsonl")
	state := filepath.Join(dir, "s.cursor")
	var log bytes.Buffer
	for i := 1; i <= 500; i++ { // about 25 KB: fits in a pipe's buffer
		fmt.Fprintf(&log, `{"seq":%d,"ts":%d,"run_id":"r","kind":"x"}`+"\n", i, 1758800000+i)
	}
	if err := os.WriteFile(logf, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "--state", state, logf)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// Handshake: wait until every event is in the pipe, then read one
	// line's worth and go away, as head -1 does.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n == log.Len() {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("only %d of %d bytes reached the pipe", n, log.Len())
		}
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 60)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run with the reader gone: %v: %s", err, stderr.String())
	}
	if _, err := os.Stat(state); err == nil {
		t.Errorf("the cursor was saved past events the reader never read: %s", savedCursor(t, state))
	}
	// The next run passes them all, to a reader that reads them all: now
	// the cursor moves.
	out, err := exec.Command("sh", "-c", `"$0" --state "$1" "$2" | cat`, bin, state, logf).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, log.Bytes()) {
		t.Errorf("second run passed %d lines, want all 500", bytes.Count(out, []byte("\n")))
	}
	if got := savedCursor(t, state); got != "500" {
		t.Errorf("cursor %q after a reader read it all, want 500", got)
	}
}

// What docs/evcursor.md says of a reader that reads and then drops: head
// -n 84 of an 85-event log reads all of it, so a plain --state run moves
// the cursor past the 85th event, which nobody printed (no rule tells
// such a reader from one that used what it read); the --defer form that
// the docs lead with moves nothing until --commit, so the next run passes
// every event again.
func TestEvcursorHeadDropsAndDeferKeeps(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "events.jsonl")
	var log bytes.Buffer
	for i := 1; i <= 85; i++ {
		fmt.Fprintf(&log, `{"seq":%d,"ts":%d,"run_id":"r","kind":"x"}`+"\n", i, 1758800000+i)
	}
	if err := os.WriteFile(logf, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sh := func(script string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(bytes.TrimSpace(out))
	}
	sh("evcursor --state plain.cursor events.jsonl | head -n 84 > /dev/null")
	if got := sh("evcursor --state plain.cursor events.jsonl | wc -l"); got != "0" {
		t.Errorf("after | head -n 84, the next plain run passed %s events; the docs say the cursor moved past all 85 (0 again)", got)
	}
	sh("evcursor --state defer.cursor --defer events.jsonl | head -n 84 > /dev/null")
	if got := sh("evcursor --state defer.cursor events.jsonl | wc -l"); got != "85" {
		t.Errorf("after a --defer run with no --commit, the next run passed %s events, want all 85", got)
	}
}
