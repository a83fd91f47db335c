package evcursor

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// drain is drainFIONREAD: Linux tells how many bytes a pipe holds, asked
// of either end.
var drain = drainFIONREAD

// drainFIONREAD waits until the pipe f (stdout) is empty, asking FIONREAD
// every 50 ms or when the reader goes away: nil once it is empty (every
// byte read), errUnread when the reader closed its end with bytes in it.
func drainFIONREAD(f *os.File) error {
	fd := int(f.Fd())
	for {
		// FIONREAD (TIOCINQ) on either end of a pipe is the number of bytes in it.
		n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
		if err != nil || n == 0 {
			return nil // all read (or cannot tell: as before)
		}
		// The write end reports POLLERR once no reader is left.
		pfd := []unix.PollFd{{Fd: int32(fd)}}
		if _, err := unix.Poll(pfd, 50); err != nil && !errors.Is(err, unix.EINTR) {
			return nil
		}
		if pfd[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err == nil && n == 0 {
				return nil
			}
			return errUnread
		}
	}
}

// errUnread wraps EPIPE: like any reader gone, it ends the run quietly.
var errUnread = &os.PathError{Op: "write", Path: "stdout", Err: unix.EPIPE}
