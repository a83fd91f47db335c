//go:build unix

package evsum

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/klauspost/compress/zstd"
)

// A FIFO named as a file (mkfifo, or bash's <(...) as /dev/fd/N) is read
// as a pipe on stdin is: in chunks on several cores, with one pass's
// output; so is zstd on a FIFO, once decompressed. It is opened once:
// before, on two cores or more, it was opened to see whether it could be
// cut, and closed, which could leave its writer writing to no reader
// (EPIPE) and evsum waiting for another.
func TestFIFOInChunks(t *testing.T) {
	var env bytes.Buffer
	if err := corpus.Envelope(&env, 64<<10, 5); err != nil {
		t.Fatal(err)
	}
	env.WriteString("not json\n")
	var zst bytes.Buffer
	zw, err := zstd.NewWriter(&zst)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(env.Bytes())
	zw.Close()
	fifo := filepath.Join(t.TempDir(), "events")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{env.Bytes(), zst.Bytes()} {
		run := func(n int) result {
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return // the test fails on evsum's side
				}
				w.Write(data)
				w.Close()
			}()
			done := make(chan result, 1)
			go func() { done <- evsumOn(t, n, []string{"--format", "jsonl", "--by", "agent", fifo}) }()
			select {
			case r := <-done:
				return r
			case <-time.After(10 * time.Second):
				// Opened and closed before it was read (to see whether it
				// could be cut), the FIFO lost its writer: a writer of no
				// data lets evsum end.
				t.Errorf("evsum on %d cores still waits for the FIFO", n)
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				return <-done
			}
		}
		want := run(1)
		before := partStates.Load()
		got := run(7) // 700-byte chunks
		if got != want {
			t.Fatalf("FIFO on 7 cores: %+v\none pass: %+v", got, want)
		}
		if n := partStates.Load() - before; n < int64(env.Len()/700/2) {
			t.Errorf("%d states for %d bytes in chunks of 700", n, env.Len())
		}
	}
}
