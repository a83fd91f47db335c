//go:build linux

package evcursor

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// socketPair returns the two ends of a UNIX stream socket as files, as
// Node's child_process gives a child its stdout.
func socketPair(t *testing.T) (mine, peer *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "stdout"), os.NewFile(uintptr(fds[1]), "peer")
}

// With stdout a socket whose peer never reads, --state waits as it does
// on a pipe: the peer closes its end with every event unread, the run
// ends quietly and the cursor does not move, so the next run passes all
// of them again.
func TestSocketPeerThatNeverReadsKeepsCursor(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s.cursor")
	logf := writeLog(t, events(1, 1000)) // ~50 KB: fits in the socket's buffer
	out, peer := socketPair(t)
	defer out.Close()
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		code, stderr = stateRun(state, logf, out)
		close(done)
	}()
	select {
	case <-done:
		t.Fatalf("the run ended (exit %d, %q) while the socket's peer had read nothing", code, stderr)
	case <-time.After(300 * time.Millisecond):
	}
	peer.Close() // gone without a recv
	<-done
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want a quiet 0, as for a reader gone", code, stderr)
	}
	if _, err := os.Stat(state); err == nil {
		t.Errorf("the cursor was saved (seq %s) past events the peer never read", cursorSeq(t, state))
	}
	// the next run passes every event again
	out2, peer2 := socketPair(t)
	defer peer2.Close()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(peer2)
		got <- string(b)
	}()
	code, stderr = stateRun(state, logf, out2)
	out2.Close()
	if n := strings.Count(<-got, "\n"); code != 0 || n != 1000 {
		t.Fatalf("next run: exit %d (%s), %d events passed, want all 1000", code, stderr, n)
	}
	if seq := cursorSeq(t, state); seq != "1000" {
		t.Errorf("cursor at %s after a peer read them all, want 1000", seq)
	}
}

func TestPipeOfSocket(t *testing.T) {
	out, peer := socketPair(t)
	defer out.Close()
	defer peer.Close()
	if f, socket := pipeOf(out); f != out || !socket {
		t.Errorf("pipeOf(a socket) = %v, %v; want the socket, true", f, socket)
	}
}
