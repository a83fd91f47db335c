package zot2gp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/devtools/picheck"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// --format pi on a live pipe: each zot event's pi events come out before
// zot2gp waits for the next one; the ones pi writes later (turn_end, held
// for the tool results) come out with the event that allows them.
func TestPiLivePipeFlush(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- zot2gp.Main([]string{"--format", "pi"}, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	events := []struct {
		in   string
		want []string // the pi events it gives, by type (and assistant event)
	}{
		{`{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`, []string{"response"}},
		{`{"content":[{"text":"hi","type":"text"}],"type":"user_message"}`, []string{"agent_start", "turn_start", "message_start", "message_end"}},
		{`{"step":1,"type":"turn_start"}`, nil},
		{`{"type":"assistant_start"}`, []string{"message_start"}},
		{`{"delta":"Let me look.","type":"text_delta"}`, []string{"text_start", "text_delta"}},
		{`{"id":"c1","name":"bash","type":"tool_use_start"}`, []string{"text_end", "toolcall_start"}},
		{`{"delta":"{\"command\":\"ls\"}","id":"c1","type":"tool_use_args"}`, []string{"toolcall_delta"}},
		{`{"id":"c1","type":"tool_use_end"}`, []string{"toolcall_end"}},
		{`{"cache_read":0,"cost_usd":0.001,"input":10,"output":5,"type":"usage"}`, nil},
		{`{"content":[{"text":"Let me look.","type":"text"},{"args":{"command":"ls"},"id":"c1","name":"bash","type":"tool_call"}],"type":"assistant_message"}`, []string{"message_end", "tool_execution_start"}},
		{`{"args":{"command":"ls"},"id":"c1","name":"bash","type":"tool_call"}`, nil},
		{`{"stop":"tool_use","type":"turn_end"}`, nil},
		{`{"id":"c1","text":"a\n","type":"tool_progress"}`, []string{"tool_execution_update"}},
		{`{"content":[{"text":"a\n","type":"text"}],"id":"c1","is_error":false,"type":"tool_result"}`, []string{"tool_execution_end", "message_start", "message_end", "turn_end"}},
		{`{"step":2,"type":"turn_start"}`, []string{"turn_start"}},
		{`{"stop":"end","type":"turn_end"}`, []string{"message_start", "message_end", "turn_end"}},
		{`{"type":"done"}`, []string{"agent_end", "agent_settled"}},
	}
	for i, ev := range events {
		if _, err := io.WriteString(inW, ev.in+"\n"); err != nil {
			t.Fatal(err)
		}
		for _, want := range ev.want {
			got := make(chan string, 1)
			go func() { l, _ := lines.ReadString('\n'); got <- l }()
			select {
			case l := <-got:
				var e struct {
					Type  string
					Event struct{ Type string } `json:"assistantMessageEvent"`
				}
				if err := json.Unmarshal([]byte(l), &e); err != nil {
					t.Fatalf("event %d: %v: %q", i+1, err, l)
				}
				if e.Type != want && e.Event.Type != want {
					t.Fatalf("event %d: got %q, want %s", i+1, l, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("event %d: %s did not come out while zot2gp waits for the next event", i+1, want)
			}
		}
	}
	inW.Close()
	if rest, _ := io.ReadAll(lines); len(rest) != 0 {
		t.Errorf("after the last event: %q", rest)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestPiCorpus checks a generated zot stream's pi events as a pi client reads
// them, by every rule of picheck (runs, turns and messages nested, text the
// joined deltas, each tool call started, ended and given its toolResult
// message once), and the runs against the corpus: one run per prompt zot
// started, a failed prompt a failed response with zot's error; nothing
// said on stderr.
func TestPiCorpus(t *testing.T) {
	var in bytes.Buffer
	if err := corpus.Zot(&in, 2<<20, 7); err != nil {
		t.Fatal(err)
	}
	prompts, failed := strings.Count(in.String(), `"data":{"started":true}`), strings.Count(in.String(), `"command":"prompt","error":`)
	var out, errs bytes.Buffer
	if code := zot2gp.Main([]string{"--format", "pi"}, cli.Stdio{In: &in, Out: &out, Err: &errs}); code != 0 || errs.Len() != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var st picheck.Stream
	for n, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if err := st.Line([]byte(l)); err != nil {
			t.Fatalf("line %d: %v: %s", n+1, err, l)
		}
	}
	if err := st.End(); err != nil {
		t.Fatal(err)
	}
	if st.Runs != prompts || st.Settled != st.Runs || st.Failures != failed {
		t.Errorf("%d runs, %d settled, %d failed responses; the corpus has %d prompts started, %d refused", st.Runs, st.Settled, st.Failures, prompts, failed)
	}
	t.Logf("%d runs, %d turns, %d tool calls, %d pi lines from %d zot bytes", st.Runs, st.Turns, st.Calls, strings.Count(out.String(), "\n"), 2<<20)
}

// `zot2gp --format pi big.jsonl | head -1` ends quietly too: no report of
// dropped events, no closing of the open run.
func TestPiClosedStdoutQuiet(t *testing.T) {
	input := `{"type":"compaction"}` + "\n" + strings.Repeat(`{"delta":"x","type":"text_delta"}`+"\n", 100000)
	r, w := io.Pipe()
	go func() {
		bufio.NewReader(r).ReadString('\n')
		r.Close()
	}()
	var stderr bytes.Buffer
	code := zot2gp.Main([]string{"--format", "pi"}, cli.Stdio{In: strings.NewReader(input), Out: w, Err: &stderr})
	if code != 0 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
}

// BenchmarkZot2gpPi is --format pi on the generated zot stream.
func BenchmarkZot2gpPi(b *testing.B) { benchMain(b, "--ts=stable", "--format=pi") }

// One huge text, streamed in one text_delta: --format pi holds it about
// three times at most (the input line, the text kept for text_end and the
// message, the message kept for agent_end), and its output lines go out
// from those buffers instead of copies. The bytes allocated over the run,
// which the machine's load does not change, say so: 3 times the input,
// where a copy of the text for each line that carries it (and each
// buffer's growth) made 28.
func TestPiHugeTextAllocs(t *testing.T) {
	const size = 16 << 20
	var in bytes.Buffer
	in.WriteString(`{"step":1,"type":"turn_start"}` + "\n" + `{"delta":"`)
	for in.Len() < size {
		in.WriteString(`lorem ipsum \"quoted\" \n  é `)
	}
	in.WriteString(`","type":"text_delta"}` + "\n" + `{"type":"done"}` + "\n")
	file := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(file, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var out countWriter
	if code := zot2gp.Main([]string{"--format", "pi", "--ts=stable", file}, cli.Stdio{Out: &out, Err: io.Discard}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d MB in, %d MB out, %d MB allocated (%.1fx the input)", in.Len()>>20, out>>20, alloc>>20, float64(alloc)/float64(in.Len()))
	if out < 5*size {
		t.Errorf("%d bytes out: the text is in five lines (its delta, text_end, message_end, turn_end, agent_end)", out)
	}
	if alloc > 4*uint64(in.Len()) {
		t.Errorf("%d bytes allocated for %d bytes in: more than four times the input", alloc, in.Len())
	}
}

// countWriter counts the bytes written to it.
type countWriter int

func (w *countWriter) Write(p []byte) (int, error) {
	*w += countWriter(len(p))
	return len(p), nil
}
