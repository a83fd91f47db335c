package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// streamCounts is how a stream was read: Merge called, states merged,
// records added by Serial.
type streamCounts struct{ calls, merged, serial int }

// streamRecords is partsRecords with Serial set and stdin a pipe fed
// data: what cannot be cut is read as a stream, in chunks of chunk bytes.
// Every refuse-th Merge (0: none) returns ErrOnePass, which leaves that
// chunk to Serial. Serial keeps a record as a part's state does, so
// the output is eachObjects's whichever path a record took.
func streamRecords(t *testing.T, names []string, data string, workers, chunk, refuse int) (string, streamCounts) {
	t.Helper()
	r := pipeOf(t, data)
	defer r.Close()
	var out, stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: names, Stdin: r, Stderr: &stderr}
	var n streamCounts
	keep := func(s *[]string, rec []byte) error {
		if !bytes.HasPrefix(rec, []byte("{")) {
			return errors.New("not an object")
		}
		*s = append(*s, fmt.Sprintf("%q", rec))
		return nil
	}
	var merged []string
	engine := Parts[*[]string]{
		Workers: workers, ChunkSize: chunk,
		New: func() *[]string { return new([]string) },
		Add: keep,
		Merge: func(s *[]string) error {
			if n.calls++; refuse > 0 && n.calls%refuse == 0 {
				return ErrOnePass
			}
			n.merged++
			merged = append(merged, *s...)
			return nil
		},
		Serial: func(rec []byte) error {
			n.serial++
			return keep(&merged, rec)
		},
	}
	err := engine.Each(in)
	for _, rec := range merged {
		fmt.Fprintln(&out, rec)
	}
	return fmt.Sprintf("%s--\n%s-- err %v, %d bad, %d failed", out.String(), stderr.String(), err, in.BadLines(), in.Failed()), n
}

// pipeOf is the reading end of a pipe fed data, then closed.
func pipeOf(t *testing.T, data string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { io.WriteString(w, data); w.Close() }()
	return r
}

// eachStdin is eachObjects with stdin a pipe fed data.
func eachStdin(t *testing.T, names []string, data string) string {
	t.Helper()
	r := pipeOf(t, data)
	defer r.Close()
	return eachObjectsIn(names, r)
}

// A stream (stdin, a pipe, a gzip file, a mix of them and files) is read
// in chunks on several goroutines and gives what one pass gives: every
// record once, in order, bad lines numbered from their input's start
// across chunks (lines cut by a chunk's end, lines longer than a chunk,
// a late bad line past many chunks), blank lines, CRLF, a BOM, NUL bytes,
// no last '\n'; a line of many MiB (Block.Own) and the chunks whose
// Merge is refused added by Serial on the merged state.
func TestPartsStream(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	readBufSize = 64 // lines over 256 bytes are "many MiB" (Own)
	mixed := mixedLines(2, true)
	late := strings.Repeat("{\"ok\":1}\n", 500) + "late bad\n" + strings.Repeat("{\"ok\":2}\n", 20)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.jsonl")
	os.WriteFile(file, []byte("nope\n{\"f\":1}\n"), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, late)
	zw.Close()
	missing := filepath.Join(dir, "missing.jsonl")
	for _, c := range []struct {
		what  string
		names []string
		data  string
	}{
		{"stdin", nil, mixed},
		{"late bad line", []string{"-"}, late},
		{"no last newline", nil, "{\"a\":1}\nbad\n{\"b\":2}"},
		{"empty", nil, ""},
		{"gzip on stdin", nil, gz.String()},
		{"files and stdin", []string{file, "-", missing, file}, mixed},
	} {
		want := eachStdin(t, c.names, c.data)
		for _, workers := range []int{2, 3} {
			for _, chunk := range []int{1, 5, 64, 1 << 16} {
				for _, refuse := range []int{0, 3} {
					got, n := streamRecords(t, c.names, c.data, workers, chunk, refuse)
					if got != want {
						t.Fatalf("%s, %d workers, chunks of %d, every %dth Merge refused:\n%s\none pass:\n%s", c.what, workers, chunk, refuse, got, want)
					}
					if len(c.data) > 2*chunk && n.merged < 2 {
						t.Errorf("%s, chunks of %d: %d states merged: not read in chunks", c.what, chunk, n.merged)
					}
					if refuse > 0 && n.calls >= refuse && n.serial == 0 {
						t.Errorf("%s: Merge refused, no record added by Serial", c.what)
					}
				}
			}
		}
	}
	// The lines of many MiB went to Serial, the others to the parts.
	if _, n := streamRecords(t, nil, mixed, 2, 64, 0); n.serial == 0 || n.merged == 0 {
		t.Errorf("long lines: %d added by Serial, %d states merged", n.serial, n.merged)
	}
}
