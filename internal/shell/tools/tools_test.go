package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/rogpeppe/go-internal/txtar"
)

// cmd/NAME/main.go is the whole command: a one-liner that hands the
// process to NAME's Main, for every tool of the list and nothing else.
func TestCmdMatchesTheList(t *testing.T) {
	dirs, err := filepath.Glob("../../../cmd/*")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range All {
		listed[tool.Name] = true
		src, err := os.ReadFile(filepath.Join("../../../cmd", tool.Name, "main.go"))
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
			t.Errorf("cmd/%s is not in the list of tools (internal/shell/tools)", filepath.Base(d))
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

// One NUL byte is one bad line in every tool: reported with its file and
// line, exit 2, and the 20,976 lines around it processed (it used to drop
// the rest of the file).
func TestNULIsOneBadLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, line func(i int) string) string {
		var b strings.Builder
		for i := 1; i <= 20977; i++ {
			if i == 100 {
				b.WriteString("{\"seq\":100,\"kind\":\"x\",\"payload\":{\"t\":\"a\x00b\"}}\n")
				continue
			}
			b.WriteString(line(i) + "\n")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := write("env.jsonl", func(i int) string {
		return fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":"r","kind":"tool_call","payload":{"tool":"bash"}}`, i, 1758800000+i)
	})
	zot := write("zot.jsonl", func(int) string { return `{"delta":"x","type":"text_delta"}` })
	mains := map[string]func([]string, cli.Stdio) int{}
	for _, tool := range All {
		mains[tool.Name] = tool.Main
	}
	for _, c := range []struct {
		tool string
		args []string
		want string // in stdout
	}{
		{"evfilter", []string{"true", env}, ""},
		{"evcursor", []string{env}, ""},
		{"evcursor", []string{"--check", env}, ""},
		{"zot2gp", []string{"--format", "envelope", zot}, ""},
		{"evsum", []string{"--by", "none", "--format", "jsonl", env}, `"events":20976,`},
	} {
		var out, stderr strings.Builder
		code := mains[c.tool](c.args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &stderr})
		name := c.tool + " " + strings.Join(c.args[:len(c.args)-1], " ")
		file := c.args[len(c.args)-1]
		if code != cli.ExitError || !strings.Contains(stderr.String(), file+":100: a NUL byte") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and line 100 named", name, code, stderr.String())
		}
		if c.want != "" {
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("%s: %.200s; want %s", name, out.String(), c.want)
			}
		} else if n := strings.Count(out.String(), "\n"); n != 20976 {
			t.Errorf("%s: %d lines out, want 20976", name, n)
		}
	}
}

// --all means one thing in every tool that has the pretty view (issue
// 20.5): the lines the view leaves out by default, a model call's start
// among them, are shown; without it they are not.
func TestAllMeansOneThing(t *testing.T) {
	session := filepath.Join(t.TempDir(), "session.jsonl")
	a, err := txtar.ParseFile("../../sources/evimport/testdata/claude.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if strings.HasSuffix(f.Name, "7d3e9b10-55aa-4f2e-8c1d-90b7e6a3f214.jsonl") {
			os.WriteFile(session, f.Data, 0o644)
		}
	}
	args := map[string][]string{
		"zot2gp":   {"../../../examples/zot/uname.jsonl"},
		"evfilter": {"true", "../../../examples/events/multiagent.jsonl"},
		"evcursor": {"../../../examples/events/multiagent.jsonl"},
		"evimport": {session},
	}
	step := regexp.MustCompile(`(?m)^[0-9:. ]{12} (turn   step 1|model  \S+  step 1)`)
	for _, tool := range All {
		if tool.Name == "evsum" || tool.Name == "ev2otlp" {
			continue // a table, traces: no pretty view
		}
		run := func(all bool) string {
			var out, errw strings.Builder
			a := append([]string{"--format", "pretty"}, args[tool.Name]...)
			if all {
				a = append([]string{"--all"}, a...)
			}
			if code := tool.Main(a, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errw}); code != 0 {
				t.Fatalf("%s %v: exit %d %s", tool.Name, a, code, errw.String())
			}
			return out.String()
		}
		if quiet, full := run(false), run(true); step.MatchString(quiet) || !step.MatchString(full) {
			t.Errorf("%s: a model call's start by default %v, with --all %v; want only with --all", tool.Name, step.MatchString(quiet), step.MatchString(full))
		}
	}
}
