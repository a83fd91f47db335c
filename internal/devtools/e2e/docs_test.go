package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocs runs the shell sessions of README.md and docs/*.md and compares
// their output, so that the documentation cannot drift from the tools.
//
// A session is a code block (fenced, or indented by four spaces) whose
// first line starts with "$ ". Each "$ " line is a command; the lines up to
// the next command are what it writes, stdout and stderr together. The
// commands of a block run one after another in one bash (set -o pipefail),
// from a temporary copy of the repository's examples/ (so examples/... paths
// work and a command may write files), with the tools on PATH. The exit
// status is not compared: the text around a session says what it is.
//
// A session that cannot run here (network, cron, systemd, GNU parallel, a
// file the reader has and the repository has not) is marked with the
// line
//
//	<!-- not run -->
//
// (optionally with a reason after "not run") just before the block.
func TestDocs(t *testing.T) {
	files, _ := filepath.Glob("../../../docs/*.md")
	files = append(files, "../../../README.md")
	for _, f := range files {
		if docsSkipped[filepath.Base(f)] {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions(string(text)) {
			dir := t.TempDir()
			if err := exec.Command("cp", "-r", "../../../examples", dir).Run(); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, c := range s.cmds {
				cmd := exec.Command("bash", "-o", "pipefail", "-c", c.line)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				got.Write(out)
				if _, ok := err.(*exec.ExitError); !ok && err != nil {
					t.Fatal(err)
				}
			}
			var want strings.Builder
			for _, c := range s.cmds {
				want.WriteString(c.want)
			}
			if got.String() != want.String() {
				t.Errorf("%s:%d: the session's output differs; it is now:\n%s", filepath.Base(f), s.line, show(s, got.String()))
			}
		}
	}
}

// docsSkipped are the pages whose owners are bringing their sessions up to
// date: TestDocs leaves them out until then. Empty this list when they are.
var docsSkipped = map[string]bool{}

type command struct{ line, want string }

type session struct {
	line int // of the first command, 1-based
	cmds []command
}

// sessions finds the shell sessions of a Markdown text.
func sessions(text string) []session {
	lines := strings.Split(text, "\n")
	var out []session
	for i := 0; i < len(lines); i++ {
		var block []string
		start := i
		switch {
		case strings.HasPrefix(lines[i], "```"):
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
				block = append(block, lines[j])
				j++
			}
			start, i = i+1, j
		case strings.HasPrefix(lines[i], "    ") && (i == 0 || strings.TrimSpace(lines[i-1]) == ""):
			j := i
			for j < len(lines) && (strings.HasPrefix(lines[j], "    ") || strings.TrimSpace(lines[j]) == "" && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "    ")) {
				block = append(block, strings.TrimPrefix(lines[j], "    "))
				j++
			}
			i = j - 1
		default:
			continue
		}
		if len(block) == 0 || !strings.HasPrefix(block[0], "$ ") || notRun(lines, start) {
			continue
		}
		s := session{line: start + 1}
		for _, l := range block {
			if strings.HasPrefix(l, "$ ") {
				s.cmds = append(s.cmds, command{line: l[2:]})
				continue
			}
			s.cmds[len(s.cmds)-1].want += l + "\n"
		}
		out = append(out, s)
	}
	return out
}

// notRun says whether the block starting at line start (0-based) has the
// not-run marker before it.
func notRun(lines []string, start int) bool {
	for k := start - 1; k >= 0 && k >= start-3; k-- {
		l := strings.TrimSpace(lines[k])
		if strings.HasPrefix(l, "<!-- not run") {
			return true
		}
		if l != "" && !strings.HasPrefix(l, "```") {
			return false
		}
	}
	return false
}

// show is a session as it would read with got as its output.
func show(s session, got string) string {
	var b strings.Builder
	for _, c := range s.cmds {
		b.WriteString("    $ " + c.line + "\n")
	}
	for _, l := range strings.SplitAfter(got, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}
