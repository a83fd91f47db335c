package redact

import (
	"bytes"
	"io"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
)

// envelopeCorpus is 8 MB of generated envelope events, made once.
var envelopeCorpus = func() func() []byte {
	var data []byte
	return func() []byte {
		if data == nil {
			var b bytes.Buffer
			if err := corpus.Envelope(&b, 8<<20, 1); err != nil {
				panic(err)
			}
			data = b.Bytes()
		}
		return data
	}
}()

// BenchmarkWriter is --redact's cost on generated events: the Writer over
// io.Discard, fed in 64 KiB writes as a tool's buffered output does.
func BenchmarkWriter(b *testing.B) {
	data := envelopeCorpus()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard, New())
		for p := data; len(p) > 0; {
			n := min(len(p), 64<<10)
			w.Write(p[:n])
			p = p[n:]
		}
		w.Close()
	}
}
