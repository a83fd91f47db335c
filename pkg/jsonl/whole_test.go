package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/zstd"
)

// wholeRecords is what ReadFile and Lines hand over for a file: each
// record as "line:text", a NUL one marked.
func wholeRecords(t *testing.T, path string) (string, error) {
	t.Helper()
	data, err := ReadFile(path, nil)
	var b strings.Builder
	Lines(data, func(line int, rec []byte, nul bool) bool {
		if nul {
			fmt.Fprintf(&b, "%d: NUL\n", line)
		} else {
			fmt.Fprintf(&b, "%d:%s\n", line, rec)
		}
		return true
	})
	return b.String(), err
}

// oneByOne is the same for Input.Each, the reading every tool does,
// with the NUL lines it reports in their place.
func oneByOne(path string) string {
	byLine := map[int]string{}
	var stderr bytes.Buffer
	in := &Input{Tool: "t", Names: []string{path}, Stderr: &stderr}
	in.Each(func(r Record) error {
		byLine[r.Line] = fmt.Sprintf("%d:%s\n", r.Line, r.Data)
		return nil
	})
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if _, rest, ok := strings.Cut(l, path+":"); ok && strings.Contains(rest, "NUL byte") {
			var n int
			fmt.Sscanf(rest, "%d:", &n)
			byLine[n] = fmt.Sprintf("%d: NUL\n", n)
		}
	}
	lines := slices.Sorted(maps.Keys(byLine))
	var b strings.Builder
	for _, n := range lines {
		b.WriteString(byLine[n])
	}
	return b.String()
}

// A file read whole (evimport reads a session's files so, on several
// cores) gives the records, lines and NUL lines Each gives, compressed
// or not: the framing rules are the same.
func TestReadFileFramesAsEach(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	enc, _ := zstd.NewWriter(nil)
	zs := func(s string) []byte { return enc.EncodeAll([]byte(s), nil) }
	mixed := "\ufeff{\"a\":1}\r\n\n  \t\n{\"b\":2}\n{\"c\":\x00}\n{\"d\":4}"
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"plain.jsonl", []byte(mixed)},
		{"newline-end.jsonl", []byte("{\"a\":1}\n{\"b\":2}\n")},
		{"empty.jsonl", nil},
		{"blank.jsonl", []byte("\n\n")},
		{"bom-only.jsonl", []byte("\ufeff")},
		{"long.jsonl", []byte(`{"x":"` + strings.Repeat("y", 1<<20) + "\"}\n{}\n")},
		{"mixed.jsonl.gz", gz(mixed)},
		{"mixed.jsonl.zst", zs(mixed)},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, tc.data, 0o644)
		got, err := wholeRecords(t, path)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if want := oneByOne(path); got != want {
			t.Errorf("%s: ReadFile and Lines give\n%.300s\nEach gives\n%.300s", tc.name, got, want)
		}
	}
}

// ReadFile's errors name the file as Each's reports do.
func TestReadFileErrors(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(strings.Repeat(`{"kind":"a"}`+"\n", 100)))
	w.Close()
	var lg bytes.Buffer
	w = gzip.NewWriter(&lg)
	for i := range 2000 {
		fmt.Fprintf(w, `{"kind":"a","n":%d,"text":"%s"}`+"\n", i, strings.Repeat("xyz", i%50))
	}
	w.Close()
	long := lg.Bytes()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
		want string
		rest bool // records read before the error are handed back
	}{
		{"header.gz", []byte("\x1f\x8bnot gzip at all"), "gzip: invalid header", false},
		{"cut.gz", gz.Bytes()[:gz.Len()-12], "gzip: unexpected EOF", true},
		{"half.gz", long[:len(long)/2], "gzip: unexpected EOF", true}, // cut inside a line
		{"frame.zst", []byte("\x28\xb5\x2f\xfdxxxxxxxx"), "zstd: ", false},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, tc.data, 0o644)
		data, err := ReadFile(path, nil)
		if err == nil || !strings.HasPrefix(err.Error(), path+": "+tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, path+": "+tc.want)
		}
		if tc.rest && !bytes.HasPrefix(data, []byte(`{"kind":"a"`)) {
			t.Errorf("%s: the lines before the error are lost: %.40q", tc.name, data)
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			t.Errorf("%s: the piece of a line the error cut is handed over: %q", tc.name, data[max(0, len(data)-20):])
		}
	}
	missing := filepath.Join(dir, "missing.jsonl")
	if _, err := ReadFile(missing, nil); err == nil || err.Error() != missing+": no such file" {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadFile(dir, nil); err == nil || err.Error() != dir+": is a directory" {
		t.Errorf("a folder: %v", err)
	}
}

