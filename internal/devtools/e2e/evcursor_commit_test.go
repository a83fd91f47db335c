package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/evtools/evtools/internal/filters/cursor"
)

const commitLog = `{"seq":1,"ts":1,"run_id":"r"}
{"seq":2,"ts":2,"run_id":"r"}
`

// savedCursor is the current cursor's seq in the state file, "" for none.
func savedCursor(t *testing.T, state string) string {
	t.Helper()
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Cursor *struct {
			Seq json.Number `json:"seq"`
		} `json:"cursor"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if st.Cursor == nil {
		return ""
	}
	return st.Cursor.Seq.String()
}

func commitSetup(t *testing.T) (dir, state, logf string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir = t.TempDir()
	logf = filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(logf, []byte(commitLog), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, "s.cursor"), logf
}

// sh runs script with $1 the state file and $2 the log, in dir.
func sh(dir, script, state, logf string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", script, "sh", state, logf)
	cmd.Dir = dir
	return cmd
}

// Without pipefail, a --defer run refused because the lock is busy (exit
// 3, hidden by the pipe) must not let the && --commit after it commit the
// pending cursor an earlier run of the same shell left (its report
// failed): those events were never reported.
func TestEvcursorCommitAfterBusyRun(t *testing.T) {
	dir, state, logf := commitSetup(t)
	cmd := sh(dir, `evcursor --state "$1" --defer "$2" > out1.jsonl; echo ready; read x
evcursor --state "$1" --defer "$2" | cat > report && { echo ran; read y; evcursor --commit "$1"; }
echo "commit $?"`, state, logf)
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	if l, err := out.ReadString('\n'); err != nil || l != "ready\n" {
		t.Fatalf("got %q, %v: %s", l, err, stderr.String())
	}
	// Another run holds the lock now.
	unlock, err := cursor.Lock(state)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, "go\n")
	// The run was refused (the pipe hides its 3); the lock is free again
	// when the --commit runs.
	if l, err := out.ReadString('\n'); err != nil || l != "ran\n" {
		t.Fatalf("got %q, %v: %s", l, err, stderr.String())
	}
	unlock()
	io.WriteString(in, "go\n")
	in.Close()
	rest, _ := io.ReadAll(out)
	cmd.Wait()
	if string(rest) == "commit 0\n" {
		t.Errorf("--commit after a busy run succeeded; stderr %q", stderr.String())
	}
	if got := savedCursor(t, state); got != "" {
		t.Errorf("--commit after a busy run committed the earlier run's cursor (seq %s): its events were never reported", got)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("pending cursor (seq 2, run_id \"r\", ts 2) not committed")) {
		t.Errorf("stderr %q", stderr.String())
	}
	// The events pass again.
	if out, err := exec.Command("evcursor", "--state", state, logf).Output(); err != nil || string(out) != commitLog {
		t.Errorf("next run: %v, passed %q; want every event again", err, out)
	}
}

// A --defer run killed at start-up, before it could withdraw anything, is
// like no run at all: the --commit of its shell must not commit the
// pending cursor another shell's run (cron's of the day before) left. The
// ordinary pipeline still commits, whether the shell forks the --commit or
// execs it as its last command.
func TestEvcursorCommitAfterKilledRun(t *testing.T) {
	dir, state, logf := commitSetup(t)
	// Day 1: the report failed, nothing committed. "; true" keeps sh from
	// exec'ing evcursor, so that its caller is this shell.
	if out, err := sh(dir, `evcursor --state "$1" --defer "$2" > out1.jsonl; true`, state, logf).CombinedOutput(); err != nil {
		t.Fatalf("day 1: %v %s", err, out)
	}
	// Day 2: evcursor is killed before it does anything.
	out, err := sh(dir, `sh -c 'kill -KILL $$' | cat > report && evcursor --commit "$1"; echo "commit $?"`, state, logf).CombinedOutput()
	if err != nil || bytes.HasSuffix(out, []byte("commit 0\n")) {
		t.Errorf("--commit after a killed run: %v %s", err, out)
	}
	if got := savedCursor(t, state); got != "" {
		t.Errorf("the --commit committed another shell's pending cursor (seq %s)", got)
	}
	// The ordinary pipeline commits what its own run handed over.
	for _, script := range []string{
		`evcursor --state "$1" --defer "$2" | cat > report && evcursor --commit "$1"`,
		`evcursor --state "$1" --defer "$2" | cat > report && evcursor --commit "$1"; true`,
	} {
		os.Remove(state)
		if out, err := sh(dir, script, state, logf).CombinedOutput(); err != nil {
			t.Errorf("%s: %v %s", script, err, out)
		}
		if got := savedCursor(t, state); got != "2" {
			t.Errorf("%s: cursor %q, want 2", script, got)
		}
		if _, err := os.Stat(cursor.HandoverPath(state)); !os.IsNotExist(err) {
			t.Errorf("%s: the handover is left after the commit: %v", script, err)
		}
	}
}
