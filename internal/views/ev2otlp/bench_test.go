package ev2otlp

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

// envelopeCorpus is 8 MB of the generated run log, the corpus of make
// bench's ev2otlp rows in small.
func envelopeCorpus(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 8<<20, 1); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkConvert is ev2otlp's hot path: every line of a generated run
// log read into spans, and the spans written as OTLP/JSON lines.
func BenchmarkConvert(b *testing.B) {
	data := envelopeCorpus(b)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		c := newConverter(config{}, func(bt *batch) error {
			out = appendJSON(out[:0], bt)
			return nil
		})
		for _, l := range lines {
			if err := c.line(l); err != nil {
				b.Fatal(err)
			}
		}
		c.finish()
	}
}

// BenchmarkTool is the whole command on the same corpus: reading, framing,
// converting and writing.
func BenchmarkTool(b *testing.B) {
	data := envelopeCorpus(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var stderr strings.Builder
		if code := Main(nil, cli.Stdio{In: bytes.NewReader(data), Out: io.Discard, Err: &stderr}); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}

// BenchmarkProto is the protobuf form of the same spans, as --endpoint
// sends them.
func BenchmarkProto(b *testing.B) {
	data := envelopeCorpus(b)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		c := newConverter(config{}, func(bt *batch) error {
			out = appendProto(out[:0], bt)
			return nil
		})
		for _, l := range lines {
			c.line(l)
		}
		c.finish()
	}
}

// BenchmarkToolFile is the whole command reading a regular file, whose
// lines are read ahead on the other cores (readAhead).
func BenchmarkToolFile(b *testing.B) {
	data := envelopeCorpus(b)
	file := filepath.Join(b.TempDir(), "events.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var stderr strings.Builder
		if code := Main([]string{file}, cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr}); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
