package jsonl

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// A reader gone is a quiet end on every system: EPIPE on Unix, and on
// Windows the two errors Windows gives instead, which mean other things
// elsewhere (109 is ETOOMANYREFS on Linux).
func TestIsClosedOnEverySystem(t *testing.T) {
	write := func(errno syscall.Errno) error {
		return fmt.Errorf("stdout: %w", &os.PathError{Op: "write", Path: "/dev/stdout", Err: errno})
	}
	for _, err := range []error{write(syscall.EPIPE), io.ErrClosedPipe} {
		if !IsClosed(err) {
			t.Errorf("IsClosed(%v) = false", err)
		}
	}
	for _, errno := range windowsPipeGone {
		if !isErrno(write(errno), windowsPipeGone) {
			t.Errorf("Windows's errno %d is not taken for a reader gone", errno)
		}
		if got, want := IsClosed(write(errno)), runtime.GOOS == "windows"; got != want {
			t.Errorf("on %s IsClosed(errno %d) = %v, want %v", runtime.GOOS, errno, got, want)
		}
	}
	for _, err := range []error{write(syscall.EIO), io.EOF, nil} {
		if IsClosed(err) || isErrno(err, windowsPipeGone) {
			t.Errorf("IsClosed(%v) = true", err)
		}
	}
}
