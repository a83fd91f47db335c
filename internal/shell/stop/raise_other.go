//go:build unix && !linux

package stop

import "syscall"

// mark is as on Linux (raise_linux.go).
func init() { mark = syscall.SIGCHLD }

// raise sends sig to the process: POSIX has a signal sent to the calling
// process delivered before kill(2) returns. There is no portable way to
// reach each thread, so threads lists none.
func raise(_ int, sig syscall.Signal) error { return syscall.Kill(syscall.Getpid(), sig) }

func threads() []int { return nil }
