package evimport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/prices"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/pkg/jsonl"
)

// rotations are the ways a log is rotated while its agent writes it:
// rotate moves file (dir/s.jsonl) aside for the n-th time, the agent
// going on in a new or emptied s.jsonl.
var rotations = []struct {
	name   string
	rotate func(t *testing.T, file, away string, n int)
}{
	{"renamed out of the folder", func(t *testing.T, file, away string, n int) {
		mustRename(t, file, filepath.Join(away, "s.jsonl."+string(rune('0'+n))))
	}},
	{"renamed in the folder", func(t *testing.T, file, away string, n int) {
		mustRename(t, file, filepath.Join(filepath.Dir(file), "s-"+string(rune('0'+n))+".jsonl"))
	}},
	{"copied and truncated", func(t *testing.T, file, away string, n int) {
		// the copy beside it, under no session name: out of the walk
		copyAndTruncate(t, file, file+"."+string(rune('0'+n)))
	}},
	{"copied in the folder and truncated", func(t *testing.T, file, away string, n int) {
		copyAndTruncate(t, file, filepath.Join(filepath.Dir(file), "s-"+string(rune('0'+n))+".jsonl"))
	}},
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func copyAndTruncate(t *testing.T, file, copy string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copy, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
}

// A session of Codex, pi and Copilot CLI, whose files name their session
// in their first lines only, rotated twice while it is written (cut
// after each line in turn), in each of the ways rotations: what --follow
// writes is what a pass over the session's lines as one file writes, its
// model calls, tool calls and tokens in the same session and runs, but
// for the last run, still open. Before, the lines after a rotation were
// a session of their own, named after the file, with no project, their
// runs from 0 (or, when the copy was in the folder, counted again).
func TestFollowRotationKeepsTheSession(t *testing.T) {
	for _, c := range []struct{ script, file string }{
		{"codex.txtar", "home/.codex/sessions/2026/03/06/rollout-2026-03-06T08-00-00-019cb3a1-7e42-7c10-9a55-3e8d2f61b0a7.jsonl"},
		{"pi.txtar", "home/.pi/agent/sessions/--home-ana-src-game--/2026-03-08T20-00-00-000Z_3b7e1d92-0c4a-4f68-9d15-a2e6c8b0f473.jsonl"},
		{"copilot.txtar", "home/.copilot/session-state/7c1e4b2a-5d3f-4e8a-9b6c-0a1d2e3f4a5b/events.jsonl"},
		// and Claude Code's, every line of which names it
		{"claude.txtar", "home/.claude/projects/-home-ana-src-shop/5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90.jsonl"},
	} {
		data := fixtureSessions(t, c.script)[c.file]
		if len(data) == 0 {
			t.Fatalf("%s: no %s", c.script, c.file)
		}
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		whole := t.TempDir()
		os.WriteFile(filepath.Join(whole, "s.jsonl"), data, 0o644)
		_, stdout, _ := runMain("", whole)
		want := calls(t, stdout)
		for _, r := range rotations {
			t.Run(c.script+"/"+r.name, func(t *testing.T) {
				for a := 1; a < len(lines)-1; a++ {
					b := (a + len(lines) + 1) / 2
					got, stderr := followRotated(t, lines, []int{a, b}, r.rotate, a%2 == 0)
					g := calls(t, got)
					extra := minus(flat(g), flat(want))
					var missed []string
					for _, l := range minus(flat(want), flat(g)) {
						if !inLastRun(l, want) {
							missed = append(missed, l)
						}
					}
					if len(extra) > 0 || len(missed) > 0 || stderr != "" {
						t.Fatalf("rotated after lines %d and %d: followed, not in a pass:\n%s\nin a pass, not followed:\n%s\nstderr: %s", a, b, strings.Join(extra, "\n"), strings.Join(missed, "\n"), stderr)
					}
					if r := minus(sortedKeys(runs(t, got)), sortedKeys(runs(t, stdout))); len(r) > 0 {
						t.Fatalf("rotated after lines %d and %d: runs followed, not in a pass: %s", a, b, strings.Join(r, " "))
					}
				}
			})
		}
	}
}

// followRotated follows a folder in which lines are written to s.jsonl,
// rotated (rotate) before each line of at, a round after each write (and
// after each rotation, when look), and returns what the rounds wrote
// and said on stderr.
func followRotated(t *testing.T, lines []string, at []int, rotate func(t *testing.T, file, away string, n int), look bool) (string, string) {
	t.Helper()
	dir, away := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	var stdout, stderr bytes.Buffer
	out := jsonl.NewWriter(&stdout)
	in := &jsonl.Input{Tool: name, Stderr: &stderr, Out: out}
	table := prices.Default()
	fl := newFollower(&options{Input: cli.Input{Files: []string{dir}}, From: "auto"}, in, out, window.Window{}, func() *converter { return newConverter(table) })
	round := func() {
		if err := fl.round(); err != nil {
			t.Fatal(err)
		}
	}
	from := 0
	for i, to := range append(at, len(lines)) {
		if i > 0 {
			rotate(t, file, away, i)
			if look {
				round()
			}
		}
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.Join(lines[from:to], ""))
		f.Close()
		from = to
		round()
	}
	round()
	return stdout.String(), stderr.String()
}
