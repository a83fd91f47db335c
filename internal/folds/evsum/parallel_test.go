package evsum

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// result is what one evsum run gives.
type result struct {
	code     int
	out, err string
}

func evsumOn(t *testing.T, n int, args []string) result {
	t.Helper()
	return evsumPiped(t, n, nil, args)
}

// evsumPiped is evsumOn with stdin a pipe fed data (os.Pipe, as a shell
// gives), or an empty reader when data is nil. On several cores the pipe
// is read in chunks of a few bytes (3 cores) or a few lines (7 cores), or
// of the default size (2 cores).
func evsumPiped(t *testing.T, n int, data []byte, args []string) result {
	t.Helper()
	defer func(c func() int, m int64, b, k int) { cores, minPart, partBuf, chunkSize = c, m, b, k }(cores, minPart, partBuf, chunkSize)
	cores = func() int { return n }
	minPart = 1 // cut even the smallest file
	// Read buffers and chunks of a few bytes put lines across reads and
	// make most of them longer than the buffer.
	switch n {
	case 3:
		partBuf, chunkSize = 7, 5
	case 7:
		partBuf, chunkSize = 300, 700
	}
	var stdin io.Reader = strings.NewReader("")
	if data != nil {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		go func() { w.Write(data); w.Close() }()
		stdin = r
	}
	var out, errs bytes.Buffer
	code := Main(args, cli.Stdio{In: stdin, Out: &out, Err: &errs})
	return result{code, out.String(), errs.String()}
}

// sameAsOnePass runs evsum with args on one core and on several, and
// wants the same stdout, stderr and status, byte for byte.
func sameAsOnePass(t *testing.T, args ...string) {
	t.Helper()
	samePiped(t, nil, args...)
}

// samePiped is sameAsOnePass with data on stdin, through a pipe.
func samePiped(t *testing.T, data []byte, args ...string) {
	t.Helper()
	want := evsumPiped(t, 1, data, args)
	for _, n := range []int{2, 3, 7} {
		got := evsumPiped(t, n, data, args)
		if got != want {
			t.Fatalf("evsum %s on %d cores differs from one pass:\nstatus %d, want %d\nstderr:\n%s\nwant:\n%s\nstdout:\n%.3000s\nwant:\n%.3000s",
				strings.Join(args, " "), n, got.code, want.code, got.err, want.err, got.out, want.out)
		}
	}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// variants are the reports the parallel path must give as one pass does.
var variants = [][]string{
	{"--format", "jsonl"},
	{"--format", "json", "--by", "agent"},
	{"--format", "md", "--by", "tool"},
	{"--format", "csv", "--by", "model", "--breakdown", "model"},
	{"--format", "html", "--by", "kind"},
	{"--format", "table", "--wide", "--by", "day"},
	{"--format", "jsonl", "--by", "none", "--check"},
	{"--format", "jsonl", "--by", "hour,kind"},
	{"--format", "jsonl", "--since", "@1793520000", "--until", "@1793530000"},
	{"--format", "jsonl", "--sort", "cost", "--top", "3"},
}

func TestParallelCorpora(t *testing.T) {
	var env, zot, gp, errs bytes.Buffer
	if err := corpus.Envelope(&env, 3<<20, 7); err != nil {
		t.Fatal(err)
	}
	if err := corpus.Zot(&zot, 3<<20, 7); err != nil {
		t.Fatal(err)
	}
	if code := zot2gp.Main([]string{"--ts", "stable"}, cli.Stdio{In: &zot, Out: &gp, Err: &errs}); code != 0 {
		t.Fatalf("zot2gp: %d %s", code, errs.String())
	}
	ex, err := os.ReadFile("../../../examples/events/multiagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"envelope":   writeFile(t, "env.jsonl", env.Bytes()),
		"glasspane":  writeFile(t, "gp.jsonl", gp.Bytes()),
		"multiagent": writeFile(t, "multiagent.jsonl", ex),
	}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			for _, v := range variants {
				sameAsOnePass(t, append(v, f)...)
			}
		})
	}
	// several files, the same one twice among them: runs span files
	t.Run("files", func(t *testing.T) {
		sameAsOnePass(t, "--format", "jsonl", files["glasspane"], files["multiagent"], files["glasspane"])
		sameAsOnePass(t, "--format", "jsonl", "--by", "agent", files["multiagent"], files["envelope"])
	})
	// by the members evimport writes, whose groups count their runs'
	// outcomes and wall times: the runs of a group cut by the parts
	t.Run("sessions", func(t *testing.T) {
		data := withSessions(env.Bytes())
		f := writeFile(t, "sessions.jsonl", data)
		for _, v := range [][]string{
			{"--format", "jsonl", "--by", "session"},
			{"--format", "md", "--by", "project"},
			{"--format", "csv", "--by", "source,project"},
			{"--format", "html", "--by", "session"},
			{"--format", "table", "--wide", "--by", "source", "--sort", "-outcomes.ok", "--top", "2"},
		} {
			sameAsOnePass(t, append(v, f)...)
		}
		samePiped(t, data, "--format", "jsonl", "--by", "session")
	})
	// the same through a pipe, alone and among files
	t.Run("stdin", func(t *testing.T) {
		for _, v := range variants[:6] {
			samePiped(t, env.Bytes(), v...)
		}
		samePiped(t, gp.Bytes(), "--format", "jsonl", "--by", "agent")
		samePiped(t, gp.Bytes(), "--format", "jsonl", files["multiagent"], "-", files["glasspane"])
	})
}

