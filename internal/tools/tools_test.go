package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cmd/NAME/main.go is the whole command: a one-liner that hands the
// process to NAME's Main, for every tool of the list and nothing else.
func TestCmdMatchesTheList(t *testing.T) {
	dirs, err := filepath.Glob("../../cmd/*")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range All {
		listed[tool.Name] = true
		src, err := os.ReadFile(filepath.Join("../../cmd", tool.Name, "main.go"))
		if err != nil {
			t.Errorf("%s has no command: %v", tool.Name, err)
			continue
		}
		if call := "cli.Exec(" + tool.Name + ".Main)"; !strings.Contains(string(src), call) {
			t.Errorf("cmd/%s/main.go does not call %s", tool.Name, call)
		}
	}
	for _, d := range dirs {
		if !listed[filepath.Base(d)] {
			t.Errorf("cmd/%s is not in the list of tools (internal/tools)", filepath.Base(d))
		}
	}
}
