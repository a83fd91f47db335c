package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// truncatedGzip is a gzip stream of n records cut short: the records
// before the cut come out, then the read fails.
func truncatedGzip(n int) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range n {
		fmt.Fprintf(zw, "{\"n\":%d}\n", i)
	}
	zw.Close()
	return buf.Bytes()[:buf.Len()-6]
}

// A file that cannot be read to its end is reported and counted, after
// the records it did give: the tool's exit status must show it.
func TestTruncatedInputIsReported(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(p, truncatedGzip(3), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: []string{p}, Stderr: &stderr}
	n := 0
	if err := in.Each(func(Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := "evx: " + p + ": gzip: unexpected EOF\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if n != 3 || in.Failed() != 1 || !in.Trouble() {
		t.Errorf("%d records, %d failed, trouble %v; want 3, 1, true", n, in.Failed(), in.Trouble())
	}

}

// Reading many files leaves no file open: a run over thousands of files
// must not run out of descriptors.
func TestInputClosesEveryFile(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, "{}\n")
	zw.Close()
	var names []string
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("%d.jsonl", i))
		data := []byte("{}\n")
		if i%2 == 1 {
			data = gz.Bytes()
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	before := fds()
	in := &Input{Tool: "evx", Names: names, Stderr: io.Discard}
	n := 0
	if err := in.Each(func(Record) error { n++; return nil }); err != nil || n != 20 {
		t.Fatalf("%d records, err %v", n, err)
	}
	if after := fds(); after != before {
		t.Errorf("%d descriptors open before reading 20 files, %d after", before, after)
	}
}

// After a huge line the reader lets its buffer go: memory stays flat over
// the rest of the input.
func TestHugeLineBufferIsReleased(t *testing.T) {
	const size = 32 << 20
	in := io.MultiReader(strings.NewReader(`{"a":"`), &repeatReader{n: size, c: 'x'}, strings.NewReader("\"}\n{}\n{}\n"))
	src, err := newSource("big", in, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(src)
	if rec, ok := r.Next(); !ok || len(rec) != size+8 {
		t.Fatalf("huge record: %d bytes, %v", len(rec), ok)
	}
	if rec, ok := r.Next(); !ok || string(rec) != "{}" {
		t.Fatalf("next record %q, %v", rec, ok)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > size/2 {
		t.Errorf("%d MB still allocated after the %d MB line was handed out", ms.HeapAlloc>>20, size>>20)
	}
	runtime.KeepAlive(r)
}

// failWriter fails every write, as a full disk or a closed pipe does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// A write error is remembered wherever it happens, so that the tool stops
// reading and its exit status says the output failed.
func TestWriterRemembersErrors(t *testing.T) {
	// The record fills the buffer exactly: the error comes with the '\n'.
	w := NewWriter(failWriter{})
	w.WriteLine(bytes.Repeat([]byte("x"), writeBufSize))
	if !IsClosed(w.Err()) {
		t.Errorf("Err() after a failed WriteLine = %v", w.Err())
	}
	// A short record fails only when flushed.
	w = NewWriter(failWriter{})
	w.WriteLine([]byte("{}"))
	if err := w.Flush(); !IsClosed(err) {
		t.Errorf("Flush() = %v, want the write error", err)
	}
	if !IsClosed(w.Err()) {
		t.Errorf("Err() after a failed Flush = %v", w.Err())
	}
	if _, err := w.WriteString("more"); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("WriteString after the error = %v", err)
	}
}

// Write, WriteString and WriteLine all reach the output, in order.
func TestWriterWritesEverything(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Write([]byte(`{"a":`))
	w.WriteString(`1}`)
	w.WriteLine(nil)
	w.WriteString("{}\n")
	w.WriteLine([]byte(`{"b":2}`))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "{\"a\":1}\n{}\n{\"b\":2}\n"; buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
}

// A flood of bad records is cut short: the first maxBadReports of an input
// are reported, the rest summarised in one line; a hint (the reason's last
// part in parentheses) is printed once; a line with a NUL byte is a bad
// line like any other, and the lines after it are read.
func TestBadFloodIsSummarised(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	q := filepath.Join(dir, "bin")
	os.WriteFile(p, []byte(strings.Repeat("x\n", 12345)), 0o644)
	os.WriteFile(q, []byte("\x7fELF\x02\x01\x01\x00\x00\nmore\x00\nx\n"), 0o644)
	var stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: []string{p, q}, Stderr: &stderr}
	err := in.Each(func(rec Record) error {
		return in.Bad(rec, errors.New("not an event (use zot2gp first)"))
	})
	if err != nil {
		t.Fatal(err)
	}
	trouble := in.Trouble()
	var want strings.Builder
	fmt.Fprintf(&want, "evx: %s:1: not an event (use zot2gp first)\n", p)
	for i := 2; i <= maxBadReports; i++ {
		fmt.Fprintf(&want, "evx: %s:%d: not an event\n", p, i)
	}
	fmt.Fprintf(&want, "evx: ... and 12,335 more bad lines in %s\n", p)
	fmt.Fprintf(&want, "evx: %s:1: a NUL byte, which no line of JSON text holds (binary data?)\n", q)
	fmt.Fprintf(&want, "evx: %s:2: a NUL byte, which no line of JSON text holds\n", q)
	fmt.Fprintf(&want, "evx: %s:3: not an event\n", q)
	if stderr.String() != want.String() {
		t.Errorf("stderr\n%s\nwant\n%s", stderr.String(), want.String())
	}
	if in.BadLines() != 12348 || !trouble {
		t.Errorf("%d bad lines, trouble %v; want 12348, true", in.BadLines(), trouble)
	}
}

// With Strict the first bad record ends the run, a NUL byte's too.
func TestStrictBinary(t *testing.T) {
	var stderr bytes.Buffer
	in := &Input{Tool: "evx", Stdin: strings.NewReader("{}\n\x00\x01\n{}\n"), Stderr: &stderr, Strict: true}
	n := 0
	err := in.Each(func(Record) error { n++; return nil })
	if err != ErrStrict || n != 1 || stderr.String() != "evx: "+StdinName+":2: a NUL byte, which no line of JSON text holds (binary data?)\n" {
		t.Errorf("err %v, %d records, stderr %q", err, n, stderr.String())
	}
}
