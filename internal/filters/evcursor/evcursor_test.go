package evcursor_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/filters/evcursor"
	"github.com/evtools/evtools/internal/shell/cli"
)

const log3 = `{"seq":1,"ts":1758800000.1,"run_id":"r_a","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1758800000.2,"run_id":"r_a","kind":"run_started","payload":{"mode":"agent"}}
{"seq":3,"ts":1758800000.3,"run_id":"r_a","kind":"run_finished","payload":{"outcome":"ok"}}
`

func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = evcursor.Main(args, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// Two runs on one state file at once: the second fails at once with exit
// 3, passes nothing and leaves the file alone; the first is not disturbed.
func TestSecondRunIsRefused(t *testing.T) {
	bin, err := exec.LookPath("evcursor") // the test binary, set up by testscript
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "daily.cursor")
	logf := filepath.Join(dir, "events.jsonl")
	os.WriteFile(logf, []byte(log3), 0o644)
	lines := strings.SplitAfter(log3, "\n")
	// Day 1 saves a cursor after the first event.
	if _, stderr, code := run(t, lines[0], "--state", state); code != 0 {
		t.Fatalf("day 1: exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(state)
	fiBefore, _ := os.Stat(state)

	// The first run reads a live pipe and holds the lock while it waits.
	first := exec.Command(bin, "--state", state)
	in, _ := first.StdinPipe()
	outPipe, _ := first.StdoutPipe()
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	io.WriteString(in, lines[0]+lines[1])
	// Its output shows it runs (and so holds the lock): the cursor's event
	// is skipped, the next one comes out.
	if got, err := out.ReadString('\n'); err != nil || got != lines[1] {
		t.Fatalf("first run printed %q, %v; want %q", got, err, lines[1])
	}

	second := exec.Command(bin, "--state", state, logf)
	var secOut, secErr bytes.Buffer
	second.Stdout, second.Stderr = &secOut, &secErr
	err = second.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitBusy {
		t.Fatalf("second run: %v, want exit status %d", err, cli.ExitBusy)
	}
	if secOut.Len() != 0 {
		t.Errorf("second run passed %q, want nothing", secOut.String())
	}
	want := "evcursor: " + state + ": in use by another evcursor run (" + state + ".lock is held): nothing passed\n"
	if secErr.String() != want {
		t.Errorf("second run said %q, want %q", secErr.String(), want)
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(after, before) {
		t.Errorf("the second run changed the state file:\n%s", after)
	}
	fiAfter, _ := os.Stat(state)
	if !os.SameFile(fiBefore, fiAfter) || !fiAfter.ModTime().Equal(fiBefore.ModTime()) {
		t.Errorf("the second run rewrote the state file")
	}

	// --commit is refused the same way.
	commit := exec.Command(bin, "--commit", state)
	err = commit.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitBusy {
		t.Errorf("--commit while locked: %v, want exit status %d", err, cli.ExitBusy)
	}

	// The first run ends well and saves its cursor; then the lock is free.
	io.WriteString(in, lines[2])
	in.Close()
	rest, _ := io.ReadAll(out)
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v: %s", err, firstErr.String())
	}
	if string(rest) != lines[2] {
		t.Errorf("first run printed %q after the second started, want %q", rest, lines[2])
	}
	if stdout, stderr, code := run(t, log3, "--state", state); code != 0 || stdout != "" {
		t.Errorf("after both: exit %d, passed %q, %s; want nothing new", code, stdout, stderr)
	}
}

// Nothing new: the state file is not even rewritten (same file, same
// modification time).
func TestNothingNewLeavesFileAlone(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s")
	if _, stderr, code := run(t, log3, "--state", state); code != 0 {
		t.Fatal(stderr)
	}
	fi1, _ := os.Stat(state)
	time.Sleep(10 * time.Millisecond) // so that a rewrite would show in the mtime
	stdout, stderr, code := run(t, log3, "--state", state)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	fi2, _ := os.Stat(state)
	if !os.SameFile(fi1, fi2) || !fi1.ModTime().Equal(fi2.ModTime()) {
		t.Error("the state file was rewritten although nothing was new")
	}
}

// A consumer that went away (| head -1) has not seen everything: the run
// ends quietly with 0 and the cursor stays where it was.
func TestClosedOutputDoesNotMoveCursor(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s")
	lines := strings.SplitAfter(log3, "\n")
	if _, stderr, code := run(t, lines[0], "--state", state); code != 0 {
		t.Fatal(stderr)
	}
	before, _ := os.ReadFile(state)
	pr, pw := io.Pipe()
	pr.Close()
	var stderr bytes.Buffer
	big := strings.Repeat(lines[0], 1) + strings.Repeat(lines[1], 50000)
	code := evcursor.Main([]string{"--state", state}, cli.Stdio{In: strings.NewReader(big), Out: pw, Err: &stderr})
	if code != 0 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want a quiet 0", code, stderr.String())
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(after, before) {
		t.Errorf("the cursor moved although the output was closed:\n%s", after)
	}
	// Every mode ends quietly on a closed output.
	var seqs strings.Builder
	for i := 1; i <= 50000; i++ {
		fmt.Fprintf(&seqs, "{\"seq\":%d}\n", i)
	}
	big = seqs.String()
	for _, args := range [][]string{nil, {"--after", "0"}, {"--check"}} {
		var stderr bytes.Buffer
		code := evcursor.Main(args, cli.Stdio{In: strings.NewReader(big), Out: pw, Err: &stderr})
		if code != 0 || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want a quiet 0", args, code, stderr.String())
		}
	}
}

// A live pipe sees each re-numbered event before the next one is written.
func TestLivePipe(t *testing.T) {
	for _, args := range [][]string{nil, {"--state", filepath.Join(t.TempDir(), "s")}, {"--check"}, {"--after", "0"}} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- evcursor.Main(args, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
			outW.Close()
		}()
		lines := bufio.NewReader(outR)
		for i := 1; i <= 3; i++ {
			rec := `{"seq":` + string(rune('0'+i)) + `,"kind":"x"}`
			if _, err := io.WriteString(inW, rec+"\n"); err != nil {
				t.Fatal(err)
			}
			got := make(chan string, 1)
			go func() { l, _ := lines.ReadString('\n'); got <- l }()
			select {
			case l := <-got:
				if l != rec+"\n" {
					t.Fatalf("%v: line %d: got %q, want %q", args, i, l, rec)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%v: line %d was not flushed while evcursor waits for input", args, i)
			}
		}
		inW.Close()
		if code := <-done; code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	stdout, _, code := run(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"Examples:", "Exit status:", "--state=FILE", "--defer", "--commit=FILE", "3  the state file is locked"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if stdout, _, code := run(t, "", "--version"); code != 0 || !strings.HasPrefix(stdout, "evcursor ") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

// A --defer run that dies before its end (SIGKILL, SIGPIPE, a timeout) must
// not leave an earlier run's pending cursor behind: in
// `evcursor --state S --defer log | report && evcursor --commit S` without
// pipefail, the commit would then skip events this run never delivered.
// The pending cursor is withdrawn before the first event passes.
func TestKilledDeferRunLeavesNothingToCommit(t *testing.T) {
	bin, err := exec.LookPath("evcursor")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "s")
	// Run 1 passes everything and leaves a pending cursor; its report failed,
	// so nobody committed.
	if _, stderr, code := run(t, log3, "--state", state, "--defer"); code != 0 {
		t.Fatalf("run 1: exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(state); !strings.Contains(string(data), `"pending"`) {
		t.Fatalf("run 1 left no pending cursor:\n%s", data)
	}
	// Run 2 passes the first event, then is killed.
	cmd := exec.Command(bin, "--state", state, "--defer")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(log3, "\n")
	io.WriteString(in, lines[0])
	if got, err := bufio.NewReader(outPipe).ReadString('\n'); err != nil || got != lines[0] {
		t.Fatalf("run 2 printed %q, %v; want %q", got, err, lines[0])
	}
	cmd.Process.Kill()
	cmd.Wait()
	if data, _ := os.ReadFile(state); strings.Contains(string(data), `"pending"`) {
		t.Errorf("a killed --defer run left the earlier pending cursor:\n%s", data)
	}
	// Its consumer "succeeded": the commit must not skip anything.
	if _, stderr, code := run(t, "", "--commit", state); code != 0 {
		t.Fatalf("--commit: exit %d: %s", code, stderr)
	}
	if stdout, stderr, code := run(t, log3, "--state", state); code != 0 || stdout != log3 {
		t.Errorf("after the commit: exit %d, passed %q, %s; want every event again", code, stdout, stderr)
	}
}

// A real process whose stdout pipe was closed (`evcursor log | head -1`)
// ends quietly with status 0, as the docs promise, instead of being killed
// by SIGPIPE (status 141, which fails a `set -o pipefail` cron pipeline);
// with --state the cursor does not move.
func TestClosedPipeProcessEndsQuietly(t *testing.T) {
	bin, err := exec.LookPath("evcursor")
	if err != nil {
		t.Fatal(err)
	}
	var seqs strings.Builder
	for i := 1; i <= 50000; i++ {
		fmt.Fprintf(&seqs, "{\"seq\":%d,\"ts\":%d}\n", i, i)
	}
	state := filepath.Join(t.TempDir(), "s")
	for _, args := range [][]string{nil, {"--check"}, {"--state", state}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(seqs.String())
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		if err != nil || stderr.Len() != 0 {
			t.Errorf("%v: %v, stderr %q; want a quiet exit 0", args, err, stderr.String())
		}
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run whose output was closed saved a cursor: %v", err)
	}
}

// The evcursor process itself, killed with SIGKILL at random moments of a
// --state run, leaves a state file that holds either the cursor it had
// before the run or the cursor of the last event of the log: never a torn
// file, never a cursor in between. The log grows between rounds, so every
// round has something to pass and to save.
func TestKilledStateRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 120 processes")
	}
	if raceEnabled {
		// Under the race detector each child takes seconds and the kills
		// all land after the save; the race detector has nothing to find
		// in a process that is killed. `go test ./internal/filters/evcursor` runs it.
		t.Skip("kills processes at timed moments: run without -race")
	}
	bin, err := exec.LookPath("evcursor") // the test binary, set up by testscript
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "events.jsonl")
	state := filepath.Join(dir, "daily.cursor")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	total := 0
	grow := func(n int) {
		w := bufio.NewWriter(logf)
		for i := 0; i < n; i++ {
			total++
			fmt.Fprintf(w, `{"seq":%d,"ts":%d.5,"run_id":"r_%d","agent_id":"a","kind":"tool_call","payload":{"tool":"shell","args":{"argv":["make","test"]}}}`+"\n", total, 1758800000+total, total/50)
		}
		w.Flush()
	}
	savedSeq := func() string {
		data, err := os.ReadFile(state)
		if errors.Is(err, os.ErrNotExist) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Cursor *struct {
				Seq json.Number `json:"seq"`
			} `json:"cursor"`
		}
		if err := json.Unmarshal(data, &st); err != nil || st.Cursor == nil {
			t.Fatalf("torn or empty state file (%v):\n%s", err, data)
		}
		return st.Cursor.Seq.String()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	saves := 0
	for round := 0; round < 60; round++ {
		before := savedSeq()
		grow(200 + rng.IntN(300))
		// Aim the kill around the end of the run, where the save is: time
		// a whole run that reads the log and passes nothing, then kill the
		// real one between half and 1.3 times that.
		start := time.Now()
		if err := exec.Command(bin, "--after", strconv.Itoa(total), logPath).Run(); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		cmd := exec.Command(bin, "--state", state, logPath)
		cmd.Stdout = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d/2 + time.Duration(rng.Int64N(int64(d)*8/10+1)))
		cmd.Process.Kill()
		cmd.Wait()
		switch after := savedSeq(); after {
		case before:
		case strconv.Itoa(total):
			saves++
		default:
			t.Fatalf("round %d: state holds seq %s; want the old cursor %q or the log's last event %d", round, after, before, total)
		}
	}
	// The state still works: a full run passes exactly what came after it.
	from := savedSeq()
	grow(10)
	out, errs, code := runFile(t, "--state", state, logPath)
	n := strings.Count(out, "\n")
	fromN, _ := strconv.Atoi(from)
	if code != 0 || n != total-fromN {
		t.Fatalf("after the kills: exit %d, %d events passed, want %d (cursor %s); stderr %q", code, n, total-fromN, from, errs)
	}
	t.Logf("60 kills, %d of them after the save", saves)
}

func runFile(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return run(t, "", args...)
}
