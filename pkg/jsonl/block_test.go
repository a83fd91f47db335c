package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eachRecords is what Each hands over and reports: every record with
// its file and line, then stderr and the counts.
func eachRecords(names []string) string {
	var out, stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: names, Stderr: &stderr}
	err := in.Each(func(rec Record) error {
		fmt.Fprintf(&out, "%s:%d:%q\n", rec.File, rec.Line, rec.Data)
		return nil
	})
	return fmt.Sprintf("%s--\n%s-- err %v, %d bad, %d failed", out.String(), stderr.String(), err, in.BadLines(), in.Failed())
}

// blockRecords is the same through readBlocks, Frame and takeBlock, with
// up to ahead blocks read before the oldest is taken (as a tool reading
// ahead of its workers does), and each block's Data checked to be whole
// lines.
func blockRecords(t *testing.T, names []string, size, ahead int) string {
	t.Helper()
	var out, stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: names, Stderr: &stderr}
	var pending []*Block
	take := func() error {
		b := pending[0]
		pending = pending[1:]
		return in.takeBlock(b, func(i int, rec Record) error {
			fmt.Fprintf(&out, "%s:%d:%q\n", rec.File, rec.Line, rec.Data)
			return nil
		})
	}
	err := in.readBlocks(size, func(b *Block) error {
		if b.Own && bytes.Count(b.Data, []byte("\n")) > 1 {
			t.Errorf("a block of its own holds more than one line")
		}
		if b.err == nil && len(b.Data) > size && bytes.IndexByte(b.Data[:len(b.Data)-1], '\n') >= 0 {
			t.Errorf("a block of %d bytes (size %d) holds several lines", len(b.Data), size)
		}
		b.Frame(func(int, []byte) {})
		pending = append(pending, b)
		for len(pending) > ahead {
			if err := take(); err != nil {
				return err
			}
		}
		return nil
	})
	for err == nil && len(pending) > 0 {
		err = take()
	}
	return fmt.Sprintf("%s--\n%s-- err %v, %d bad, %d failed", out.String(), stderr.String(), err, in.BadLines(), in.Failed())
}

// blockInputs are the edges of framing: lines across block boundaries,
// "\r\n", a BOM (on line 1 only), blank lines, NUL bytes (line 1, and
// mid-file with later blocks read already), a last line without '\n',
// lines longer than a block and than the read buffer.
var blockInputs = []string{
	"",
	"\n\n \t\n",
	"{}",
	"{}\n",
	"\ufeff{\"a\":1}\r\n\r\n{\"b\":2}\n\ufeff{}\n",
	"\ufeff\n{}\n",
	"\ufeff",
	" {}\r\r\n\t\r\n{\"k\":\"x\"}",
	"a\x00b\n{}\n",
	"{}\n{}\n{\"n\":1}\nx\x00y\n{}\n" + strings.Repeat("{\"late\":true}\n", 40),
	strings.Repeat("{\"k\":\"tool_call\"}\n", 50) + "\x00",
	"{}\n" + strings.Repeat("y", 300) + "\n{}\r\n" + strings.Repeat("z", 70) + "\r\n\n" + strings.Repeat("w", 5000),
	"\ufeff" + strings.Repeat("q", 200) + "\n{}\n",
	strings.Repeat("q", 100) + "\x00\n{}\n",
	"{}\n" + strings.Repeat("q", 100) + "\x00\n{}\n",
	"a\u2028b\nc\rd\n",
}

// readBlocks, Frame and takeBlock hand over the records Each hands over,
// with the same lines and reports, whatever the block size and however
// far the blocks are read ahead of their taking.
func TestBlocksAreEach(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	all := blockFiles(t)
	for _, rb := range []int{16, 1000, 256 << 10} {
		readBufSize = rb
		for i := range all {
			names := all[i : i+1]
			want := eachRecords(names)
			for _, size := range []int{1, 2, 7, 16, 64, 1000, 1 << 16} {
				for _, ahead := range []int{0, 1, 3, 100} {
					if got := blockRecords(t, names, size, ahead); got != want {
						t.Fatalf("%q, read buffer %d, block %d, %d ahead:\n%s\nEach:\n%s", blockInputs[min(i, len(blockInputs)-1)], rb, size, ahead, got, want)
					}
				}
			}
		}
		want := eachRecords(all)
		for _, size := range []int{7, 64, 1 << 16} {
			if got := blockRecords(t, all, size, 5); got != want {
				t.Fatalf("all inputs, read buffer %d, block %d:\n%s\nEach:\n%s", rb, size, got, want)
			}
		}
	}
}

// Framing by blocks is framing by reader.Next (through Each), for any
// input and any block size; with a tiny read buffer, lines longer than a
// block are read by the long-line paths.
func FuzzBlockFraming(f *testing.F) {
	for _, s := range blockInputs {
		f.Add([]byte(s), uint8(7), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, size, ahead uint8) {
		defer func(n int) { readBufSize = n }(readBufSize)
		readBufSize = 16
		p := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names := []string{p, p}
		want := eachRecords(names)
		if got := blockRecords(t, names, int(size%200)+1, int(ahead%8)); got != want {
			t.Fatalf("block %d, %d ahead:\n%s\nEach:\n%s", int(size%200)+1, ahead%8, got, want)
		}
	})
}

// An error from fn ends readBlocks at once, and is what it returns.
func TestEachBlockStopsAtError(t *testing.T) {
	stop := fmt.Errorf("stop")
	in := &Input{Tool: "t", Stdin: strings.NewReader(strings.Repeat("{}\n", 1000)), Stderr: io.Discard}
	calls := 0
	err := in.readBlocks(30, func(b *Block) error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Fatalf("readBlocks = %v after %d blocks, want %v after 3", err, calls, stop)
	}
}
