package complete

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc/doctest"
)

// The scripts know every flag --help lists and nothing hidden, the values
// of those that have a set, files for a FILE, and the flags that exclude
// each other.
func TestCompletionModel(t *testing.T) {
	m := newCompModel(doctest.Tool, doctest.Model(t, doctest.Tool.Name, &doctest.Options{}))
	var names []string
	for _, f := range m.flags {
		names = append(names, f.long)
	}
	if got, want := strings.Join(names, " "), "help mode out pair a b color"; got != want {
		t.Errorf("flags %q, want %q", got, want)
	}
	for _, c := range []struct {
		flag string
		kind tooldoc.ValueKind
		args int
		excl string
	}{
		{"mode", tooldoc.OneOf, 1, "mode"},
		{"out", tooldoc.FileValues, 1, "out"},
		{"pair", tooldoc.NoValues, 2, ""},
		{"a", tooldoc.NoValues, 0, "a b"},
		{"color", tooldoc.OneOf, 1, "color"},
	} {
		f := m.flag(c.flag)
		if f.values.Kind != c.kind || f.args != c.args || strings.Join(f.excl, " ") != c.excl {
			t.Errorf("--%s: values %v, %d words, excludes %q; want %v, %d, %q", c.flag, f.values.Kind, f.args, f.excl, c.kind, c.args, c.excl)
		}
	}
	if m.first.Kind != tooldoc.FileValues || m.rest.Kind != tooldoc.FileValues || m.restName != "FILE" {
		t.Errorf("arguments: %+v", m)
	}
}

// Words for a flag the tool does not have are a bug found at once.
func TestCompletionNotesNameFlags(t *testing.T) {
	defer func() {
		if r := recover(); r != "complete: the notes of t name --breakdown, which it does not have" {
			t.Errorf("got %v; want a panic naming --breakdown, the first in order", r)
		}
	}()
	tool := doctest.Tool
	tool.Name = "t"
	tool.Words = func() map[string]tooldoc.Words {
		return map[string]tooldoc.Words{"mode": {Words: []string{"x"}}, "format": {}, "breakdown": {}}
	}
	newCompModel(tool, doctest.Model(t, tool.Name, &doctest.Options{}))
}

func TestShortHelp(t *testing.T) {
	for in, want := range map[string]string{
		"Print the version and exit.": "Print the version and exit",
		"Select the events that do not pass (with -v, an event whose evaluation failed is selected).":  "Select the events that do not pass",
		"Print nothing; stop at the first selected event. The exit status says whether there was one.": "Print nothing; stop at the first selected event",
		"List the named filters: how to call each, where it comes from, what it selects.":              "List the named filters: how to call each, where it comes from...",
	} {
		if got := shortHelp(in); got != want {
			t.Errorf("shortHelp(%q) = %q, want %q", in, got, want)
		}
	}
}

// Each script is valid in its shell: bash -n, zsh -n, fish -n. The
// behaviour of the scripts of the real tools is tested in internal/devtools/e2e.
func TestCompletionSyntax(t *testing.T) {
	app := doctest.Model(t, doctest.Tool.Name, &doctest.Options{})
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				if os.Getenv("CI") == "" {
					t.Skipf("%s is not installed (CI installs it: .ci/run)", shell)
				}
				t.Fatalf("%s is not installed, and CI is set: .ci/run should have installed it", shell)
			}
			script, err := Script(shell, doctest.Tool, app)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(shell, "-n")
			cmd.Stdin = strings.NewReader(script)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("%s -n: %v\n%s\n%s", shell, err, out, script)
			}
		})
	}
}
