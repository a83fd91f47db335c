package zot2gp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// The shipped conversions in examples/output/zot are what zot2gp
// --ts=stable makes of the transcripts in examples/zot (regenerate them
// with `zot2gp --ts=stable examples/zot/X.jsonl >
// examples/output/zot/X.gp.jsonl`). examples/zot holds transcripts only.
func TestExamplesUpToDate(t *testing.T) {
	inputs, _ := filepath.Glob("../../../examples/zot/*.jsonl")
	n := 0
	for _, in := range inputs {
		gp := filepath.Join("../../../examples/output/zot", strings.TrimSuffix(filepath.Base(in), ".jsonl")+".gp.jsonl")
		want, err := os.ReadFile(gp)
		if err != nil {
			t.Errorf("%s has no conversion in examples/output/zot: %v", in, err)
			continue
		}
		var out, errs bytes.Buffer
		if code := zot2gp.Main([]string{"--ts=stable", in}, cli.Stdio{Out: &out, Err: &errs}); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, errs.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: %s is not what zot2gp --ts=stable makes of it now", in, gp)
		}
		n++
	}
	if n == 0 {
		t.Skip("no zot examples")
	}
}
