package evfilter

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/corpus"
	"github.com/evtools/evtools/pkg/expr"
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
	for _, o := range []options{{MaxCount: -1}, {MaxCount: -1, Invert: true}, {MaxCount: 50}, {MaxCount: -1, Count: true}} {
		f, err := expr.Compile(`payload.args.command | strings | test("go")`, expr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		serial := runWith(t, f, o, path, 1)
		for _, w := range []int{2, 3, 8} {
			if got := runWith(t, f, o, path, w); got != serial {
				t.Fatalf("%+v with %d workers:\n%.2000s\nserial:\n%.2000s", o, w, got, serial)
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
