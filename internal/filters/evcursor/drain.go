package evcursor

import "os"

// waitRead waits, after the last event was flushed, until the process
// reading the pipe on stdout has read every byte of it, so that --state
// moves the cursor only past what the reader read. A reader that closes
// its end with bytes unread (| head -1 of a short output that fitted in
// the pipe buffer) is an error: those events were not delivered. A
// socket is waited on as a pipe is (Node's child_process pipes are UNIX
// sockets). Output that is neither returns nil at once.
//
// Only Linux can tell what a pipe's or a socket's reader has read
// (drain_linux.go); elsewhere drain is drainUnknown (drain_other.go).
func waitRead(out any) error {
	if f, socket := pipeOf(out); f != nil {
		if socket {
			return drainSocket(f)
		}
		return drain(f)
	}
	return nil
}

// pipeOf is out when it is a pipe, a FIFO or a socket (socket set), else
// nil.
func pipeOf(out any) (f *os.File, socket bool) {
	f, ok := out.(*os.File)
	if !ok {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil, false
	}
	return f, fi.Mode()&os.ModeSocket != 0
}

// drainUnknown is the drain of the systems that cannot tell how much of a
// pipe its reader has read: macOS, FreeBSD and Windows. There FIONREAD
// asked of the write end, the one a writer holds, does not count the bytes
// waiting at the read end, and Windows counts them (PeekNamedPipe) only
// for who holds the read end. So it returns at once: the cursor moves past
// what was written.
// A reader that went away before the last write still stops the cursor
// (the write fails with EPIPE, or ERROR_NO_DATA on Windows, a quiet end);
// one that goes away with written events unread does not.
// docs/platforms.md says so, and that --defer with --commit after the
// consumer succeeded is the guarantee that holds everywhere.
func drainUnknown(*os.File) error { return nil }
