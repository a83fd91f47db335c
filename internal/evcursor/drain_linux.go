package evcursor

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// waitRead waits, after the last event was flushed, until the process
// reading the pipe on stdout has read every byte of it, so that --state
// moves the cursor only past what the reader read. A reader that closes
// its end with bytes unread (| head -1 of a short output that fitted in
// the pipe buffer) is an error: those events were not delivered. Output
// that is not a pipe returns nil at once.
func waitRead(out any) error {
	f, ok := out.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
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
