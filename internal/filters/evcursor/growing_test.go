package evcursor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A last line without '\n' in a log written just now is a producer
// mid-write, not bad input: --state passes what is complete, exits 0, and
// leaves the cursor before that line, which the next run passes whole.
// Only when the file has not been modified for a minute (or with
// --strict) is it reported.
func TestStateHoldsBackHalfWrittenLastLine(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "s.cursor")
	logf := filepath.Join(dir, "events.jsonl")
	lines := strings.SplitAfter(log3, "\n")
	half := lines[2][:30]
	if err := os.WriteFile(logf, []byte(lines[0]+lines[1]+half), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "", "--state", state, logf)
	if code != 0 || stderr != "" || stdout != lines[0]+lines[1] {
		t.Fatalf("mid-write: exit %d, stdout %q, stderr %q; want the 2 complete events, exit 0", code, stdout, stderr)
	}
	// --strict reports it, and moves nothing.
	before, _ := os.ReadFile(state)
	if _, stderr, code := run(t, "", "--strict", "--state", state, logf); code != 2 || !strings.Contains(stderr, ":3: ") {
		t.Errorf("--strict: exit %d, stderr %q; want the line reported, exit 2", code, stderr)
	}
	if after, _ := os.ReadFile(state); string(after) != string(before) {
		t.Errorf("--strict moved the cursor")
	}
	// The producer finishes the line: the next run passes it, once.
	if err := os.WriteFile(logf, []byte(log3), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run(t, "", "--state", state, logf)
	if code != 0 || stdout != lines[2] {
		t.Fatalf("after the write: exit %d, stdout %q, stderr %q; want line 3 only", code, stdout, stderr)
	}
	// A half line in a file left alone for over a minute is bad input.
	if err := os.WriteFile(logf, []byte(log3+`{"seq":4,"ts":17588`), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(logf, old, old)
	stdout, stderr, code = run(t, "", "--state", state, logf)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "events.jsonl:4: ") {
		t.Errorf("stale half line: exit %d, stdout %q, stderr %q; want it reported, exit 2", code, stdout, stderr)
	}
}
