package summary

import (
	"bytes"
	"io"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/folds/record"
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
	s := byRunState(b)
	b.ReportAllocs()
	for b.Loop() {
		err := s.EachEncoded(func(b []byte, r *record.Record) []byte {
			if b = r.AppendShortJSON(b); b != nil {
				b = append(b, '\n')
			}
			return b
		}, func([]byte, *record.Record) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// byRunState is the state of a generated run log of 8 MB, by run.
func byRunState(b *testing.B) *State {
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

// BenchmarkMerge is evsum --merge's hot path: the lines of a generated
// run log's partial state (by run) read back into a state.
func BenchmarkMerge(b *testing.B) {
	var partial bytes.Buffer
	if err := byRunState(b).WritePartial(&partial); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(partial.Bytes(), []byte("\n")), []byte("\n"))
	b.SetBytes(int64(partial.Len()))
	b.ReportAllocs()
	for b.Loop() {
		m := NewMerger()
		for _, l := range lines {
			if err := m.Add(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkWritePartial is evsum --partial's end: the state of a generated
// run log (by run, most of it frozen) written as a partial state.
func BenchmarkWritePartial(b *testing.B) {
	s := byRunState(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.WritePartial(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
