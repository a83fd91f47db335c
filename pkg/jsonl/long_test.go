package jsonl

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// longInput has lines of every length around the read buffer's size and
// its multiples (where a line is read in place, gathered in the reused
// buffer, or gathered in chunks), with '\r\n', blank lines, a BOM and an
// unterminated last line.
func longInput(size int) []byte {
	var b bytes.Buffer
	b.Write(bom)
	n := 0
	for _, base := range []int{size, 4 * size, 8 * size, 64 * size, 200 * size} {
		for d := -3; d <= 3; d++ {
			l := base + d
			line := make([]byte, l)
			for i := range line {
				line[i] = "abcdefghij"[(n+i)%10]
			}
			b.Write(line)
			switch n % 4 {
			case 0:
				b.WriteString("\r\n")
			case 1:
				b.WriteString("\n\n  \n")
			default:
				b.WriteString("\n")
			}
			n++
		}
	}
	b.WriteString(strings.Repeat("z", 5*size+1)) // no '\n'
	return b.Bytes()
}

// wantRecords frames data by the rules, the simplest way.
func wantRecords(data []byte) []string {
	var want []string
	for _, l := range strings.Split(string(bytes.TrimPrefix(data, bom)), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.Trim(l, " \t") != "" {
			want = append(want, l)
		}
	}
	return want
}