// withSessions gives each event of data the session, project and source
// members evimport writes, by its run: every 40th event another session,
// every 50th none, as in a log evimport did not write.
func withSessions(data []byte) []byte {
	var b bytes.Buffer
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\n"))
		if len(l) == 0 {
			continue
		}
		_, run, _ := bytes.Cut(l, []byte(`"run_id":"`))
		run, _, _ = bytes.Cut(run, []byte(`"`))
		h := 0
		for _, c := range run {
			h = h*31 + int(c)
		}
		h &= 1<<20 - 1
		switch {
		case i%50 == 0:
			b.Write(l)
		case i%40 == 0:
			fmt.Fprintf(&b, `%s,"session":"other","project":"/p%d","source":"pi"}`, l[:len(l)-1], h%3)
		default:
			fmt.Fprintf(&b, `%s,"session":"s%d","project":"/p%d","source":"%s"}`, l[:len(l)-1], h%11, h%3, []string{"claude", "codex"}[h%2])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestParallelBadLines: bad lines, blank lines, CRLF, a BOM and a last
// line without '\n' say and count the same on several cores: the reports
// in order with their file:line, the cap per file and its summary.
func TestParallelBadLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 30 {
		var b bytes.Buffer
		if round%3 == 0 {
			b.WriteString("\xef\xbb\xbf")
		}
		n := 50 + rng.IntN(400)
		for i := range n {
			run := rng.IntN(6)
			ts := 1793520000 + i
			switch rng.IntN(12) {
			case 0:
				fmt.Fprintf(&b, "not json %d\n", i)
			case 1:
				b.WriteString("\n   \t\n")
			case 2:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"model_result","payload":{"tokens":%d,"cost_usd":0.5}}`+"\r\n", i, ts, run, i)
			case 3:
				fmt.Fprintf(&b, `{"seq":%d,"run_id":"r%d"}`+"\n", i, run) // no kind, with its hint
			case 4:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"turn_start","payload":{}}`+"\n", i, ts, run)
			case 5:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"turn_end","payload":{"stop":"end"}}`+"\n", i, ts+1, run)
			case 6:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","agent_id":"a%d","kind":"tool_execution_start","payload":{"id":"c%d","name":"bash"}}`+"\n", i, ts, run, run, i/3)
			case 7:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"tool_execution_end","payload":{"id":"c%d","is_error":true}}`+"\n", i, ts, run, i/3)
			case 8:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"agent_end","payload":{}}`+"\n", i, ts, run)
			case 9:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"run_finished","payload":{"outcome":"ok","wall_seconds":2.5}}`+"\n", i, ts, run)
			default:
				fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"tool_call","payload":{"tool":"t%d"}}`+"\n", i, ts, run, rng.IntN(3))
			}
		}
		if round%2 == 1 {
			b.WriteString(`{"ts":1793520000,"run_id":"last","kind":"error","payload":{}}`) // no '\n'
		}
		f := writeFile(t, "in.jsonl", b.Bytes())
		sameAsOnePass(t, "--format", "jsonl", f)
		sameAsOnePass(t, "--format", "csv", "--by", "agent", f, f)
		samePiped(t, b.Bytes(), "--format", "jsonl")
		samePiped(t, b.Bytes(), "--format", "csv", "--by", "agent", f, "-", f)
	}
}

