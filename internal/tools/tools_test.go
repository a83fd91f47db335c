package tools

import (
	"os"
	"path/filepath"
	"regexp"
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

// A short flag means one thing in every tool that has it: -f is jq's (the
// file of an expression), -F tail -F's follow; evsum's --format has none.
func TestShortFlagsMeanOneThing(t *testing.T) {
	short := regexp.MustCompile(`(?m)^\s+-(\w), (--[\w-]+)`)
	meaning := map[string]string{} // -x: --long (tool)
	for _, tool := range All {
		var out strings.Builder
		tool.Main([]string{"--help"}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &out})
		for _, m := range short.FindAllStringSubmatch(out.String(), -1) {
			flag, long := "-"+m[1], m[2]
			if prev, ok := meaning[flag]; ok && !strings.HasPrefix(prev, long+" ") {
				t.Errorf("%s is %s in %s but %s", flag, long, tool.Name, prev)
				continue
			}
			if _, ok := meaning[flag]; !ok {
				meaning[flag] = long + " (" + tool.Name + ")"
			}
		}
	}
	if !strings.HasPrefix(meaning["-f"], "--from-file ") || !strings.HasPrefix(meaning["-F"], "--follow ") {
		t.Errorf("-f is %q, -F %q; want --from-file and --follow", meaning["-f"], meaning["-F"])
	}
}
