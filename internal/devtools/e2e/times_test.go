package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// `cat run.jsonl | zot2gp | evsum` (and zcat) reported a 5-second run as
// 162 days: the events without a time of their own got the clock while
// user_message kept its recorded time (issue 21, item 12). Through a pipe,
// each shipped example now gives the report it gives as a named file.
func TestTimesFromAPipe(t *testing.T) {
	examples, err := filepath.Glob("../../../examples/zot/*.jsonl")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	dir := t.TempDir()
	for _, ex := range examples {
		abs, err := filepath.Abs(ex)
		if err != nil {
			t.Fatal(err)
		}
		if err := exec.Command("sh", "-c", `gzip -c "$1" > "$2"`, "sh", abs, filepath.Join(dir, "run.jsonl.gz")).Run(); err != nil {
			t.Fatal(err)
		}
		report := func(pipeline string) string {
			cmd := exec.Command("sh", "-c", pipeline+" | evsum --format json", "sh", abs)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TZ=UTC")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", pipeline, err, out)
			}
			return string(out)
		}
		want := report(`zot2gp --run-id x "$1"`)
		for _, pipeline := range []string{
			`cat "$1" | zot2gp --run-id x`,
			`zcat run.jsonl.gz | zot2gp --run-id x`,
		} {
			if got := report(pipeline); got != want {
				t.Errorf("%s, %s:\n%s\nwant, as from the file:\n%s", filepath.Base(ex), pipeline, got, want)
			}
		}
	}
}
