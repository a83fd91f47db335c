package evfilter

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/corpus"
	"github.com/evtools/evtools/internal/expr"
	"github.com/evtools/evtools/pkg/jsonl"
)

// The parallel loop over regular files gives exactly the serial loop's
// output, reports and counts, whatever the number of workers.
func TestParallelIsSerial(t *testing.T) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 600<<10, 5); err != nil {
		t.Fatal(err)
	}
	// Sprinkle bad lines and events that make the expression fail.
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i := 0; i < len(lines); i += 97 {
		lines[i] = []string{"not json", `{"payload":{"args":{"command":7}}}`, "[1]"}[i%3]
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The fast path (==) runs on all cores too, and so does gojq (test).
	for _, src := range []string{`payload.args.command | strings | test("g" + "o")`, `payload.tool == "grep" or kind == "run_error"`} {
		for _, o := range []options{{MaxCount: -1}, {MaxCount: -1, Invert: true}, {MaxCount: 50}, {MaxCount: -1, Count: true}} {
			f, err := expr.Compile(src, expr.Options{})
			if err != nil {
				t.Fatal(err)
			}
			serial := runWith(t, f, o, path, 1)
			if strings.Contains(serial, "\n-- 0 selected") {
				t.Fatalf("%s selects nothing: the comparison would prove little", src)
			}
			for _, w := range []int{2, 3, 8} {
				if got := runWith(t, f, o, path, w); got != serial {
					t.Fatalf("%s %+v with %d workers:\n%.2000s\nserial:\n%.2000s", src, o, w, got, serial)
				}
			}
		}
	}
}

func runWith(t *testing.T, f *expr.Filter, o options, path string, workers int) string {
	var out, errs bytes.Buffer
	w := jsonl.NewWriter(&out)
	in := &jsonl.Input{Tool: name, Names: []string{path}, Stderr: &errs, Out: w}
	s := &selection{opts: o, in: in, out: w}
	var err error
	if workers == 1 {
		err = in.Each(func(rec jsonl.Record) error {
			ok, err := f.Match(rec.Data)
			return s.take(rec, ok, err)
		})
	} else {
		err = parallel(f, in, s, workers)
	}
	w.Flush()
	return fmt.Sprintf("%s\n--\n%s\n-- %d selected, %d errors (%s), err %v", out.String(), errs.String(), s.selected, s.evalErrs, s.first, err)
}

// -m and -q stop reading at the match on every engine: an expression only
// gojq runs (test) must not read ahead into a file the serial loop never
// reaches and report its damage, any more than the fast path (==) does.
func TestStopEarlyReadsNoFurther(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parallel on any machine
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	os.WriteFile(a, []byte("{\"kind\":\"tool_call\"}\n{\"kind\":\"x\"}\n"), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat("{\"kind\":\"tool_call\"}\n", 1000)))
	zw.Close()
	b := filepath.Join(dir, "truncated.jsonl.gz")
	os.WriteFile(b, gz.Bytes()[:gz.Len()/2], 0o644)
	for _, args := range [][]string{
		{"-m", "1", `kind | test("tool_call")`, a, b},
		{"-q", `kind | test("tool_call")`, a, b},
		{"-m", "1", `kind == "tool_call"`, a, b},
	} {
		var out, errb bytes.Buffer
		code := Main(args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 0 || errb.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 0 and nothing on stderr", args, code, errb.String())
		}
	}
	// Read to the end, the damage is reported.
	var out, errb bytes.Buffer
	if code := Main([]string{`kind | test("tool_call")`, a, b}, cli.Stdio{Out: &out, Err: &errb}); code != 2 || !strings.Contains(errb.String(), "truncated.jsonl.gz") {
		t.Errorf("without -m: exit %d, stderr %q; want 2 and a report", code, errb.String())
	}
}

