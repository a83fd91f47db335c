package evfilter

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
)

// BenchmarkFilter is evfilter's common case, a field compared to a
// constant, over a 16 MB envelope file (on GOMAXPROCS cores: Blocks) and
// the same bytes through stdin as a pipe would bring them (one pass).
func BenchmarkFilter(b *testing.B) {
	var env bytes.Buffer
	if err := corpus.Envelope(&env, 16<<20, 1); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "env.jsonl")
	if err := os.WriteFile(p, env.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{{"file", []string{"--format", "jsonl", `kind=="tool_call"`, p}}, {"stdin", []string{"--format", "jsonl", `kind=="tool_call"`}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(env.Len()))
			for b.Loop() {
				var errs strings.Builder
				stdio := cli.Stdio{In: bytes.NewReader(env.Bytes()), Out: io.Discard, Err: &errs}
				if code := Main(c.args, stdio); code != 0 {
					b.Fatalf("exit %d: %s", code, errs.String())
				}
			}
		})
	}
}
