//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/tools"
)

// completionHome is a folder to complete in (two inputs, a filter file, a
// folder), with the tools' scripts installed under share/ as make install
// lays them out, and a folder of named filters of the user's for
// EVTOOLS_FILTERS, defining mine.
func completionHome(t *testing.T) (dir, filters string) {
	t.Helper()
	dir = t.TempDir()
	for _, f := range []string{"run.jsonl", "rules.jq", "logs/day.jsonl", "filters/mine.jq"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filters = filepath.Join(dir, "filters")
	if err := os.WriteFile(filepath.Join(filters, "mine.jq"), []byte("# events of kind x\ndef mine: kind == \"x\";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.All {
		for shell, path := range map[string]string{
			"bash": "share/bash-completion/completions/" + tool.Name,
			"zsh":  "share/zsh/site-functions/_" + tool.Name,
			"fish": "share/fish/vendor_completions.d/" + tool.Name + ".fish",
		} {
			p := filepath.Join(dir, path)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(output(t, tool.Name, "--completion", shell)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, filters
}

// What bash's completion function of each tool offers, called as bash
// calls it (COMP_WORDS split at "=" as bash splits them): flags, the values
// of a flag (one of a set, a comma-separated list, files), evfilter's
// named filters from evfilter --list (EVTOOLS_FILTERS included) where its
// expression goes and files after it, and hidden flags never.
func TestBashCompletionFunctions(t *testing.T) {
	bash := need(t, "bash", "bash")
	dir, filters := completionHome(t)
	// The function asks the command it completes for (its first
	// argument) for the named filters: here a stand-in that prints what
	// evfilter --list prints, so that the cases start no evfilter (the
	// tmux test below has the real one asked).
	t.Setenv("EVTOOLS_FILTERS", filters)
	list := output(t, "evfilter", "--list")
	if !strings.Contains(list, "mine ") {
		t.Fatalf("evfilter --list with EVTOOLS_FILTERS does not list mine:\n%s", list)
	}
	standIn := filepath.Join(dir, "evfilter-list")
	if err := os.WriteFile(standIn, []byte("#!/bin/sh\n[ \"$1\" = --list ] && cat <<'EOF'\n"+list+"EOF\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ line, want string }{
		{"evsum --form", "--format"},
		{"evsum --m", "--merge"}, // not the hidden --man
		{"zot2gp --co", "--color"},
		{"evsum --format ", "table jsonl json md csv html"},
		{"evsum --format = ", "table jsonl json md csv html"},
		{"evsum --format = j", "jsonl json"},
		{"evsum --by d", "day"},
		{"evsum --by agent,t", "agent,tool"},
		{"evsum -b run,w", "run,week"},
		{"evsum --columns run_id,co", "run_id,cost"},
		{"evsum --tz L", "Local"},
		{"evsum --live a", "auto always"},
		{"evsum --since ", ""},
		{"evsum r", "rules.jq run.jsonl"},
		{"evsum lo", "logs"},
		{"evfilter fai", "failed"},
		{"evfilter mi", "mine"},
		{"evfilter failed r", "rules.jq run.jsonl"},
		{"evfilter -f ru", "rules.jq run.jsonl"},
		{"evfilter -f rules.jq ru", "rules.jq run.jsonl"},
		{"evfilter --from-file = rules.jq ru", "rules.jq run.jsonl"},
		{"evfilter -cf rules.jq ru", "rules.jq run.jsonl"},
		{"evfilter -cm 5 fai", "failed"},
		{"evfilter -m5 fai", "failed"},
		{"evfilter --arg tool bash fai", "failed"},
		{"evfilter --arg tool ", ""},
		{"evfilter --format pretty fai", "failed"},
		{"evfilter -- fai", "failed"},
		{"evfilter -v -- failed ru", "rules.jq run.jsonl"},
		{"evcursor --state ru", "rules.jq run.jsonl"},
		{"evcursor --after ", ""},
		{"zot2gp --ts s", "stable"},
		{"zot2gp --format p", "pretty pi"},
	}
	var script strings.Builder
	for _, tool := range tools.All {
		fmt.Fprintf(&script, "source share/bash-completion/completions/%s\n", tool.Name)
	}
	script.WriteString(`c() {
	COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	cmd=$1; [[ $cmd == evfilter ]] && cmd=./evfilter-list
	_evtools_$1 "$cmd" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	echo "${COMPREPLY[*]}"
}
`)
	for _, c := range cases {
		words := strings.Fields(c.line)
		if strings.HasSuffix(c.line, " ") {
			words = append(words, "")
		}
		for i, w := range words {
			words[i] = "'" + w + "'"
		}
		fmt.Fprintf(&script, "c %s\n", strings.Join(words, " "))
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script.String())
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(cases) {
		t.Fatalf("%d answers for %d cases:\n%s", len(got), len(cases), out)
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%q<Tab>: %q, want %q", c.line, got[i], c.want)
		}
	}

	// Where the expression goes, every named filter: the built-in ones
	// and the user's.
	cmd = exec.Command(bash, "--norc", "--noprofile", "-c", "source share/bash-completion/completions/evfilter; COMP_WORDS=(evfilter ''); COMP_CWORD=1; _evtools_evfilter ./evfilter-list; echo ${COMPREPLY[*]}")
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	all := strings.Fields(string(out))
	slices.Sort(all)
	if want := "agent costly failed lifecycle mine slow tool tools"; err != nil || strings.Join(all, " ") != want {
		t.Errorf("evfilter <Tab><Tab>: %v %q, want %q", err, out, want)
	}
}

// In a real bash, with bash-completion loading the scripts from where
// make install puts them (found by the command's name, through
// XDG_DATA_DIRS), typing as a person does: evsum --form<Tab> completes to
// --format, evsum --format <Tab><Tab> lists the formats, evfilter
// fai<Tab> completes the named filter failed, and mi<Tab> the user's
// filter mine from EVTOOLS_FILTERS.
func TestTmuxBashCompletion(t *testing.T) {
	bash := need(t, "bash", "bash")
	var loader string
	for _, f := range []string{"/usr/share/bash-completion/bash_completion", "/etc/bash_completion"} {
		if _, err := os.Stat(f); err == nil {
			loader = f
			break
		}
	}
	if loader == "" {
		if os.Getenv("CI") == "" {
			t.Skip("bash-completion is not installed (CI installs it: .ci/run)")
		}
		t.Fatal("bash-completion is not installed, and CI is set: .ci/run should have installed it")
	}
	dir, filters := completionHome(t)
	rc := filepath.Join(dir, "bashrc")
	err := os.WriteFile(rc, []byte(fmt.Sprintf("source %s\nPS1='$ '\nbind 'set bell-style none'\n", loader)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pane := startTmux(t, 100, 24, fmt.Sprintf("cd '%s' && env HISTFILE= HOME='%s' XDG_DATA_DIRS='%s/share' EVTOOLS_FILTERS='%s' PATH='%s' TERM=screen %s --noprofile --rcfile '%s' -i",
		dir, dir, dir, filters, os.Getenv("PATH"), bash, rc))
	pane.waitFor("the prompt", func(s string) bool { return strings.HasSuffix(s, "$\n") })
	typed := func(keys ...string) {
		t.Helper()
		pane.tmux(append([]string{"send-keys"}, keys...)...)
	}
	clear := func() {
		t.Helper()
		typed("C-u", "clear", "Enter")
		pane.waitFor("a clear screen", func(s string) bool { return s == "$\n" })
	}
	clear()

	typed("evsum --form", "Tab")
	pane.waitFor("evsum --format", func(s string) bool { return strings.Contains(s, "$ evsum --format\n") })
	typed("Tab", "Tab")
	s, _ := pane.waitFor("the formats", func(s string) bool {
		return regexp.MustCompile(`(?m)^csv +html +json +jsonl +md +table *$`).MatchString(s)
	})
	pane.checkWidth(s)
	clear()

	typed("evfilter fai", "Tab")
	pane.waitFor("evfilter failed", func(s string) bool { return strings.Contains(s, "$ evfilter failed\n") })
	typed("rul", "Tab")
	pane.waitFor("a file after the expression", func(s string) bool { return strings.Contains(s, "$ evfilter failed rules.jq\n") })
	clear()

	typed("evfilter mi", "Tab")
	typed("x")
	pane.waitFor("evfilter mine", func(s string) bool { return strings.Contains(s, "$ evfilter mine x\n") })
	clear()

	typed("evsum --by agent,t", "Tab")
	pane.waitFor("evsum --by agent,tool", func(s string) bool { return strings.Contains(s, "$ evsum --by agent,tool\n") })
}

// In zsh, with the scripts in a folder of $fpath and compinit (as make
// install and a zshrc set it up): each loads without a message, evsum
// --format <Tab> lists the formats, evfilter fai<Tab> completes failed,
// mi<Tab> the user's mine, and evcursor --after rules out the other modes.
func TestTmuxZshCompletion(t *testing.T) {
	zsh := need(t, "zsh", "zsh")
	dir, filters := completionHome(t)
	rc := filepath.Join(dir, ".zshrc")
	err := os.WriteFile(rc, []byte(fmt.Sprintf("fpath=('%s/share/zsh/site-functions' $fpath)\nautoload -U compinit && compinit -u -d '%s/.zcompdump'\nPS1='%%%% '\n", dir, dir)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pane := startTmux(t, 100, 24, fmt.Sprintf("cd '%s' && env HISTFILE= HOME='%s' ZDOTDIR='%s' EVTOOLS_FILTERS='%s' PATH='%s' TERM=screen %s -d -i",
		dir, dir, dir, filters, os.Getenv("PATH"), zsh))
	s, _ := pane.waitFor("the prompt", func(s string) bool { return strings.HasSuffix(s, "%\n") })
	if s != "%\n" {
		t.Errorf("zsh said something while starting:\n%s", s)
	}
	typed := func(keys ...string) {
		t.Helper()
		pane.tmux(append([]string{"send-keys"}, keys...)...)
	}
	clear := func() {
		t.Helper()
		typed("C-u", "clear", "Enter")
		pane.waitFor("a clear screen", func(s string) bool { return s == "%\n" })
	}
	clear()

	typed("evsum --format ", "Tab")
	pane.waitFor("the formats", func(s string) bool {
		return regexp.MustCompile(`(?m)^csv +html +json +jsonl +md +table *$`).MatchString(s)
	})
	clear()

	typed("evfilter fai", "Tab")
	typed("x")
	pane.waitFor("evfilter failed", func(s string) bool { return strings.Contains(s, "% evfilter failed x\n") })
	clear()

	typed("evfilter mi", "Tab")
	typed("x")
	pane.waitFor("evfilter mine", func(s string) bool { return strings.Contains(s, "% evfilter mine x\n") })
	clear()

	typed("evcursor --after 1 --", "Tab")
	s, _ = pane.waitFor("the flags left", func(s string) bool { return strings.Contains(s, "\n--defer ") })
	for _, gone := range []string{"--state", "--commit", "--check", "--after"} {
		if regexp.MustCompile(`(?m)^` + gone + ` `).MatchString(s) {
			t.Errorf("after --after, zsh offers %s:\n%s", gone, s)
		}
	}
}

// fish, asked without a terminal (complete -C) with the scripts where
// make install puts them: the values of flags, the named filters with
// what they select, files after the expression.
func TestFishCompletion(t *testing.T) {
	fish := need(t, "fish", "fish")
	dir, filters := completionHome(t)
	cases := []struct{ line, want string }{
		{"evsum --form", "--format"},
		{"evsum --format ", "csv html json jsonl md table"},
		{"evsum --format=j", "--format=json --format=jsonl"},
		{"evsum --by agent,t", "agent,tool"},
		{"evsum --by=agent,t", "--by=agent,tool"},
		{"evfilter fai", "failed"},
		{"evfilter mi", "mine"},
		{"evfilter failed ru", "rules.jq run.jsonl"},
		{"evfilter -f rules.jq ru", "rules.jq run.jsonl"},
		{"evfilter --arg tool bash -m 5 fai", "failed"},
		{"evcursor --state ru", "rules.jq run.jsonl"},
		{"zot2gp --ts s", "stable"},
	}
	var script strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&script, "set -l r (complete -C %s | string replace -r '\\t.*' '')\necho \"=$r\"\n", fishQuote(c.line))
	}
	// fish finds the scripts through XDG_DATA_DIRS; the rest of its
	// folders are the test's
	env := append(os.Environ(), "HOME="+dir, "XDG_DATA_DIRS="+filepath.Join(dir, "share"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "XDG_DATA_HOME="+filepath.Join(dir, ".local"))
	cmd := exec.Command(fish, "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(env, "EVTOOLS_FILTERS="+filters)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			got = append(got, strings.TrimPrefix(l, "="))
		}
	}
	if len(got) != len(cases) {
		t.Fatalf("%d answers for %d cases:\n%s", len(got), len(cases), out)
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%q<Tab>: %q, want %q", c.line, got[i], c.want)
		}
	}
	// with what each selects, from evfilter --list
	cmd = exec.Command(fish, "-c", "complete -C 'evfilter fai'")
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "failed\tany failure in either vocabulary") {
		t.Errorf("evfilter fai<Tab> in fish: %v %q", err, out)
	}
}

func fishQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