// ReadFile reads into the buffer it is given when it has room, and
// appends nothing of an earlier file.
func TestReadFileReusesBuffer(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(strings.Repeat("{}\n", 100)), 0o644)
	os.WriteFile(b, []byte("[1]\n"), 0o644)
	buf, _ := ReadFile(a, nil)
	got, _ := ReadFile(b, buf)
	if string(got) != "[1]\n" {
		t.Fatalf("got %q", got)
	}
	if &got[0] != &buf[0] {
		t.Error("a buffer with room was not used")
	}
}

// Lines frames any bytes as a reader does, and stops when asked.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"", "\n", "{}\n{}", "\ufeff{}\r\n \n\x00\n", "a\r\r\n\rb", "\ufeff\ufeff{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want []string
		Lines(data, func(line int, rec []byte, nul bool) bool {
			got = append(got, fmt.Sprintf("%d:%q:%v", line, rec, nul))
			return true
		})
		if codec, _ := codecOf(data); codec != "" {
			return // a source decompresses it; Lines frames what ReadFile decompressed
		}
		src, err := newSource("x", bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := newReader(src)
		for {
			rec, ok := r.Next()
			if !ok {
				break
			}
			want = append(want, fmt.Sprintf("%d:%q:%v", r.Line(), rec, bytes.IndexByte(rec, 0) >= 0))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("Lines:\n%s\nReader:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		n := 0
		Lines(data, func(int, []byte, bool) bool { n++; return false })
		if n > 1 {
			t.Fatalf("Lines went on after false: %d records", n)
		}
	})
}

// An Ordered told Idle lets a signal stop the tool while the sending
// goroutine waits for a worker; without it the guard stays held.
func TestOrderedIdleReleasesGuard(t *testing.T) {
	old := guard.Load()
	t.Cleanup(func() { guard.Store(old) })
	for _, idle := range []bool{false, true} {
		release := make(chan struct{})
		o := NewOrdered(1, 1, 0, func() int { return 0 }, func(_ int, j *int) { <-release }, func(*int) error { return nil })
		o.Idle = idle
		started, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			GuardOutput()
			close(started)
			o.Next()
			o.Send(1)
			o.Drain()
		}()
		<-started
		got := AtLineEnd(300 * time.Millisecond)
		close(release)
		if got {
			guard.Load().Unlock() // as a tool that exits would not: let the sender go on
		}
		<-done
		o.Close()
		if got != idle {
			t.Errorf("Idle %v: the guard was taken while the sender waited: %v", idle, got)
		}
	}
}

// ReadAll reads an open input as ReadFile reads a file: decompressed, its
// errors named, the piece of a line a read error cut left out.
func TestReadAll(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("{\"a\":1}\n{\"b\":2}\n"))
	w.Close()
	if data, err := ReadAll(StdinName, bytes.NewReader(gz.Bytes())); err != nil || string(data) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Errorf("gzip: %q, %v", data, err)
	}
	if data, err := ReadAll(StdinName, strings.NewReader("{}\n[1]")); err != nil || string(data) != "{}\n[1]" {
		t.Errorf("plain: %q, %v", data, err)
	}
	data, err := ReadAll(StdinName, io.MultiReader(strings.NewReader("{}\n{\"cut"), iotest.ErrReader(errors.New("boom"))))
	if err == nil || err.Error() != StdinName+": boom" || string(data) != "{}\n" {
		t.Errorf("read error: %q, %v", data, err)
	}
}

