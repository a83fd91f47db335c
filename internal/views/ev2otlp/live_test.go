package ev2otlp

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/shell/cli"
)

// lines hands on each complete line written to it.
type lines struct {
	mu  sync.Mutex
	buf []byte
	ch  chan string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.ch <- string(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

// Live: reading a pipe, a span is written as soon as it ends and the
// input pauses, not when the input ends: the parent's first model call
// is out while the run goes on, and the run's root once it ends.
func TestLive(t *testing.T) {
	events := bytes.SplitAfter(readFile(t, "../../../examples/events/multiagent.jsonl"), []byte("\n"))
	pr, pw := io.Pipe()
	out := &lines{ch: make(chan string, 100)}
	done := make(chan int)
	go func() { done <- Main(nil, cli.Stdio{In: pr, Out: out, Err: io.Discard}) }()
	waitFor := func(what, want string) {
		t.Helper()
		deadline := time.After(time.Minute) // only so that a failure does not hang
		for {
			select {
			case line := <-out.ch:
				decodeLine(t, []byte(line))
				if strings.Contains(line, want) {
					return
				}
			case <-deadline:
				t.Fatalf("%s: not written while the input waits", what)
			}
		}
	}
	// user_message, run_started, the parent's model_call and model_result
	for _, e := range events[:4] {
		pw.Write(e)
	}
	waitFor("the parent's first model call", `"name":"chat deepseek-v4-pro"`)
	for _, e := range events[4:36] { // the rest of run r_0001a3f2
		pw.Write(e)
	}
	waitFor("the end of the first run", `"name":"invoke_agent parent"`)
	pw.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}
