package pretty

import (
	"io"
	"testing"
	"time"
)

// BenchmarkRender draws the shipped logs, all vocabularies together, as a
// stored log is paged: MB/s is the rate at which the view keeps up.
func BenchmarkRender(b *testing.B) {
	var data []byte
	for _, in := range inputs {
		data = append(data, readInput(b, in.path, in.section)...)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := New(io.Discard, Options{Width: 120, Color: true, Loc: time.UTC})
		r.Write(data)
		r.Close()
	}
}
