package ev2otlp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonl"
)

// The lines of a regular file read ahead on several cores give exactly
// what the loop over the lines one by one gives: the same traces, bad
// lines reported alike at their place, the same status, whatever the
// size of the blocks (lines straddling them, lines longer than one, a
// line of more than a MiB read where it is converted).
func TestReadAheadIsSerial(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 400<<10, 3); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i := 50; i < len(lines); i += 113 {
		lines[i] = []string{"not json", `{"seq":1}`, "{\"kind\":\"tool_call\",\"payload\":{}}\x00", "[1]"}[i%4]
	}
	// a tool result of 1.5 MB (its output a span attribute with --content)
	huge := fmt.Sprintf(`{"seq":9999,"ts":1793494999.5,"run_id":"r_huge","agent_id":"parent","kind":"tool_result","payload":{"tool":"bash","output":%q,"ok":true}}`,
		strings.Repeat("x", 3<<19))
	lines = append(lines[:300], append([]string{huge}, lines[300:]...)...)
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(procs int, args ...string) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var out, errb bytes.Buffer
		code := Main(append(args, path), cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		return fmt.Sprintf("exit %d\n-- stderr --\n%s-- stdout --\n%s", code, errb.String(), out.String())
	}
	for _, args := range [][]string{nil, {"--content", "--batch", "7"}} {
		serial := run(1, args...)
		if !strings.Contains(serial, "exit 2\n") || !strings.Contains(serial, "events.jsonl:51:") || !strings.Contains(serial, `"traceId"`) {
			t.Fatalf("%q one line at a time: no bad lines reported, or no traces: the comparison proves little\n%.3000s", args, serial)
		}
		for _, size := range []int{7, 1000, 64 << 10} {
			old := readBlockBytes
			readBlockBytes = size
			got := run(4, args...)
			readBlockBytes = old
			if got != serial {
				t.Fatalf("%q read ahead in blocks of %d bytes:\n%.3000s\none line at a time:\n%.3000s", args, size, got, serial)
			}
		}
	}
}

// A block of short lines has no more of them read ahead than
// maxReadAhead, each holding an event.Event: 32 KiB of "{}" lines held
// 10,000, and ev2otlp took 240 MB where it takes 13 MB reading them one by
// one. The rest are read as they are converted, to the same output
// (TestReadAheadIsSerial, whose blocks of 64 KiB hold more lines).
func TestReadAheadBounded(t *testing.T) {
	var s readLines
	for _, line := range []string{`{}`, `{"seq":1,"run_id":"r","kind":"model_call","payload":{"model":"m"}}`} {
		b := &jsonl.Block{Data: []byte(strings.Repeat(line+"\n", 3*maxReadAhead))}
		s.read(b)
		if s.n != maxReadAhead || len(s.lines) > maxReadAhead {
			t.Fatalf("%d lines of %s: %d read ahead, %d readings kept; want %d at most", 3*maxReadAhead, line, s.n, len(s.lines), maxReadAhead)
		}
		if p := s.lines[s.n-1]; p.err == nil && p.ev.Meaning != event.ModelCall {
			t.Errorf("%s read as %v", line, p.ev.Meaning)
		}
	}
}