// A Head gives a file's first bytes when they can be had as stored, a
// piece at a time, says when they are the whole file, and leaves to
// ReadFile what it cannot read as stored.
func TestHead(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("{\"a\":1}\n"))
	zw.Close()
	two := write("two.jsonl", []byte("{\"a\":1}\n{\"b\":2}\n"))
	var h Head // one for every case: a Head opened again starts afresh
	for _, c := range []struct {
		name, path string
		n          []int // read on to each
		want       string
		whole, ok  bool
	}{
		{"shorter than n", two, []int{64}, "{\"a\":1}\n{\"b\":2}\n", true, true},
		{"longer than n", two, []int{10}, "{\"a\":1}\n{\"", false, true},
		{"read on", two, []int{3, 10, 12}, "{\"a\":1}\n{\"b\"", false, true},
		{"read on to the end", two, []int{3, 100}, "{\"a\":1}\n{\"b\":2}\n", true, true},
		{"less than read", two, []int{10, 4}, "{\"a\":1}\n{\"", false, true},
		{"exactly n", write("exact.jsonl", []byte("{\"a\":1}\n")), []int{8}, "{\"a\":1}\n", false, true},
		{"empty", write("empty.jsonl", nil), []int{8}, "", true, true},
		{"gzip", write("log.jsonl.gz", gz.Bytes()), []int{64}, "", false, false},
		{"missing", filepath.Join(dir, "none.jsonl"), []int{64}, "", false, false},
		{"a directory", dir, []int{64}, "", false, false},
	} {
		ok := h.Open(c.path)
		for _, n := range c.n {
			ok = ok && h.Read(n)
		}
		if ok && (string(h.Data) != c.want || h.Whole != c.whole) || ok != c.ok {
			t.Errorf("%s: Head = %q, whole %v, ok %v; want %q, %v, %v", c.name, h.Data, h.Whole, ok, c.want, c.whole, c.ok)
		}
	}
	for _, n := range []int{0, 3, 16, 100} {
		if !h.Open(two) || !h.Read(n) || !h.ReadRest() || string(h.Data) != "{\"a\":1}\n{\"b\":2}\n" || !h.Whole {
			t.Errorf("ReadRest after %d bytes: %q, whole %v", n, h.Data, h.Whole)
		}
	}
	h.Close()
	if h.Read(1) || h.ReadRest() || h.Tail(4) != nil {
		t.Error("a closed Head read")
	}
}

// openHead writes data to a file and opens a Head on it, closed when the
// test ends; it returns the Head and the file's name.
func openHead(t *testing.T, data string) (*Head, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &Head{}
	if !h.Open(p) {
		t.Fatal("not opened")
	}
	t.Cleanup(h.Close)
	return h, p
}

// A Head's Tail gives the whole lines of the file's end: the first line
// of the window is left out, cut or not, and a cut last line too.
func TestHeadTail(t *testing.T) {
	data := "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\""
	h, _ := openHead(t, data)
	for _, c := range []struct {
		n    int
		want string
	}{
		{100, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"}, // the whole file: nothing cut at its start
		{14, "{\"c\":3}\n"},                        // from inside {"b":2}
		{len(data) - 8, "{\"c\":3}\n"},             // from the start of {"b":2}: left out too
		{4, ""},
	} {
		if got := string(h.Tail(c.n)); got != c.want {
			t.Errorf("Tail(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// A file may grow between its Head's Open and its reading (an agent
// writing its log): ReadRest reads it to its end as it is then, past the
// size Open found, as ReadFile would.
func TestHeadOfAGrowingFile(t *testing.T) {
	first := "{\"a\":1}\n"
	h, p := openHead(t, first)
	more := strings.Repeat("{\"b\":2}\n", 20)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(more)
	f.Close()
	if !h.Read(16) || !h.Read(64) || h.Whole || !h.ReadRest() || string(h.Data) != first+more || !h.Whole {
		t.Errorf("a file grown since Open: %q, whole %v; want %q", h.Data, h.Whole, first+more)
	}
}

// A WholeReader decompresses each file into the memory of the one before
// (an archive's segments, read on a worker), and hands back nothing of
// an earlier file.
func TestWholeReaderReusesMemory(t *testing.T) {
	dir := t.TempDir()
	enc, _ := zstd.NewWriter(nil)
	a, b := filepath.Join(dir, "a.zst"), filepath.Join(dir, "b.zst")
	os.WriteFile(a, enc.EncodeAll([]byte(strings.Repeat("{\"a\":1}\n", 1000)), nil), 0o644)
	os.WriteFile(b, enc.EncodeAll([]byte("[1]\n"), nil), 0o644)
	var w WholeReader
	first, err := w.ReadFile(a)
	if err != nil || len(first) != 8000 {
		t.Fatalf("a: %d bytes, %v", len(first), err)
	}
	second, err := w.ReadFile(b)
	if err != nil || string(second) != "[1]\n" {
		t.Fatalf("b: %q, %v", second, err)
	}
	if &second[0] != &first[0] {
		t.Error("the memory of the first file was not used for the second")
	}
	if _, err := w.ReadFile(filepath.Join(dir, "missing.zst")); err == nil {
		t.Error("a missing file read without an error")
	}
}
