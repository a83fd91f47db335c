package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The cookbook tests carry copies of the shipped examples (a script runs in
// a folder of its own); they must stay the files of examples/, so that the
// cookbook's "tested on examples/" holds.
func TestScriptsUseTheShippedExamples(t *testing.T) {
	shipped := map[string]string{
		"multiagent.jsonl": "../../../examples/events/multiagent.jsonl",
		"uname.jsonl":      "../../../examples/zot/uname.jsonl",
		"auth-401.jsonl":   "../../../examples/zot/auth-401.jsonl",
	}
	scripts, _ := filepath.Glob("testdata/*.txtar")
	seen := 0
	for _, script := range scripts {
		a, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			path, ok := shipped[f.Name]
			if !ok {
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(f.Data, want) {
				t.Errorf("%s: %s differs from %s: copy the file in again", script, f.Name, path)
			}
			seen++
		}
	}
	if seen < len(shipped) {
		t.Errorf("the scripts carry %d copies of the %d examples", seen, len(shipped))
	}
}