// --strict stops at the first bad line, so like -m and -q it reads nothing
// past it: the serial loop never opens a later file, and neither may the
// read-ahead of the parallel one (it reported the damaged file, and before
// the bad line that stopped the run).
func TestStrictReadsNoFurther(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parallel on any machine
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, []byte("{\"kind\":\"tool_call\"}\nnot json\n{\"kind\":\"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat("{\"kind\":\"tool_call\"}\n", 1000)))
	zw.Close()
	b := filepath.Join(dir, "truncated.jsonl.gz")
	if err := os.WriteFile(b, gz.Bytes()[:gz.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`kind == "tool_call"`, `kind | test("tool_call")`} {
		var out, errb bytes.Buffer
		code := Main([]string{"--strict", src, a, b}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 2 || out.String() != "{\"kind\":\"tool_call\"}\n" || errb.String() != "evfilter: "+a+":2: invalid character 'o' at column 2\n" {
			t.Errorf("--strict %s: exit %d, stdout %q, stderr %q; want 2, the first event, and only the bad line of a.jsonl", src, code, out.String(), errb.String())
		}
	}
}

// A long file on several cores (many more batches than workers, so that
// batches are reused) gives every selected event, in order, once.
func TestParallelLongFile(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parallel on any machine
	var in, want strings.Builder
	for n := 1; n <= 50000; n++ {
		kind := "other"
		if n%3 == 0 {
			kind = "tool_call"
		}
		line := fmt.Sprintf(`{"seq":%d,"kind":%q}`+"\n", n, kind)
		in.WriteString(line)
		if kind == "tool_call" {
			want.WriteString(line)
		}
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`kind == "tool_call"`, `kind | test("tool_call")`} {
		var out, errb bytes.Buffer
		code := Main([]string{src, path}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 0 || errb.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q", src, code, errb.String())
		}
		if out.String() != want.String() {
			t.Errorf("%s: %d bytes out, want %d: not the selected events in order", src, out.Len(), want.Len())
		}
	}
}

// Lines longer than a few read buffers come from the reader in buffers of
// their own and are evaluated without a copy, after the batches before
// them: the output, reports and counts are still the serial loop's.
func TestParallelHugeLines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parallel on any machine
	var in strings.Builder
	big := strings.Repeat(`x\"y\\z `, 1<<17) // 1 MiB
	for n := 1; n <= 120; n++ {
		kind := []string{"other", "tool_call", "run_error"}[n%3]
		switch {
		case n%50 == 7, n == 8:
			fmt.Fprintf(&in, `{"seq":%d,"kind":%q,"payload":{"text":"%s%s"}}`+"\n", n, kind, big, big[:n*8])
		case n%50 == 19:
			fmt.Fprintf(&in, `{"seq":%d,"kind":"tool_call","payload":{"text":"%s"}`+"\n", n, big) // not JSON
		case n%50 == 33:
			fmt.Fprintf(&in, `{"seq":%d,"kind":%q,"payload":{"args":{"command":"%s"}}}`+"\n", n, kind, big)
		default:
			fmt.Fprintf(&in, `{"seq":%d,"kind":%q,"payload":{"tool":"grep"}}`+"\n", n, kind)
		}
	}
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src string
		o   options
	}{
		{`kind == "tool_call"`, options{MaxCount: -1}},
		{`kind == "tool_call"`, options{MaxCount: -1, Invert: true, Count: true}},
		{`payload.args.command | strings | test("z")`, options{MaxCount: -1}},
	} {
		{
			src, o := tc.src, tc.o
			f, err := expr.Compile(src, expr.Options{})
			if err != nil {
				t.Fatal(err)
			}
			serial := runWith(t, f, o, path, 1)
			for _, w := range []int{2, 3} {
				if got := runWith(t, f, o, path, w); got != serial {
					t.Fatalf("%s %+v with %d workers: %d bytes, serial %d:\n%.500s\nserial:\n%.500s", src, o, w, len(got), len(serial), got[max(0, len(got)-500):], serial[max(0, len(serial)-500):])
				}
			}
		}
	}
}
