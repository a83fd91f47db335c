package summary

import (
	"bytes"
	"testing"

	"github.com/evtools/evtools/internal/corpus"
)

// BenchmarkSummary is evsum's hot path: every line of a generated run log
// folded into a state grouped by run.
func BenchmarkSummary(b *testing.B) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 8<<20, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(Options{By: []Key{keyWords["run"]}})
		for _, l := range lines {
			if err := s.Add(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
