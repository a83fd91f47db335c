package jsonl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

// records frames data and returns the records with their line numbers.
func records(t testing.TB, data []byte) ([]string, []int) {
	t.Helper()
	src, err := newSource("t", bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(src)
	var recs []string
	var lines []int
	for {
		rec, ok := r.Next()
		if !ok {
			break
		}
		recs = append(recs, string(rec))
		lines = append(lines, r.Line())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs, lines
}

func TestFraming(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		recs  []string
		lines []int
	}{
		{"plain", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}},
		{"only one cr dropped", "{}\r\r\n", []string{"{}\r"}, []int{1}},
		{"cr inside a line stays", "{\"a\":\"x\ry\"}\n", []string{"{\"a\":\"x\ry\"}"}, []int{1}},
		{"blank lines skipped but counted", "\n{}\n\n  \t\n\r\n{}\n", []string{"{}", "{}"}, []int{2, 6}},
		{"u2028 and u2029 do not split", "{\"a\":\"x\u2028y\u2029z\"}\n{}\n", []string{"{\"a\":\"x\u2028y\u2029z\"}", "{}"}, []int{1, 2}},
		{"bom ignored at start", "\ufeff{\"a\":1}\n", []string{`{"a":1}`}, []int{1}},
		{"bom elsewhere kept", "{}\n\ufeff{}\n", []string{"{}", "\ufeff{}"}, []int{1, 2}},
		{"a file of only a bom", "\ufeff", nil, nil},
		{"empty input", "", nil, nil},
		{"only newlines", "\n\n\n", nil, nil},
		{"bad lines are records too", "[1]\nnot json\n{\n", []string{"[1]", "not json", "{"}, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, lines := records(t, []byte(tt.in))
			if diff := cmp.Diff(tt.recs, recs); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.lines, lines); diff != "" {
				t.Errorf("line numbers (-want +got):\n%s", diff)
			}
		})
	}
}

