package evimport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file that can be read only once (a pipe: evimport <(zstdcat
// log.jsonl.zst)) is converted: the scan's reading of it is kept for the
// conversion, not lost by reading the pipe again, which then holds
// nothing.
func TestAPipeIsReadOnce(t *testing.T) {
	id := `"sessionId":"` + reviewSession + `"`
	log := claudeTestLine(id, "user", "u1", "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"list the tests"}`) +
		claudeTestLine(id, "assistant", "a1", "2026-03-02T09:00:02.000Z",
			`"requestId":"req_1","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_1","role":"assistant","content":[{"type":"text","text":"There are three."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":9}}`) +
		"{\"type\":\"user\"\n"
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString(log); err != nil {
		t.Fatal(err)
	}
	w.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	code, stdout, stderr := runMain("", path)
	if code != 2 || stderr != "evimport: "+path+":3: unexpected end of input (truncated line?)\n" {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and the bad line reported", code, stderr)
	}
	for _, want := range []string{`"text":"list the tests"`, `"text":"There are three."`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no event with %s in:\n%s", want, stdout)
		}
	}
}

// A FIFO named like a session file inside a folder is not opened by the
// walk, which would wait for a writer for ever and never write the good
// session beside it: it is skipped, and said; with --follow too.
func TestFolderSkipsFIFO(t *testing.T) {
	id := `"sessionId":"` + reviewSession + `"`
	dir := writeFiles(t, map[string]string{
		"a.jsonl": claudeTestLine(id, "user", "u1", "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"list the tests"}`),
	})
	fifo := filepath.Join(dir, "b.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{dir}, {"-F", dir}} {
		done := make(chan struct{})
		var code int
		var stdout, stderr string
		followDone = func() bool { return true } // -F: one look, then end
		go func() {
			defer close(done)
			code, stdout, stderr = runMain("", args...)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute): // a hang, not a timing
			t.Fatalf("evimport %v hangs on the FIFO %s", args, fifo)
		}
		followDone = nil
		if code != 0 || stderr != "evimport: "+fifo+": not a regular file (a named pipe), skipped\n" || !strings.Contains(stdout, `"text":"list the tests"`) {
			t.Errorf("evimport %v: exit %d, stderr:\n%s\nstdout:\n%s\nwant exit 0, the FIFO said skipped and the session written", args, code, stderr, stdout)
		}
	}
}
