//go:build linux

package stop

import (
	"errors"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
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

// A process started with the mark blocked (perf stat starts its command
// so) has it blocked on every thread but the one Go hands signals over
// on. Err then sends the mark to the process, which comes through, instead
// of to each thread, where it never came and each wait ran out (6 s at
// every exit).
func TestErrWithTheMarkBlocked(t *testing.T) {
	if !watching.Load() {
		Watch(func(*Error) {})
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	block := func(how int) {
		set := uint64(1) << (mark - 1)
		if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, uintptr(how), uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0); e != 0 {
			t.Fatal(e)
		}
	}
	block(0)       // SIG_BLOCK
	defer block(1) // SIG_UNBLOCK
	if !markBlocked() {
		t.Fatal("markBlocked() = false on a thread that blocks the mark")
	}
	got.Store(0)
	before := missed.Load()
	if err := Err(); err != nil {
		t.Fatalf("Err() = %v with no signal", err)
	}
	if n := missed.Load() - before; n != 0 {
		t.Errorf("%d marks did not come through", n)
	}
}