// A record longer than the read buffer comes out whole.
func TestLongLines(t *testing.T) {
	defer func(n int) { readBufSize = n }(readBufSize)
	readBufSize = 16
	long := `{"a":"` + strings.Repeat("x", 1000) + `"}`
	recs, lines := records(t, []byte("{}\n"+long+"\n{\"b\":1}\n"+long))
	want := []string{"{}", long, `{"b":1}`, long}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// repeatReader yields n bytes of c.
type repeatReader struct {
	n int64
	c byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// There is no line length limit: a 300 MB line is one record.
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 300 MB")
	}
	const size = 300 << 20
	in := io.MultiReader(strings.NewReader(`{"a":"`), &repeatReader{n: size, c: 'x'}, strings.NewReader("\"}\n{}\n"))
	src, err := newSource("big", in, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(src)
	rec, ok := r.Next()
	if !ok {
		t.Fatalf("no record: %v", r.Err())
	}
	if len(rec) != size+8 || !bytes.HasPrefix(rec, []byte(`{"a":"xxx`)) || !bytes.HasSuffix(rec, []byte(`xx"}`)) {
		t.Fatalf("huge record has %d bytes, want %d", len(rec), size+8)
	}
	rec, ok = r.Next()
	if !ok || string(rec) != "{}" || r.Line() != 2 {
		t.Fatalf("record after the huge one = %q (line %d), want {} on line 2", rec, r.Line())
	}
}

func TestCompressedInputs(t *testing.T) {
	dir := t.TempDir()
	data := "{\"a\":1}\n{\"b\":2}\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(data))
	zw.Close()
	// Concatenated gzip members are one stream, as gzip -d reads them.
	zw = gzip.NewWriter(&gz)
	zw.Write([]byte("{\"c\":3}\n"))
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	zst := enc.EncodeAll([]byte(data), nil)
	files := map[string][]byte{"plain.jsonl": []byte(data), "x.gz": gz.Bytes(), "x.zst": zst, "noext": gz.Bytes()}
	want := map[string][]string{
		"plain.jsonl": {`{"a":1}`, `{"b":2}`},
		"x.gz":        {`{"a":1}`, `{"b":2}`, `{"c":3}`},
		"x.zst":       {`{"a":1}`, `{"b":2}`},
		"noext":       {`{"a":1}`, `{"b":2}`, `{"c":3}`}, // magic bytes, not names
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		in := &Input{Tool: "t", Names: []string{p}, Stderr: io.Discard}
		err := in.Each(func(r Record) error {
			got = append(got, string(r.Data))
			return nil
		})
		if err != nil || in.Trouble() {
			t.Fatalf("%s: err %v, trouble %v", name, err, in.Trouble())
		}
		if diff := cmp.Diff(want[name], got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestInputReportsAndGoesOn(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	os.WriteFile(a, []byte("{}\nbad\n{}\n"), 0o644)
	var stderr bytes.Buffer
	in := &Input{Tool: "evx", Names: []string{a, filepath.Join(dir, "missing.jsonl"), "-"},
		Stdin: strings.NewReader("oops\n"), Stderr: &stderr}
	n := 0
	err := in.Each(func(r Record) error {
		if r.Data[0] != '{' {
			return in.Bad(r, errors.New("not a JSON object"))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "evx: " + a + ":2: not a JSON object\n" +
		"evx: " + filepath.Join(dir, "missing.jsonl") + ": no such file\n" +
		"evx: <stdin>:1: not a JSON object\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if n != 2 || in.BadLines() != 2 || in.Failed() != 1 || !in.Trouble() {
		t.Errorf("good %d, bad %d, failed %d", n, in.BadLines(), in.Failed())
	}
}

func TestStrictStopsAtFirstBadLine(t *testing.T) {
	in := &Input{Tool: "evx", Stdin: strings.NewReader("{}\nbad\n{}\n"), Stderr: io.Discard, Strict: true}
	n := 0
	err := in.Each(func(r Record) error {
		n++
		if r.Data[0] != '{' {
			return in.Bad(r, errors.New("not a JSON object"))
		}
		return nil
	})
	if !errors.Is(err, ErrStrict) || n != 2 {
		t.Fatalf("err %v after %d records, want ErrStrict after 2", err, n)
	}
}

// The output of a live pipe is flushed before the tool waits for more
// input: each event comes out before the next one goes in.
func TestFlushBeforeWaiting(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := NewWriter(outW)
	in := &Input{Tool: "t", Stdin: inR, Stderr: io.Discard, Out: out}
	done := make(chan error, 1)
	go func() {
		done <- in.Each(func(r Record) error {
			out.WriteLine(r.Data)
			return nil
		})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	for i, rec := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if _, err := io.WriteString(inW, rec+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() { l, _ := lines.ReadString('\n'); got <- l }()
		select {
		case l := <-got:
			if l != rec+"\n" {
				t.Fatalf("line %d: got %q, want %q", i+1, l, rec)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("line %d was not flushed while the reader waits for input", i+1)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A consumer that goes away (| head -1) ends the loop with an error that
// IsClosed recognises.
func TestClosedOutput(t *testing.T) {
	// Each, and readBlocks taking its blocks: a consumer that goes away
	// ends either at the record whose output failed.
	each := map[string]func(in *Input, fn func(Record) error) error{
		"Each": func(in *Input, fn func(Record) error) error { return in.Each(fn) },
		"readBlocks": func(in *Input, fn func(Record) error) error {
			return in.readBlocks(64, func(b *Block) error {
				b.Frame(func(int, []byte) {})
				return in.takeBlock(b, func(_ int, r Record) error { return fn(r) })
			})
		},
	}
	for name, run := range each {
		outR, outW := io.Pipe()
		outR.Close()
		out := NewWriter(outW)
		in := &Input{Tool: "t", Stdin: strings.NewReader(strings.Repeat("{}\n", 100000)), Stderr: io.Discard, Out: out}
		n := 0
		err := run(in, func(r Record) error {
			n++
			out.WriteLine(r.Data)
			return nil
		})
		if !IsClosed(err) {
			t.Fatalf("%s: err = %v, want a closed-pipe error", name, err)
		}
		if n >= 100000 {
			t.Fatalf("%s: read all %d records after the output closed", name, n)
		}
	}
}

// FuzzFraming compares the reader with the framing rules written the
// simplest way, with a tiny buffer so long-line handling is exercised.
func FuzzFraming(f *testing.F) {
	for _, s := range []string{"{}\n", "\ufeff{}\r\n\n x\r", "a\u2028b\nc", "\r\n\r\r\n", strings.Repeat("y", 40) + "\nz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(n int) { readBufSize = n }(readBufSize)
		readBufSize = 16
		got, _ := records(t, data)
		var want []string
		body := data
		body = bytes.TrimPrefix(body, bom)
		for _, l := range strings.Split(string(body), "\n") {
			l = strings.TrimSuffix(l, "\r")
			if strings.Trim(l, " \t") == "" {
				continue
			}
			want = append(want, l)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
	})
}

func BenchmarkReader(b *testing.B) {
	line := `{"seq":12,"ts":1758800000.12,"run_id":"r_1","agent_id":"code-reviewer","kind":"tool_call","payload":{"tool":"bash","args":{"command":"ls -la"}}}` + "\n"
	data := []byte(strings.Repeat(line, 10000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		src, _ := newSource("b", bytes.NewReader(data), nil)
		r := newReader(src)
		for {
			if _, ok := r.Next(); !ok {
				break
			}
		}
	}
}

// BenchmarkBlocks is BenchmarkReader's input read as evfilter reads a file
// on several cores: in blocks, each framed, its records taken in order.
func BenchmarkBlocks(b *testing.B) {
	line := `{"seq":12,"ts":1758800000.12,"run_id":"r_1","agent_id":"code-reviewer","kind":"tool_call","payload":{"tool":"bash","args":{"command":"ls -la"}}}` + "\n"
	data := []byte(strings.Repeat(line, 10000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		in := &Input{Tool: "b", Stdin: bytes.NewReader(data), Stderr: io.Discard}
		in.readBlocks(256<<10, func(blk *Block) error {
			blk.Frame(func(int, []byte) {})
			return in.takeBlock(blk, func(int, Record) error { return nil })
		})
	}
}

func TestRecord(t *testing.T) {
	tests := []struct {
		line  string
		first bool
		rec   string
		blank bool
	}{
		{"{}\n", false, "{}", false},
		{"{}\r\n", false, "{}", false},
		{"{}", false, "{}", false},
		{"\xef\xbb\xbf{}\n", true, "{}", false},
		{"\xef\xbb\xbf{}\n", false, "\xef\xbb\xbf{}", false},
		{" \t\r\n", false, " \t", true},
		{"\n", false, "", true},
		{"\xef\xbb\xbf\n", true, "", true},
		{"{}\r\r\n", false, "{}\r", false},
	}
	for _, tt := range tests {
		from, to, blank := record([]byte(tt.line), tt.first)
		if rec := tt.line[from:to]; rec != tt.rec || blank != tt.blank {
			t.Errorf("record(%q, %v) = %q, %v; want %q, %v", tt.line, tt.first, rec, blank, tt.rec, tt.blank)
		}
	}
}

// newSource frames r (already open, maybe compressed) under name, as
// open does an input it opened.
func newSource(name string, r io.Reader, idle func()) (*source, error) {
	src := &source{Name: name}
	return src, src.wrap(idleReader{r: r, idle: idle})
}

// scripted hands out its reads in turn, as a terminal does lines and
// Ctrl-D (a read of nothing, io.EOF); a read past them fails the test.
type scripted struct {
	t     *testing.T
	reads []string
}

func (s *scripted) Read(p []byte) (int, error) {
	if len(s.reads) == 0 {
		s.t.Error("read again after the end of the input: a terminal waits for another Ctrl-D")
		return 0, io.EOF
	}
	r := s.reads[0]
	s.reads = s.reads[1:]
	if r == "" {
		return 0, io.EOF
	}
	return copy(p, r), nil
}

// A last line typed without Enter is ended by the Ctrl-D that ends the
// input, as cat ends it: the input is not read again past its end.
func TestEndReadOnce(t *testing.T) {
	for _, reads := range [][]string{{""}, {"{}\n", ""}, {"{}\n{", "}", ""}} {
		var got []string
		in := &Input{Tool: "t", Stdin: &scripted{t, reads}, Stderr: io.Discard}
		if err := in.Each(func(r Record) error { got = append(got, string(r.Data)); return nil }); err != nil {
			t.Fatal(err)
		}
		if want := strings.Count(strings.Join(reads, ""), "{"); len(got) != want {
			t.Errorf("%q: records %q, want %d", reads, got, want)
		}
	}
}
