package jsonl

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logMeter writes what it is told into the stderr buffer the Input
// reports on, so that the order of reads, clears and messages shows.
type logMeter struct {
	stderr *bytes.Buffer
	read   int
	clears int
}

func (m *logMeter) Read(n int) {
	m.read += n
	if n > 0 {
		m.stderr.WriteString("[read]")
	}
}

func (m *logMeter) Clear() {
	m.clears++
	m.stderr.WriteString("[clear]")
}

// A Meter is told of every byte of the inputs as stored (a gzip file's
// compressed bytes), and is cleared before every message and at the end.
func TestMeter(t *testing.T) {
	dir := t.TempDir()
	var plain bytes.Buffer
	for i := range 30000 {
		fmt.Fprintf(&plain, "{\"n\":%d}\n", i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	files := map[string][]byte{"a.jsonl": plain.Bytes(), "b.jsonl.gz": gz.Bytes(), "bad.jsonl": []byte("{}\nnot json\n")}
	var names []string
	size := 0
	for _, n := range []string{"a.jsonl", "bad.jsonl", "b.jsonl.gz"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
		size += len(files[n])
	}
	names = append(names, filepath.Join(dir, "missing.jsonl"))
	// Each, and readBlocks with each block taken as it comes.
	for _, blocks := range []bool{false, true} {
		t.Run(map[bool]string{false: "Each", true: "readBlocks"}[blocks], func(t *testing.T) { meterOne(t, names, size, blocks) })
	}
}

func meterOne(t *testing.T, names []string, size int, blocks bool) {
	var stderr bytes.Buffer
	m := &logMeter{stderr: &stderr}
	in := &Input{Tool: "evx", Names: names, Stderr: &stderr, Meter: m}
	recs := 0
	each := func(rec Record) error {
		recs++
		if string(rec.Data) == "not json" {
			return in.Bad(rec, fmt.Errorf("not an object"))
		}
		return nil
	}
	var err error
	if blocks {
		err = in.readBlocks(4096, func(b *Block) error {
			b.Frame(func(int, []byte) {})
			return in.takeBlock(b, func(_ int, rec Record) error { return each(rec) })
		})
	} else {
		err = in.Each(each)
	}
	if err != nil {
		t.Fatal(err)
	}
	if recs != 60002 {
		t.Errorf("%d records", recs)
	}
	if m.read != size {
		t.Errorf("meter read %d bytes, the files hold %d", m.read, size)
	}
	// The meter is cleared before every message, and last of all.
	log := stderr.String()
	for _, msg := range []string{"evx: " + names[1] + ":2: not an object\n", "evx: " + names[3] + ": no such file\n"} {
		i := strings.Index(log, msg)
		if i < 0 || !strings.HasSuffix(log[:i], "[clear]") {
			t.Errorf("%q not printed after a clear: %q", msg, log)
		}
	}
	if !strings.HasSuffix(log, "[clear]") {
		t.Errorf("not cleared at the end: %q", log[max(len(log)-100, 0):])
	}
	if stopMeter.Load() != nil {
		t.Error("the meter is still there for a signal after Each")
	}
}

// A signal that stops the tool while it reads clears the meter once the
// reader waits for input: the terminal is left with no progress line.
func TestMeterClearedOnStop(t *testing.T) {
	old := guard.Load()
	t.Cleanup(func() { guard.Store(old) })
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	var stderr bytes.Buffer
	m := &logMeter{stderr: &stderr}
	in := &Input{Tool: "evx", Stdin: pr, Stderr: &stderr, Meter: m}
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		GuardOutput()
		close(started)
		in.Each(func(Record) error { return nil })
	}()
	<-started
	pw.WriteString("{}\n")
	if !AtLineEnd(10 * time.Second) {
		t.Fatal("the reader never waited for input")
	}
	if m.clears != 1 || !strings.HasSuffix(stderr.String(), "[clear]") {
		t.Errorf("meter told %q, cleared %d times; want a clear last, once", stderr.String(), m.clears)
	}
	// Where a real tool exits, let the reader go on to its end.
	pw.Close()
	guard.Load().Unlock()
	<-done
}
