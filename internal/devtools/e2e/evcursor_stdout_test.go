package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// evcursor --state with stdout closed (>&-, which Go reopens as
// /dev/null) or sent to /dev/null would use up the events unseen and move
// the cursor past them: it is an error and nothing moves. Without --state
// nothing is lost, and a closed stdout stays a quiet end.
func TestEvcursorStateRefusesDiscardedStdout(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	logf := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(logf, []byte(`{"seq":1,"ts":1,"run_id":"r"}`+"\n"+`{"seq":2,"ts":2,"run_id":"r"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "s.cursor")
	for _, redirect := range []string{">&-", ">/dev/null"} {
		cmd := exec.Command("sh", "-c", `evcursor --state "$1" "$2" `+redirect, "sh", state, logf)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%s: %v, want exit status 2", redirect, err)
		}
		if !strings.Contains(stderr.String(), "stdout is closed or /dev/null: nothing passed") {
			t.Errorf("%s: stderr %q", redirect, stderr.String())
		}
		if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the state file was saved: %v", redirect, err)
		}
		if _, err := os.Stat(state + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a lock file was made: %v", redirect, err)
		}
	}
	// Re-numbering into /dev/null loses nothing: still fine.
	if out, err := exec.Command("sh", "-c", `evcursor "$1" >/dev/null`, "sh", logf).CombinedOutput(); err != nil {
		t.Errorf("re-numbering into /dev/null: %v %s", err, out)
	}
	// Discarding on purpose goes through a pipe the reader drains.
	if out, err := exec.Command("sh", "-c", `evcursor --state "$1" "$2" | cat >/dev/null`, "sh", state, logf).CombinedOutput(); err != nil {
		t.Errorf("| cat >/dev/null: %v %s", err, out)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("| cat >/dev/null saved no cursor: %v", err)
	}
}
