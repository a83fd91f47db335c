//go:build linux

package stop

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A signal sent to the process just before Err is asked is never missed:
// Err waits until it was handed over (the kernel delivers it to some
// thread, and Go hands it over on a goroutine of its own, a moment later).
func TestErrWaitsForASignalOnItsWay(t *testing.T) {
	firsts := make(chan *Error, 1000)
	exit = func(code int) { t.Errorf("exit(%d): a second signal, though each run is the first", code) }
	Watch(func(e *Error) { firsts <- e })
	for run := range 500 {
		got.Store(0)
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		var e *Error
		if err := Err(); !errors.As(err, &e) || e.ExitCode() != 143 {
			t.Fatalf("run %d: Err() = %v just after SIGTERM, want exit status 143", run, err)
		}
		<-firsts
	}
}

// What the barrier costs a run: Err is asked once at the end of a pipe,
// once before a report or a cursor is saved, and once at exit.
func BenchmarkErr(b *testing.B) {
	if !watching.Load() {
		Watch(func(*Error) {})
	}
	for b.Loop() {
		if err := Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// Commit decides once: after it, a first signal leaves the run to end
// with its result (no Error, no exit), and a signal before it is the
// answer, again and again.
func TestCommitDecidesOnce(t *testing.T) {
	firsts := make(chan *Error, 10)
	exits := make(chan int, 10)
	exit = func(code int) { exits <- code }
	if !watching.Load() {
		Watch(func(e *Error) { firsts <- e })
	}
	got.Store(0)
	late.Store(0)
	if err := Commit(); err != nil {
		t.Fatalf("Commit() = %v with no signal", err)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	if err := Err(); err != nil {
		t.Errorf("Err() = %v after a signal that came after Commit", err)
	}
	if err := Commit(); err != nil {
		t.Errorf("Commit() again = %v, want nil as the first time", err)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	Err()
	if code := <-exits; code != 143 {
		t.Errorf("a second signal after Commit: exit %d, want 143", code)
	}

	got.Store(0)
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	for range 2 {
		var e *Error
		if err := Commit(); !errors.As(err, &e) || e.ExitCode() != 130 {
			t.Errorf("Commit() = %v after SIGINT, want exit status 130", err)
		}
	}
}

// A parent may start a tool with signals blocked: perf stat blocks
// SIGWINCH, which Go then keeps blocked on every thread but one. The mark
// was SIGWINCH, so each of Err's marks never came and each wait ran its
// second out (6 s at every exit). The mark is now one Go unblocks on
// every thread, even when the parent blocked it too.
func TestErrWhenStartedWithSignalsBlocked(t *testing.T) {
	if os.Getenv("STOP_TEST_CHILD") == "1" {
		Watch(func(*Error) {})
		if err := Err(); err != nil {
			fmt.Println(err)
		}
		status, _ := os.ReadFile("/proc/thread-self/status")
		_, blk, _ := strings.Cut(string(status), "SigBlk:\t")
		mask, _ := strconv.ParseUint(blk[:16], 16, 64)
		fmt.Printf("SIGWINCH blocked %v, marks missed %d\n", mask&(1<<(syscall.SIGWINCH-1)) != 0, missed.Load())
		return
	}
	perl, err := exec.LookPath("perl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	block := fmt.Sprintf("sigprocmask(SIG_BLOCK, POSIX::SigSet->new(%d, %d)) or die; exec @ARGV", syscall.SIGWINCH, mark)
	cmd := exec.Command(perl, "-MPOSIX", "-e", block, os.Args[0], "-test.run=^TestErrWhenStartedWithSignalsBlocked$")
	cmd.Env = append(os.Environ(), "STOP_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SIGWINCH blocked true, marks missed 0\n") {
		t.Errorf("started with SIGWINCH and the mark blocked: %v\n%s", err, out)
	}
}
