package evimport

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
)

// BenchmarkClaude converts a Claude Code session of 2,000 prompts, each
// answered by a tool call, its result and a reply (about 5 MB): the path
// of `evimport DIR | evsum`, whose speed issue 19 sets a target for.
func BenchmarkClaude(b *testing.B) {
	dir := b.TempDir()
	const session = "5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90"
	var s strings.Builder
	line := func(kind, uuid, parent, ts, body string) {
		fmt.Fprintf(&s, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/ana/src/shop","sessionId":"%s","version":"2.1.40","type":"%s","uuid":"%s","timestamp":"%s",%s}`+"\n",
			parent, session, kind, uuid, ts, body)
	}
	for i := range 2000 {
		ts := func(k int) string {
			return fmt.Sprintf("2026-03-02T%02d:%02d:%02d.%03dZ", 9+i/3600%10, i/60%60, i%60, k)
		}
		id := func(k int) string { return fmt.Sprintf("a1%06d-0000-4000-8000-%012d", i, k) }
		line("user", id(1), "null", ts(1), `"message":{"role":"user","content":"run the checkout test and tell me why it fails on a fresh clone"}`)
		line("assistant", id(2), `"`+id(1)+`"`, ts(2), fmt.Sprintf(`"requestId":"req_%d_a","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_%d_a","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./checkout/..."}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":14000,"output_tokens":60}}`, i, i, i))
		line("user", id(3), `"`+id(2)+`"`, ts(3), fmt.Sprintf(`"message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"--- FAIL: TestCheckout (0.01s)\n    checkout_test.go:41: open testdata/cart.json: no such file or directory\nFAIL","is_error":true}]}`, i))
		line("assistant", id(4), `"`+id(3)+`"`, ts(4), fmt.Sprintf(`"requestId":"req_%d_b","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_%d_b","type":"message","role":"assistant","content":[{"type":"text","text":"The test reads testdata/cart.json, which is ignored by git: a fresh clone has no such file."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"cache_creation_input_tokens":300,"cache_read_input_tokens":15200,"output_tokens":40}}`, i, i))
	}
	p := filepath.Join(dir, ".claude", "projects", "-home-ana-src-shop", session+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(s.Len()))
	b.ReportAllocs()
	for b.Loop() {
		var stderr strings.Builder
		if code := Main([]string{"--from", "claude", p}, cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr}); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}

// BenchmarkAgents converts 8 MB of each agent's generated logs (evgen's,
// internal/devtools/corpus: subagents, forks, the duplicates of each format), the
// folder as `evimport DIR` reads it.
func BenchmarkAgents(b *testing.B) {
	for _, kind := range corpus.AgentKinds {
		b.Run(kind, func(b *testing.B) {
			home := b.TempDir()
			if err := corpus.Agents(home, kind, 8<<20, 1); err != nil {
				b.Fatal(err)
			}
			size := int64(0)
			filepath.WalkDir(home, func(_ string, d fs.DirEntry, _ error) error {
				if fi, err := d.Info(); err == nil && !d.IsDir() {
					size += fi.Size()
				}
				return nil
			})
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				var stderr strings.Builder
				if code := Main([]string{home}, cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr}); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}

// BenchmarkOpencode converts a generated opencode database of sessions
// (about 57 MB for 100; docs/evimport.md has the figures of 1,000) and,
// for the speed of the same events from JSON Lines, as many pi sessions
// (the generator gives both the same kind of plan: prompts, steps, tool
// calls, subagents for opencode); each reports its events a second.
func BenchmarkOpencode(b *testing.B) {
	for _, kind := range []string{"opencode", "pi"} {
		b.Run(kind, func(b *testing.B) {
			home := b.TempDir()
			if err := corpus.AgentSessions(home, kind, 100, 1); err != nil {
				b.Fatal(err)
			}
			events := 0
			for b.Loop() {
				var out countLines
				var stderr strings.Builder
				if code := Main([]string{home}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &stderr}); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
				events = int(out)
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// countLines counts the lines written to it.
type countLines int

func (c *countLines) Write(p []byte) (int, error) {
	*c += countLines(strings.Count(string(p), "\n"))
	return len(p), nil
}
