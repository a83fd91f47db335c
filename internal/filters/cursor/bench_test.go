package cursor

import (
	"bytes"
	"io"
	"testing"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/devtools/corpus"
)

// BenchmarkRenumber re-numbers a generated envelope log line by line, the
// hot path of evcursor without its framing.
func BenchmarkRenumber(b *testing.B) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 4<<20, 1); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	var e Event
	w := io.Discard
	for b.Loop() {
		n := jsontext.NewCounter([]byte("1"))
		for _, l := range lines {
			if err := e.Scan(l); err != nil {
				b.Fatal(err)
			}
			WriteRenumbered(w, &e, n.Bytes())
			n.Inc()
		}
	}
}

// BenchmarkCheck follows seq through the same log.
func BenchmarkCheck(b *testing.B) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 4<<20, 1); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	var e Event
	for b.Loop() {
		var c Checker
		for _, l := range lines {
			e.Scan(l)
			seq, _ := e.SeqValue()
			if msg := c.Next(seq); msg != "" {
				b.Fatal(msg)
			}
		}
	}
}
