package summary

import (
	"bytes"
	"io"
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

// BenchmarkReport is evsum's report of a generated run log by run, encoded
// as --format jsonl encodes it: records built on every core, the total's
// sketches merged, the runs sorted.
func BenchmarkReport(b *testing.B) {
	s := runState(b)
	b.ReportAllocs()
	for b.Loop() {
		err := s.EachEncoded(func(b []byte, r *Record) []byte {
			if b = r.AppendShortJSON(b); b != nil {
				b = append(b, '\n')
			}
			return b
		}, func([]byte, *Record) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteJSON is the record encoder alone: every record of a
// generated run log's report by run appended as JSON, the records built
// once beforehand.
func BenchmarkWriteJSON(b *testing.B) {
	s := runState(b)
	recs := s.Report()
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		for i := range recs {
			out, _ = recs[i].WriteJSON(io.Discard, out)
		}
	}
	b.ReportMetric(float64(len(recs)), "records")
}

// runState is the state of a generated run log of 8 MB, by run.
func runState(b *testing.B) *State {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 8<<20, 1); err != nil {
		b.Fatal(err)
	}
	s := New(Options{By: []Key{keyWords["run"]}})
	for _, l := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
		if err := s.Add(l); err != nil {
			b.Fatal(err)
		}
	}
	return s
}
