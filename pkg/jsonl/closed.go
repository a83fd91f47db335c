package jsonl

import (
	"errors"
	"slices"
	"syscall"
)

// windowsPipeGone are the errors of a write, on Windows, to a pipe whose
// reader has gone: ERROR_BROKEN_PIPE (109) and ERROR_NO_DATA (232, "the
// pipe is being closed"). Windows has no EPIPE; os/exec takes the same
// two for a reader gone. On other systems these numbers mean other
// things, so pipeGone holds them only on Windows (closed_windows.go).
var windowsPipeGone = []syscall.Errno{109, 232}

// isErrno reports whether err is, or wraps, one of errnos.
func isErrno(err error, errnos []syscall.Errno) bool {
	var e syscall.Errno
	return errors.As(err, &e) && slices.Contains(errnos, e)
}