// readAll reads every record of src, keeping the slices of records
// handed out as their own (Own) and copies of the others; kept slices
// must not change while later records are read.
func readAll(t *testing.T, src *source) []string {
	t.Helper()
	r := newReader(src)
	var got []string
	type kept struct {
		b    []byte
		want string
	}
	var own []kept
	for {
		rec, ok := r.Next()
		if !ok {
			break
		}
		got = append(got, string(rec))
		if r.Own() {
			own = append(own, kept{rec, string(rec)})
		} else if len(rec) > 8*readBufSize {
			t.Errorf("line %d: %d bytes, not in a buffer of its own", r.Line(), len(rec))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range own {
		if string(k.b) != k.want {
			t.Errorf("a record handed out as its own changed when later ones were read")
		}
	}
	return got
}

// A plain file (its long lines read in place, sized by looking ahead), a
// file as stdin, and a pipe (long lines gathered in chunks) give the same
// records as the rules.
func TestLongLinesEveryWay(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	for _, size := range []int{16, 64, 1000} {
		readBufSize = size
		data := longInput(size)
		want := wantRecords(data)
		path := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		check := func(how string, src *source, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got := readAll(t, src)
			if len(got) != len(want) {
				t.Fatalf("size %d, %s: %d records, want %d", size, how, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("size %d, %s: record %d is %.40q... (%d bytes), want %.40q... (%d bytes)", size, how, i+1, got[i], len(got[i]), want[i], len(want[i]))
				}
			}
		}
		src, err := open(path, nil, nil, nil)
		if err == nil && src.plain == nil {
			t.Fatal("a regular file is not read as plain")
		}
		check("file", src, err)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		src, err = open("-", f, nil, nil)
		if err == nil && src.plain == nil {
			t.Fatal("a regular file as stdin is not read as plain")
		}
		check("stdin", src, err)
		f.Close()
		src, err = newSource("r", bytes.NewReader(data), nil)
		check("reader", src, err)
		// Starting past the file's first bytes: the rest is looked at
		// from where reading is, not from the start.
		f, _ = os.Open(path)
		skip := len(bom) + 3*size + 2
		f.Seek(int64(skip), 0)
		want = wantRecords(data[skip:])
		src, err = open("-", f, nil, nil)
		check("stdin at an offset", src, err)
		f.Close()
	}
}

// A long line whose rest is sized while the file ends without a '\n', and
// the file then grows: the line is read on to its end.
func TestLongLineGrowsAfterLook(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	readBufSize = 16
	path := filepath.Join(t.TempDir(), "in.jsonl")
	first := strings.Repeat("a", 100)
	if err := os.WriteFile(path, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := open(path, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r := newReader(src)
	b, err := src.br.ReadSlice('\n') // what readLine does first
	if len(b) != 16 {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	head := append([]byte(nil), b...)
	rest := src.restOfLine(&r.scratch)
	if rest != 84 {
		t.Fatalf("rest %d, want 84", rest)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("bbb\n{}\n")
	f.Close()
	line, err := r.readSized(head, rest)
	if string(line) != first+"bbb\n" || err != nil {
		t.Fatalf("got %q, %v", line, err)
	}
	if rec, ok := r.Next(); !ok || string(rec) != "{}" {
		t.Fatalf("next record %q, %v", rec, ok)
	}
}

// FuzzFramingFile frames a plain file, whose long lines are sized by
// looking ahead and read in place, and the same bytes from a pipe, whose
// long lines are gathered in chunks: both by the rules.
func FuzzFramingFile(f *testing.F) {
	for _, s := range []string{"{}\n", "\ufeff" + strings.Repeat("x", 70) + "\r\n\n x\r", strings.Repeat("y", 100) + "\n" + strings.Repeat("z", 1100)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(n int) { readBufSize = n }(readBufSize)
		readBufSize = 16
		want := wantRecords(data)
		path := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := open(path, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		fromFile := readAll(t, src)
		fromPipe, _ := records(t, data)
		if strings.Join(fromFile, "\n") != strings.Join(want, "\n") || len(fromFile) != len(want) {
			t.Fatalf("file: %q, want %q", fromFile, want)
		}
		if strings.Join(fromPipe, "\n") != strings.Join(want, "\n") || len(fromPipe) != len(want) {
			t.Fatalf("reader: %q, want %q", fromPipe, want)
		}
	})
}

// Huge lines read one after the other, each dropped once read, never
// take the memory of two: the buffer of the one before is collected
// before the next is taken (the collector is off here, so nothing else
// collects it). From a file the next line's buffer is its size; from a
// pipe it is gathered in chunks first (their last one partly filled),
// which are garbage once it is copied, until the next huge line.
func TestHugeLinesOneAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100 MB")
	}
	const size = hugeLine + 1<<20
	var data bytes.Buffer
	for c := range 4 {
		data.Write(bytes.Repeat([]byte{'a' + byte(c)}, size))
		data.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(path, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, c := range []struct {
		how   string
		bound float64 // the live heap after each line, in lines
		open  func() (*source, error)
	}{
		{"file", 1.5, func() (*source, error) { return open(path, nil, nil, nil) }},
		{"pipe", 3.5, func() (*source, error) { return newSource("pipe", bytes.NewReader(data.Bytes()), nil) }},
	} {
		src, err := c.open()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		r := newReader(src)
		for n := 0; ; n++ {
			rec, ok := r.Next()
			if !ok {
				break
			}
			if len(rec) != size || !r.Own() {
				t.Fatalf("%s: line %d has %d bytes (own %v)", c.how, n+1, len(rec), r.Own())
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if live := float64(m.HeapAlloc-base.HeapAlloc) / size; live > c.bound {
				t.Errorf("%s: %.1f lines of heap after line %d, want at most %.1f", c.how, live, n+1, c.bound)
			}
		}
		src.Close()
	}
}

// TestLongLineOwn: a line longer than the read buffer is handed out in the
// reader's own buffer, reused for the next, up to 4 read buffers; a longer
// one in a buffer of its own (Own), which a caller may keep: from a file
// (sized by looking ahead) and from a pipe (gathered in chunks) alike.
func TestLongLineOwn(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	readBufSize = 16 // 4 read buffers: 64 bytes
	lines := []struct {
		n   int // bytes, its '\n' included
		own bool
	}{{10, false}, {40, false}, {64, false}, {65, true}, {200, true}, {30, false}}
	var data []byte
	for i, l := range lines {
		data = append(data, bytes.Repeat([]byte{'a' + byte(i)}, l.n-1)...)
		data = append(data, '\n')
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"file", "pipe"} {
		var src *source
		var err error
		if from == "file" {
			src, err = open(path, nil, nil, nil)
		} else {
			src, err = open("-", io.MultiReader(bytes.NewReader(data)), nil, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		r := newReader(src)
		var kept [][]byte // the records handed out as Own, kept past Next
		for i, l := range lines {
			rec, ok := r.Next()
			if !ok || len(rec) != l.n-1 {
				t.Fatalf("%s, line %d: %d bytes, %v", from, i+1, len(rec), ok)
			}
			if r.Own() != l.own {
				t.Errorf("%s, line %d of %d bytes: Own %v, want %v", from, i+1, l.n, r.Own(), l.own)
			}
			if r.Own() {
				kept = append(kept, rec)
			}
		}
		for _, rec := range kept { // not overwritten by the lines after
			if bytes.Count(rec, rec[:1]) != len(rec) {
				t.Errorf("%s: a record handed out as Own changed: %q", from, rec)
			}
		}
		src.Close()
	}
}
