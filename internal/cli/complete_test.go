package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The scripts know every flag --help lists and nothing hidden, the values
// of those that have a set, files for a FILE, and the flags that exclude
// each other.
func TestCompletionModel(t *testing.T) {
	m := newCompModel(manTool, model(t, manTool, &manOpts{}))
	var names []string
	for _, f := range m.flags {
		names = append(names, f.long)
	}
	if got, want := strings.Join(names, " "), "help mode out pair a b color"; got != want {
		t.Errorf("flags %q, want %q", got, want)
	}
	for _, c := range []struct {
		flag string
		kind valueKind
		args int
		excl string
	}{
		{"mode", oneOf, 1, "mode"},
		{"out", fileValues, 1, "out"},
		{"pair", noValues, 2, ""},
		{"a", noValues, 0, "a b"},
		{"color", oneOf, 1, "color"},
	} {
		f := m.flag(c.flag)
		if f.values.kind != c.kind || f.args != c.args || strings.Join(f.excl, " ") != c.excl {
			t.Errorf("--%s: values %v, %d words, excludes %q; want %v, %d, %q", c.flag, f.values.kind, f.args, f.excl, c.kind, c.args, c.excl)
		}
	}
	if m.first.kind != fileValues || m.rest.kind != fileValues || m.restName != "FILE" {
		t.Errorf("arguments: %+v", m)
	}
}

// Words for a flag the tool does not have are a bug found at once.
func TestCompletionNotesNameFlags(t *testing.T) {
	defer func() {
		if r := recover(); r != "cli: the notes of t name --breakdown, which it does not have" {
			t.Errorf("got %v; want a panic naming --breakdown, the first in order", r)
		}
	}()
	tool := manTool
	tool.Name = "t"
	tool.Words = func() map[string]Words {
		return map[string]Words{"mode": {Words: []string{"x"}}, "format": {}, "breakdown": {}}
	}
	newCompModel(tool, model(t, tool, &manOpts{}))
}

// A tool's Words are the values its man page lists and its scripts
// offer, and its Vars fill its help.
func TestToolWords(t *testing.T) {
	type opts struct {
		Format string `help:"One of ${formats}."`
		Keys   string `help:"Keys."`
	}
	tool := Tool{Name: "t",
		Vars: func() map[string]string { return map[string]string{"formats": "a, b"} },
		Words: func() map[string]Words {
			return map[string]Words{"format": {Words: []string{"a", "b"}}, "keys": {List: true, Words: []string{"k1", "k2"}}}
		}}
	run := func(args ...string) string {
		var out strings.Builder
		Parse(tool, args, Stdio{Out: &out, Err: &out}, &opts{})
		return out.String()
	}
	for args, wants := range map[string][]string{
		"--help":            {"One of a, b."},
		"--man":             {"One of a, b.", `Keys. Comma\-separated words of: k1, k2.`},
		"--completion=bash": {`_evtools_words "a b"`, `_evtools_list "k1 k2"`},
	} {
		got := run(args)
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", args, want, got)
			}
		}
	}
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
// behaviour of the scripts of the real tools is tested in internal/e2e.
func TestCompletionSyntax(t *testing.T) {
	app := model(t, manTool, &manOpts{})
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				if os.Getenv("CI") == "" {
					t.Skipf("%s is not installed (CI installs it: .ci/run)", shell)
				}
				t.Fatalf("%s is not installed, and CI is set: .ci/run should have installed it", shell)
			}
			script, err := Completion(shell, manTool, app)
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
