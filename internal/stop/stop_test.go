//go:build linux

package stop

import (
	"errors"
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
