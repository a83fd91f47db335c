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

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/filters/expr"
	"github.com/evtools/evtools/internal/shell/cli"
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
			serial := runWith(t, f, o, []string{path}, 1)
			if strings.Contains(serial, "\n-- 0 selected") {
				t.Fatalf("%s selects nothing: the comparison would prove little", src)
			}
			for _, w := range []int{2, 3, 8} {
				if got := runWith(t, f, o, []string{path}, w); got != serial {
					t.Fatalf("%s %+v with %d workers:\n%.2000s\nserial:\n%.2000s", src, o, w, got, serial)
				}
			}
			// Blocks so small that most lines straddle two or are
			// longer than one.
			for _, size := range []int{7, 1000} {
				setBlock(t, size)
				if got := runWith(t, f, o, []string{path}, 2); got != serial {
					t.Fatalf("%s %+v with blocks of %d bytes:\n%.2000s\nserial:\n%.2000s", src, o, size, got, serial)
				}
			}
			setBlock(t, 256<<10)
		}
	}
}

// setBlock makes the parallel loop read blocks of size bytes until the
// test ends.
func setBlock(t *testing.T, size int) {
	old := blockBytes
	t.Cleanup(func() { blockBytes = old })
	blockBytes = size
}

func runWith(t *testing.T, f *expr.Filter, o options, paths []string, workers int) string {
	var out, errs bytes.Buffer
	w := jsonl.NewWriter(&out)
	in := &jsonl.Input{Tool: name, Names: paths, Stderr: &errs, Out: w}
	s := &selection{opts: o, in: in, out: w}
	var err error
	if workers == 1 {
		err = in.Each(func(rec jsonl.Record) error {
			ok, err := f.Match(rec.Data)
			return s.take(rec, ok, err)
		})
	} else {
		err = parallel(test{f: f}, in, s, workers)
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
			serial := runWith(t, f, o, []string{path}, 1)
			for _, w := range []int{2, 3} {
				for _, size := range []int{256 << 10, 4096} {
					setBlock(t, size)
					if got := runWith(t, f, o, []string{path}, w); got != serial {
						t.Fatalf("%s %+v with %d workers, blocks of %d: %d bytes, serial %d:\n%.500s\nserial:\n%.500s", src, o, w, size, len(got), len(serial), got[max(0, len(got)-500):], serial[max(0, len(serial)-500):])
					}
				}
			}
		}
	}
}

// The parallel loop reads blocks of whole lines and its workers frame
// them: at every block size, lines straddling two blocks or longer than
// one, "\r\n", a BOM, blank lines, a NUL byte (line 1, or mid-file with
// later blocks read already), a last line without '\n', bad lines near
// the blocks' edges and several files (one missing, one given twice) give
// the serial loop's output, reports and status.
func TestParallelBlockEdges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ev := func(n int, kind string) string {
		return fmt.Sprintf(`{"seq":%d,"kind":%q,"payload":{"tool":"grep","args":{"command":"go test"}}}`, n, kind)
	}
	var mixed strings.Builder
	mixed.WriteString("\ufeff")
	for n := 1; n <= 400; n++ {
		kind := []string{"tool_call", "other", "run_error"}[n%3]
		switch {
		case n%37 == 0:
			mixed.WriteString("\n \t\n") // blank lines
		case n%41 == 0:
			mixed.WriteString(`{"kind":"tool_call",` + "\n") // cut short
		case n%43 == 0:
			mixed.WriteString(`[1]` + "\r\n")
		case n%47 == 0:
			fmt.Fprintf(&mixed, `{"seq":%d,"kind":"tool_call","payload":{"text":%q}}`+"\n", n, strings.Repeat("long ", 300+n))
		case n%2 == 0:
			mixed.WriteString(ev(n, kind) + "\r\n")
		default:
			mixed.WriteString(ev(n, kind) + "\n")
		}
	}
	mixed.WriteString(ev(401, "tool_call")) // no '\n'
	var late strings.Builder
	for n := 1; n <= 300; n++ {
		if n == 30 {
			late.WriteString(`{"kind":"tool_call","x":"a` + "\x00" + `b"}` + "\n")
		}
		late.WriteString(ev(n, "tool_call") + "\n")
	}
	mixedPath := write("mixed.jsonl", mixed.String())
	latePath := write("late-nul.jsonl", late.String())
	inputs := [][]string{
		{mixedPath},
		{latePath},
		{write("nul-first.jsonl", "\x00\x01\x02\n"+ev(1, "tool_call")+"\n")},
		{write("crlf-bom.jsonl", "\ufeff"+ev(1, "tool_call")+"\r\n\r\n"+ev(2, "tool_call")+"\r\n\ufeff{}\r\n")},
		{mixedPath, latePath, filepath.Join(dir, "missing.jsonl"), mixedPath, write("blank.jsonl", "\n\n"), write("empty.jsonl", ""), latePath},
	}
	for _, src := range []string{`kind == "tool_call"`, `payload.args.command | strings | test("go")`} {
		f, err := expr.Compile(src, expr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []options{{MaxCount: -1}, {MaxCount: -1, Invert: true}, {MaxCount: -1, Count: true}} {
			for _, names := range inputs {
				serial := runWith(t, f, o, names, 1)
				for _, size := range []int{1, 7, 64, 333, 1000, 4096, 256 << 10} {
					setBlock(t, size)
					for _, w := range []int{2, 3} {
						if got := runWith(t, f, o, names, w); got != serial {
							t.Fatalf("%s %+v on %q, blocks of %d, %d workers:\n%.3000s\nserial:\n%.3000s", src, o, names, size, w, got, serial)
						}
					}
				}
			}
		}
	}
}
