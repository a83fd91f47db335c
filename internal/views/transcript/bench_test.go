package transcript

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
)

// BenchmarkPage reads 8 MB of the generated run log into a page: what
// --format html costs a large session (most runs past the page's limit
// are counted, not shown).
func BenchmarkPage(b *testing.B) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 8<<20, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		t := New(io.Discard, Options{Loc: time.UTC})
		t.Write(data)
		if err := t.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