// TestParallelOnePass: what only one pass can do right is done in one pass,
// with the same result: a NUL, sums out of range only once merged, a call
// id reused, --strict, a gzip file, a file missing.
func TestParallelOnePass(t *testing.T) {
	line := `{"seq":1,"ts":1793520000,"run_id":"r","kind":"model_result","payload":{"tokens":1,"cost_usd":%s}}` + "\n"
	big := strings.Repeat(fmt.Sprintf(line, "0.5"), 50)
	nul := writeFile(t, "nul.jsonl", []byte(big+"{\"kind\":\"x\x00\"}\n"+big))
	// each half fits, both do not: one pass refuses a line
	costly := fmt.Sprintf(line, "6000000000")
	over := writeFile(t, "over.jsonl", []byte(costly+big+costly))
	bad := writeFile(t, "bad.jsonl", []byte(big+"oops\n"+big+"oops\n"))
	// a line longer than the parts read, where a part starts and inside one
	long := strings.Repeat(fmt.Sprintf(line, "0.5"), 2000) + fmt.Sprintf(`{"ts":1793520000,"run_id":"%s","kind":"x"}`+"\n", strings.Repeat("r", maxPartLine+10))
	huge := writeFile(t, "huge.jsonl", []byte(long+long+big))
	// a zot call id used again, ended before it starts: parts alone pair
	// its events otherwise than one pass (summary.State.Fits refuses)
	var reuse strings.Builder
	for i, ev := range []string{"end c0", "end c1", "end c2", "end c0", "start c0", "start c0", "start c0"} {
		kind, id, _ := strings.Cut(ev, " ")
		fmt.Fprintf(&reuse, `{"seq":%d,"ts":%d,"run_id":"r","kind":"tool_execution_%s","payload":{"id":"%s","name":"bash","is_error":true}}`+"\n", i, 1793520000+i, kind, id)
	}
	reused := writeFile(t, "reused.jsonl", []byte(reuse.String()))
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	for _, args := range [][]string{
		{nul}, {over}, {huge}, {reused}, {"--strict", bad}, {bad, missing, bad},
	} {
		sameAsOnePass(t, append([]string{"--format", "jsonl"}, args...)...)
	}
	// On a pipe, read once, each case goes on in one pass where the parts
	// stop: a refused merge's chunk, a long line; and compressed input is
	// cut once decompressed.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(big + "oops\n" + big))
	zw.Close()
	for _, c := range []struct {
		file string
		args []string
	}{
		{nul, nil}, {over, nil}, {huge, nil}, {reused, nil}, {bad, []string{"--strict"}}, {bad, []string{bad, missing, "-"}},
		{over, []string{"--by", "day", "--format", "csv"}}, {writeFile(t, "gz", gz.Bytes()), nil},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		samePiped(t, data, append([]string{"--format", "jsonl"}, c.args...)...)
	}
}

