package zot2gp_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// zotCorpus is a generated zot RPC stream of about size bytes.
func zotCorpus(b *testing.B, size int64) []byte {
	b.Helper()
	var buf bytes.Buffer
	if err := corpus.Zot(&buf, size, 1); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func benchMain(b *testing.B, args ...string) {
	data := zotCorpus(b, 16<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		code := zot2gp.Main(args, cli.Stdio{In: bytes.NewReader(data), Out: io.Discard, Err: io.Discard})
		if code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkZot2gp is the whole tool on a generated zot stream: framing,
// scanning each line once, and writing the envelopes.
func BenchmarkZot2gp(b *testing.B) { benchMain(b, "--ts=stable") }

func BenchmarkZot2gpNow(b *testing.B) { benchMain(b) }

func BenchmarkZot2gpUI(b *testing.B) { benchMain(b, "--ts=stable", "--ui") }

func BenchmarkZot2gpBare(b *testing.B) { benchMain(b, "--ts=stable", "--format=bare") }
