//go:build unix

package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// What a person sees of the pretty view in a real terminal, kept as tmux
// captures at 60, 80 and 120 columns (testdata/tmux; go test
// ./internal/devtools/e2e -run TestTmuxPrettyCaptures -update rewrites them: read
// them before committing). Each case shows one point of issue 20's pretty
// view, and the imported sessions that of issue 19: a Claude Code, Codex
// and pi session read as a transcript (prompts, replies, tool calls with
// their commands, failures, costs). The sessions are evimport's own test
// fixtures, written into a folder of the test's.
func TestTmuxPrettyCaptures(t *testing.T) {
	examples, _ := filepath.Abs("../../../examples")
	home := t.TempDir()
	for _, f := range []string{"claude", "claude-subagents", "codex", "pi"} {
		unpackHome(t, "../../sources/evimport/testdata/"+f+".txtar", filepath.Join(home, f))
	}
	secret := filepath.Join(home, "split.jsonl")
	// A token in two pieces of a reply: no piece holds it whole.
	os.WriteFile(secret, []byte(
		`{"seq":1,"ts":1793524444.5,"run_id":"r_1","agent_id":"parent","kind":"message_update","payload":{"type":"text_delta","delta":"the token is ghp_FAKEa1b2"}}`+"\n"+
			`{"seq":2,"ts":1793524444.6,"run_id":"r_1","agent_id":"parent","kind":"message_update","payload":{"type":"text_delta","delta":"c3d4e5f6a7b8c9d0e1f2a3b4c5d6, keep it"}}`+"\n"), 0o644)

	cases := []struct{ name, command, shows string }{
		// 20.1, 20.2, 20.4, 20.5: the reply once, words whole, no
		// marker as JSON, the quiet lines left out.
		{"uname", "zot2gp --ts stable zot/uname.jsonl", "This system is running"},
		// 20.5: in full, the quiet lines too; 20.4: the date above the
		// acknowledgement that has no time.
		{"uname-all", "zot2gp --all --ts stable zot/uname.jsonl", "turn   end  stop end"},
		// 20.1: a failed turn's error once.
		{"auth-401", "zot2gp --ts stable zot/auth-401.jsonl", "turn failed"},
		// 20.3: each run headed, the sub-agents labelled from their
		// first line, in columns that do not move.
		{"multiagent", "evfilter true events/multiagent.jsonl", "run 4 · r_0001a6d0"},
		// 20.3: a stream read from the middle of its runs says whose
		// each first line is.
		{"failed", "evfilter failed events/multiagent.jsonl", "security-auditor"},
		// Issue 19: imported sessions as transcripts (run from beside
		// them, so that a message naming a file names it the same way
		// in every run).
		{"claude", "env -C " + filepath.Join(home, "claude") + " evimport home", "FAILED Bash"},
		{"claude-subagents", "env -C " + filepath.Join(home, "claude-subagents") + " evimport home", "Explore"},
		{"codex", "env -C " + filepath.Join(home, "codex") + " evimport home", "FAILED apply_patch"},
		{"pi", "env -C " + filepath.Join(home, "pi") + " evimport home", "compact"},
		// 21.9: a secret split between two pieces, redacted once joined.
		{"redact", "evfilter --redact true " + secret, "REDACTED"},
	}
	update := flag.Lookup("update") != nil && flag.Lookup("update").Value.String() == "true"
	for _, c := range cases {
		for _, width := range []int{60, 80, 120} {
			t.Run(fmt.Sprintf("%s.w%d", c.name, width), func(t *testing.T) {
				p := startTmuxCommand(t, width, 150, fmt.Sprintf("cd %q && TZ=UTC %s", examples, c.command))
				p.waitExit()
				// With the history: a new pane may scroll its
				// first line off the top before it has its size.
				s := p.screen(true)
				s = s[:strings.LastIndex(s, "\nexit ")+1]
				// The view fits the pane; a message on stderr
				// (evimport's count of skipped records) is the
				// terminal's to wrap.
				var view []string
				for _, l := range strings.Split(s, "\n") {
					if !strings.HasPrefix(l, "evimport: ") {
						view = append(view, l)
					}
				}
				p.checkWidth(strings.Join(view, "\n"))
				if !strings.Contains(s, c.shows) {
					t.Errorf("the screen lacks %q:\n%s", c.shows, s)
				}
				golden := filepath.Join("testdata", "tmux", fmt.Sprintf("%s.w%d.txt", c.name, width))
				if update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					if err := os.WriteFile(golden, []byte(s), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -run TestTmuxPrettyCaptures -update writes it)", err)
				}
				if s != string(want) {
					t.Errorf("the screen differs from %s (-update rewrites it); now:\n%s", golden, s)
				}
			})
		}
	}
}

// unpackHome writes the files of a txtar archive under home/ into dir.
func unpackHome(t *testing.T, archive, dir string) {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if !strings.HasPrefix(f.Name, "home/") {
			continue
		}
		path := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
