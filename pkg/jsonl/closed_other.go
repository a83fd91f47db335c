//go:build !windows

package jsonl

import "syscall"

// pipeGone are the errors besides EPIPE that say the reader of the output
// went away: none, on systems that have EPIPE.
var pipeGone []syscall.Errno
