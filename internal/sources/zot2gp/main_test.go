package zot2gp_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/scripttest"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
	"github.com/klauspost/compress/zstd"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{
		// Helpers for the scripts: compress stdin to stdout.
		"gzip": func(args []string, stdio cli.Stdio) int {
			zw := gzip.NewWriter(stdio.Out)
			if _, err := io.Copy(zw, stdio.In); err != nil {
				return 1
			}
			if zw.Close() != nil {
				return 1
			}
			return 0
		},
		"zstd": func(args []string, stdio cli.Stdio) int {
			zw, _ := zstd.NewWriter(stdio.Out)
			if _, err := io.Copy(zw, stdio.In); err != nil {
				return 1
			}
			if zw.Close() != nil {
				return 1
			}
			return 0
		},
	})
}

func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }

// A live pipe (zot --rpc | zot2gp | consumer) sees each event before the
// next one is written: by default too, where events without a time wait
// for a recorded one (to learn whether the clock is theirs) only until the
// input pauses.
func TestLivePipeFlush(t *testing.T) {
	for _, args := range [][]string{{"--ts=stable"}, nil} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { livePipeFlush(t, args) })
	}
}

func livePipeFlush(t *testing.T, args []string) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- zot2gp.Main(args, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	events := []struct{ in, kind string }{
		{`{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`, `"kind":"response"`},
		{`{"step":1,"type":"turn_start"}`, `"kind":"turn_start"`},
		{`{"delta":"hi","type":"text_delta"}`, `"kind":"message_update"`},
		{`{"type":"done"}`, `"kind":"agent_end"`},
	}
	for i, ev := range events {
		if _, err := io.WriteString(inW, ev.in+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() { l, _ := lines.ReadString('\n'); got <- l }()
		select {
		case l := <-got:
			if !strings.Contains(l, ev.kind) || !strings.Contains(l, `"payload":`+ev.in+"}") {
				t.Fatalf("event %d: got %q, want kind %s with the payload %s", i+1, l, ev.kind, ev.in)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d did not come out while zot2gp waits for the next one", i+1)
		}
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// `zot2gp big.jsonl | head -1`: the reader goes away, zot2gp stops early,
// quietly, with status 0.
func TestClosedStdoutEndsQuietly(t *testing.T) {
	input := strings.Repeat(`{"delta":"x","type":"text_delta"}`+"\n", 200000)
	for _, name := range []string{"io.Pipe", "os.Pipe"} {
		var r io.ReadCloser
		var w io.WriteCloser
		if name == "io.Pipe" {
			r, w = io.Pipe()
		} else {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r, w = pr, pw
		}
		first := make(chan string, 1)
		go func() {
			l, _ := bufio.NewReader(r).ReadString('\n')
			first <- l
			r.Close()
		}()
		var stderr bytes.Buffer
		code := zot2gp.Main([]string{"--ts=stable"}, cli.Stdio{In: strings.NewReader(input), Out: w, Err: &stderr})
		w.Close()
		if l := <-first; !strings.HasPrefix(l, `{"seq":1,`) {
			t.Errorf("%s: first line %q", name, l)
		}
		if code != 0 || stderr.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing", name, code, stderr.String())
		}
	}
}

// The real process behind `zot2gp big.jsonl | head -1` (stdout is fd 1,
// where Go's runtime turns EPIPE into a fatal SIGPIPE) ends quietly with
// status 0, as --help says, not killed with 141, which fails a pipeline
// under `set -o pipefail`.
func TestClosedStdoutProcessExitsZero(t *testing.T) {
	bin, err := exec.LookPath("zot2gp") // the test binary, put on PATH by RunMain
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(bin, "--ts=stable")
	cmd.Stdin = strings.NewReader(strings.Repeat(`{"delta":"x","type":"text_delta"}`+"\n", 200000))
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	if err != nil || stderr.Len() != 0 {
		t.Errorf("%v, stderr %q; want a quiet exit 0", err, stderr.String())
	}
}

// Memory stays flat: after a huge event has gone out, zot2gp holds no
// buffer of its size while it waits for the next one.
func TestHugeEventBufferIsReleased(t *testing.T) {
	const size = 32 << 20
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- zot2gp.Main([]string{"--ts=stable"}, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
		outW.Close()
	}()
	go func() {
		io.WriteString(inW, `{"type":"text_delta","delta":"`+strings.Repeat("x", size)+`"}`+"\n")
		io.WriteString(inW, `{"type":"done"}`+"\n")
	}()
	lines := bufio.NewReaderSize(outR, 1<<16)
	for i := range 2 {
		n := 0
		for {
			b, err := lines.ReadSlice('\n')
			n += len(b)
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				t.Fatalf("event %d: %v", i+1, err)
			}
		}
		if i == 0 && n < size {
			t.Fatalf("the huge event came out with %d bytes", n)
		}
	}
	// zot2gp is now waiting for a third line.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if ms.HeapAlloc > size/2 {
		t.Errorf("%d MB still allocated after the %d MB event went out", ms.HeapAlloc>>20, size>>20)
	}
}

// Item 4a: `zot2gp < run.jsonl` is a stored transcript (stdin is a regular
// file): its events keep their recorded times and the others get 0 (no
// time known), never the replay clock, which made a 1.8 s run 162 days
// long. Issue 21 item 12: through a pipe (cat, zcat) the same stored
// transcript is judged by its recorded times, far from the clock, and
// converts as from the file. A live stream, whose recorded times are the
// clock's, gets the clock for the others, the first response (which comes
// before any recorded time) included.
func TestTSFollowsTheInput(t *testing.T) {
	const layout = "2006-01-02T15:04:05.000Z"
	run := func(at time.Time) string {
		return `{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}
{"content":[{"text":"hi","type":"text"}],"time":"` + at.UTC().Format(layout) + `","type":"user_message"}
{"step":1,"type":"turn_start"}
{"content":[{"text":"hello","type":"text"}],"time":"` + at.Add(1818*time.Millisecond).UTC().Format(layout) + `","type":"assistant_message"}
{"stop":"end","type":"turn_end"}
{"type":"done"}
`
	}
	transcript := run(time.Date(2026, 6, 21, 23, 14, 52, 309e6, time.UTC))
	tsOf := func(t *testing.T, out string) []string {
		var ts []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			i := strings.Index(l, `"ts":`) + len(`"ts":`)
			ts = append(ts, l[i:i+strings.IndexByte(l[i:], ',')])
		}
		return ts
	}
	pipe := func(t *testing.T, input string) string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		go func() { io.WriteString(w, input); w.Close() }()
		var out, errs bytes.Buffer
		if code := zot2gp.Main(nil, cli.Stdio{In: r, Out: &out, Err: &errs}); code != 0 {
			t.Fatalf("exit %d: %s", code, errs.String())
		}
		return out.String()
	}
	path := t.TempDir() + "/run.jsonl"
	if err := os.WriteFile(path, []byte(transcript), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errs bytes.Buffer
	if code := zot2gp.Main(nil, cli.Stdio{In: f, Out: &out, Err: &errs}); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	want := []string{"0", "1782083692.309", "0", "1782083694.127", "0", "0"}
	if got := tsOf(t, out.String()); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("stdin from a file: ts %v, want %v", got, want)
	}

	if got := tsOf(t, pipe(t, transcript)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("a stored transcript through a pipe: ts %v, want %v, as from the file", got, want)
	}

	before := time.Now().Unix()
	live := pipe(t, run(time.Now()))
	for i, ts := range tsOf(t, live) {
		sec, _, _ := strings.Cut(ts, ".")
		if n, err := strconv.ParseInt(sec, 10, 64); err != nil || n < before || n > time.Now().Unix()+2 {
			t.Errorf("live pipe, line %d: ts %s, want the clock's time", i+1, ts)
		}
	}
}
