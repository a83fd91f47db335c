package evcursor

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/filters/cursor"
	"github.com/evtools/evtools/internal/shell/cli"
)

// Only a pipe or a FIFO is drained: a file, a device, a writer that is no
// file are written and done.
func TestPipeOf(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if f, socket := pipeOf(w); f != w || socket {
		t.Error("a pipe's write end is not a pipe")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pipeOf1(f) != nil {
		t.Error("a regular file is taken for a pipe")
	}
	if dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		if pipeOf1(dev) != nil {
			t.Errorf("%s is taken for a pipe", os.DevNull)
		}
		dev.Close()
	}
	if pipeOf1(&bytes.Buffer{}) != nil || pipeOf1(nil) != nil {
		t.Error("a writer that is not a file is taken for a pipe")
	}
	closed, _, _ := os.Pipe()
	closed.Close()
	if pipeOf1(closed) != nil {
		t.Error("a closed file (Stat fails) is taken for a pipe")
	}
}

// pipeOf1 is the file pipeOf finds.
func pipeOf1(out any) *os.File {
	f, _ := pipeOf(out)
	return f
}

// withDrain runs f with drain set to d, as on a system where d is the drain.
func withDrain(t *testing.T, d func(*os.File) error, f func()) {
	t.Helper()
	defer func(old func(*os.File) error) { drain = old }(drain)
	drain = d
	f()
}

// writeLog writes log into a file of its own and returns its name.
func writeLog(t *testing.T, log string) string {
	t.Helper()
	logf := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(logf, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	return logf
}

// stateRun runs evcursor --state on the file logf in this process, its
// stdout the write end w of a pipe, and returns its exit status and
// stderr.
func stateRun(state, logf string, w *os.File) (int, string) {
	var stderr bytes.Buffer
	code := Main([]string{"--state", state, logf}, cli.Stdio{In: strings.NewReader(""), Out: w, Err: &stderr})
	return code, stderr.String()
}

func events(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r","kind":"x"}`+"\n", i, 1758800000+i)
	}
	return b.String()
}

// The fallback of macOS, FreeBSD and Windows (docs/platforms.md), run here
// in its place: written is taken for read. A run whose reader has read
// nothing yet ends at once, cleanly, and the cursor moves past every event
// it wrote (where Linux waits for the reader); the reader still gets them
// all.
func TestDrainUnknownMovesCursorPastWritten(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s.cursor")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	log := events(1, 200) // about 10 KB: fits in the pipe's buffer
	logf := writeLog(t, log)
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		withDrain(t, drainUnknown, func() { code, stderr = stateRun(state, logf, w) })
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the fallback waited for the reader")
	}
	w.Close()
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want a clean 0", code, stderr)
	}
	if got := cursorSeq(t, state); got != "200" {
		t.Errorf("cursor at seq %q, want 200 (the last event written)", got)
	}
	got, _ := io.ReadAll(r)
	if string(got) != log {
		t.Errorf("the reader got %d bytes, want the %d written", len(got), len(log))
	}
}

// A reader gone before the run writes is seen by every system: the write
// fails, the run ends quietly (exit 0) and the cursor stays where it was,
// under the fallback too.
func TestDrainUnknownReaderGoneKeepsCursor(t *testing.T) {
	state := filepath.Join(t.TempDir(), "s.cursor")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, r)
	withDrain(t, drainUnknown, func() {
		if code, stderr := stateRun(state, writeLog(t, events(1, 3)), w); code != 0 || stderr != "" {
			t.Fatalf("first run: exit %d, %s", code, stderr)
		}
	})
	w.Close()
	before, _ := os.ReadFile(state)

	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	withDrain(t, drainUnknown, func() {
		code, stderr := stateRun(state, writeLog(t, events(1, 3)+events(4, 50000)), w)
		if code != 0 || stderr != "" {
			t.Errorf("exit %d, stderr %q; want a quiet 0", code, stderr)
		}
	})
	if after, _ := os.ReadFile(state); !bytes.Equal(after, before) {
		t.Errorf("the cursor moved although the reader was gone:\n%s\nwas\n%s", after, before)
	}
}

// The drain this system builds with: Linux's waits for the reader,
// every other system's is the fallback.
func TestDrainOfThisSystem(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.Write([]byte("unread\n"))
	res := make(chan error, 1)
	go func() { res <- drain(w) }()
	select {
	case err := <-res:
		if runtime.GOOS == "linux" {
			t.Fatalf("drain returned (%v) with bytes unread", err)
		}
		if err != nil {
			t.Fatalf("the fallback failed: %v", err)
		}
		return
	case <-time.After(200 * time.Millisecond):
		if runtime.GOOS != "linux" {
			t.Fatal("the fallback waited")
		}
	}
	io.ReadFull(r, make([]byte, 7))
	select {
	case err := <-res:
		if err != nil {
			t.Errorf("drain after the reader read it all: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("drain still waits with the pipe empty")
	}
}

// cursorSeq is the seq of the cursor saved in state.
func cursorSeq(t *testing.T, state string) string {
	t.Helper()
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatalf("no state saved: %v", err)
	}
	st, err := cursor.ParseState(data)
	if err != nil || st.Cursor == nil {
		t.Fatalf("no cursor in the state (%v):\n%s", err, data)
	}
	return string(st.Cursor.Seq)
}