// FuzzParallel: any input gives the same on several cores as in one pass.
func FuzzParallel(f *testing.F) {
	f.Add([]byte(`{"ts":1,"run_id":"a","kind":"turn_start"}`+"\n"+`{"ts":2,"run_id":"a","kind":"turn_end"}`+"\n"), uint8(3))
	f.Add([]byte("\xef\xbb\xbf{\"kind\":\"x\"}\r\n\n \n{}\nnope\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		p := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--format", "jsonl", p}
		want := evsumOn(t, 1, args)
		if got := evsumOn(t, int(n%8)+2, args); got != want {
			t.Fatalf("on %d cores: %+v\none pass: %+v", n%8+2, got, want)
		}
		// through a pipe, in chunks of 5 bytes (3 cores), 700 (7) or
		// 1 MiB (others)
		want = evsumPiped(t, 1, data, args[:2])
		if got := evsumPiped(t, int(n%8)+2, data, args[:2]); got != want {
			t.Fatalf("stdin on %d cores: %+v\none pass: %+v", n%8+2, got, want)
		}
	})
}

// BenchmarkFile is evsum's default summary of a 16 MB envelope file, on
// as many cores as GOMAXPROCS (-cpu 1,2 compares one pass with two parts).
func BenchmarkFile(b *testing.B) {
	var env bytes.Buffer
	if err := corpus.Envelope(&env, 16<<20, 1); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "env.jsonl")
	if err := os.WriteFile(p, env.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(env.Len()))
	for b.Loop() {
		var errs bytes.Buffer
		if code := Main([]string{"--format", "jsonl", p}, cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &errs}); code != 0 {
			b.Fatalf("exit %d: %s", code, errs.String())
		}
	}
}

// A pipe is read on several cores, in chunks each summarised on its own:
// as many states as chunks (the other tests hold the result to one pass's).
// Before, a pipe was read in one pass.
func TestPipeInChunks(t *testing.T) {
	var env bytes.Buffer
	if err := corpus.Envelope(&env, 64<<10, 3); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--format", "jsonl"}, {"--by", "day", "-"}} {
		before := partStates.Load()
		got := evsumPiped(t, 7, env.Bytes(), args) // 700-byte chunks
		if got.code != 0 {
			t.Fatalf("evsum %v: exit %d: %s", args, got.code, got.err)
		}
		if n := partStates.Load() - before; n < int64(env.Len()/700/2) {
			t.Errorf("evsum %v: %d states for %d bytes in chunks of 700", args, n, env.Len())
		}
	}
}

// BenchmarkPipe is BenchmarkFile's summary read from a pipe (os.Pipe, fed
// by a goroutine as cat would), in chunks, on as many cores as GOMAXPROCS
// (-cpu 1,2 compares one pass with the chunks on two cores).
func BenchmarkPipe(b *testing.B) {
	var env bytes.Buffer
	if err := corpus.Envelope(&env, 16<<20, 1); err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{256 << 10, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("chunk=%dK", size>>10), func(b *testing.B) {
			defer func(c int) { chunkSize = c }(chunkSize)
			chunkSize = size
			b.SetBytes(int64(env.Len()))
			for b.Loop() {
				r, w, err := os.Pipe()
				if err != nil {
					b.Fatal(err)
				}
				go func() { w.Write(env.Bytes()); w.Close() }()
				var errs bytes.Buffer
				code := Main([]string{"--format", "jsonl"}, cli.Stdio{In: r, Out: io.Discard, Err: &errs})
				r.Close()
				if code != 0 {
					b.Fatalf("exit %d: %s", code, errs.String())
				}
			}
		})
	}
}

// A live table is drawn only while an input may still grow: a pipe among
// the inputs, not stored files nor a stdin that is no file.
func TestLiveInput(t *testing.T) {
	pipe, writer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pipe.Close(); writer.Close() })
	stored := os.Args[0] // the test binary, a regular file
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		names []string
		stdin io.Reader
		live  bool
	}{
		{[]string{stored}, strings.NewReader(""), false},
		{nil, strings.NewReader("{}\n"), false},
		{[]string{stored, "-"}, pipe, true},
		{[]string{missing, "-"}, pipe, true},
	} {
		if got := liveInput(c.names, c.stdin); got != c.live {
			t.Errorf("liveInput(%v, %T) = %v", c.names, c.stdin, got)
		}
	}
}
