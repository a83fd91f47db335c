package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/cli"
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

// A list of names and a list of entry points that disagree is caught when
// the package is loaded, not by a page that leaves a tool out.
func TestPairRefusesAMismatch(t *testing.T) {
	main := func([]string, cli.Stdio) int { return 0 }
	for name, c := range map[string]struct {
		names []string
		mains map[string]func([]string, cli.Stdio) int
	}{
		"a name too many":     {[]string{"a", "b"}, map[string]func([]string, cli.Stdio) int{"a": main}},
		"an entry point more": {[]string{"a"}, map[string]func([]string, cli.Stdio) int{"a": main, "b": main}},
		"another name":        {[]string{"a"}, map[string]func([]string, cli.Stdio) int{"b": main}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: pair did not panic", name)
				}
			}()
			pair(c.names, c.mains)
		}()
	}
	if got := pair([]string{"b", "a"}, map[string]func([]string, cli.Stdio) int{"a": main, "b": main}); got[0].Name != "b" || got[1].Name != "a" {
		t.Errorf("pair kept the map's order, not the names': %v", got)
	}
}
