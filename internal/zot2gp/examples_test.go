package zot2gp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/zot2gp"
)

// The shipped conversions in examples/zot are what zot2gp --ts=stable
// makes of the transcripts next to them (regenerate them with
// `zot2gp --ts=stable examples/zot/X.jsonl > examples/zot/X.gp.jsonl`).
// A transcript is X.jsonl; X.anything.jsonl is made from one (X.gp.jsonl
// here, X.summary.jsonl by evsum) and is not a transcript.
func TestExamplesUpToDate(t *testing.T) {
	inputs, _ := filepath.Glob("../../examples/zot/*.jsonl")
	n := 0
	for _, in := range inputs {
		if strings.Contains(strings.TrimSuffix(filepath.Base(in), ".jsonl"), ".") {
			continue
		}
		want, err := os.ReadFile(strings.TrimSuffix(in, ".jsonl") + ".gp.jsonl")
		if err != nil {
			t.Errorf("%s has no conversion next to it: %v", in, err)
			continue
		}
		var out, errs bytes.Buffer
		if code := zot2gp.Main([]string{"--ts=stable", in}, cli.Stdio{Out: &out, Err: &errs}); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, errs.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: the .gp.jsonl next to it is not what zot2gp --ts=stable makes of it now", in)
		}
		n++
	}
	if n == 0 {
		t.Skip("no zot examples")
	}
}
