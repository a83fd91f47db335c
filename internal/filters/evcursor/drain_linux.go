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

// drainSocket is drainOutq: Linux tells how much a socket has sent that
// its peer has not taken yet.
var drainSocket = drainOutq

// drainOutq waits until the peer of the socket f (stdout) has taken every
// byte written to it, asking SIOCOUTQ every 50 ms: for a UNIX socket the
// bytes still in the peer's receive queue, for TCP those its kernel has
// not acknowledged. A peer that closes its end with bytes unread has them
// dropped, which empties the queue, but leaves the error ECONNRESET on
// this end (POLLERR): errUnread, those events were not delivered.
func drainOutq(f *os.File) error {
	fd := int(f.Fd())
	for timeout := 0; ; timeout = 50 {
		pfd := []unix.PollFd{{Fd: int32(fd)}}
		if _, err := unix.Poll(pfd, timeout); err != nil && !errors.Is(err, unix.EINTR) {
			return nil
		}
		if pfd[0].Revents&unix.POLLERR != 0 {
			return errUnread
		}
		n, err := unix.IoctlGetInt(fd, unix.SIOCOUTQ)
		if err != nil || n == 0 {
			return nil // all taken (or cannot tell: as before)
		}
	}
}

// errUnread wraps EPIPE: like any reader gone, it ends the run quietly.
var errUnread = &os.PathError{Op: "write", Path: "stdout", Err: unix.EPIPE}
