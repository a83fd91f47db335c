//go:build unix

package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var updateTmux = flag.Bool("update-tmux", false, "rewrite the tmux captures of testdata/tmux")

// evsum's table as a person sees it in terminals 60, 80 and 120 columns
// wide, captured from tmux, against the golden captures in testdata/tmux
// (-update-tmux rewrites them; read them before committing): the columns
// each grouping fills (by tool its calls, failures and events, by model
// its calls, tokens and cost, no empty outcomes or wall columns), numbers
// one way in a column (2.3k beside 34k, 2.9s beside 34.6s, 62,670), the
// events of no agent or tool named (no agent), (no tool), and a report of
// no events said in words under the error that explains it.
func TestTmuxEvsumTables(t *testing.T) {
	evsum, err := exec.LookPath("evsum")
	if err != nil {
		t.Fatal(err)
	}
	quote := func(s string) string { return "'" + s + "'" }
	example, _ := filepath.Abs("../../../examples/events/multiagent.jsonl")
	// An imported Claude Code session with subagents (evimport's
	// fixture), in a file as the example is: through a pipe the table
	// would be live, and the final one would keep the columns of the
	// first frame, drawn wherever in the input a redraw fell.
	home := t.TempDir()
	unpackHome(t, "../../sources/evimport/testdata/claude-subagents.txtar", home)
	imported := filepath.Join(home, "imported.jsonl")
	importEvents(t, filepath.Join(home, "home"), imported)
	for _, c := range []struct{ name, args string }{
		{"run", quote(example)},
		{"claude-run", quote(imported)},
		{"claude-model", "--by model " + quote(imported)},
		{"claude-role", "--by role " + quote(imported)},
		{"agent", "--by agent " + quote(example)},
		{"tool", "--by tool " + quote(example)},
		{"model", "--by model " + quote(example)},
		{"agent-tool", "--by agent,tool " + quote(example)},
		{"missing", "--by tool missing.jsonl"},
	} {
		for _, width := range []int{60, 80, 120} {
			name := fmt.Sprintf("evsum-%s.%d.txt", c.name, width)
			t.Run(name, func(t *testing.T) {
				pane := startTmuxCommand(t, width, 30, fmt.Sprintf("cd %s && %s %s", quote(t.TempDir()), quote(evsum), c.args))
				pane.waitExit()
				// with the history: a new pane may scroll its first
				// line off the top before it has its size
				got := pane.screen(true)
				pane.checkWidth(got)
				path := filepath.Join("testdata", "tmux", name)
				if *updateTmux {
					os.MkdirAll(filepath.Dir(path), 0o755)
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test -update-tmux writes it)", err)
				}
				if got != string(want) {
					t.Errorf("the pane shows:\n%s\nwant (%s):\n%s", got, path, want)
				}
			})
		}
	}
}

// tail -f log | evsum at 80 columns: as runs end one by one and the
// total's outcomes grow, every frame has the columns of the first (the
// outcomes are cut instead), and so has the final table.
func TestTmuxEvsumLiveKeepsColumns(t *testing.T) {
	evsum, err := exec.LookPath("evsum")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "events")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxCommand(t, 80, 24, fmt.Sprintf("'%s' < '%s'", evsum, fifo))
	w := openFIFO(t, fifo)
	// the names of the columns of the table's (last) header
	head := func(s string) string {
		hs := regexp.MustCompile(`(?m)^run_id .*$`).FindAllString(s, -1)
		if len(hs) == 0 {
			return ""
		}
		return strings.Join(regexp.MustCompile(`  +`).Split(strings.TrimSpace(hs[len(hs)-1]), -1), "|")
	}
	w.WriteString(runEvents("r_1", true, false))
	s, _ := pane.waitFor("r_1 running", func(s string) bool { return strings.Contains(s, "running 1") })
	first := head(s)
	now := time.Now().Unix()
	for i, end := range []string{"error", "killed", "cancelled", "timeout", "refused"} {
		run := fmt.Sprintf("r_%d", i+2)
		w.WriteString(runEvents(run, true, false))
		w.WriteString(fmt.Sprintf(`{"seq":9,"ts":%d,"run_id":"%s","agent_id":"","kind":"run_finished","payload":{"outcome":"%s","wall_seconds":3}}`+"\n", now, run, end))
		s, _ = pane.waitFor(run+" "+end, func(s string) bool { return regexp.MustCompile(`(?m)^` + run + ` +` + end).MatchString(s) })
		if h := head(s); h != first {
			t.Errorf("after %s %s the columns are %s, not %s:\n%s", run, end, h, first, s)
		}
		pane.checkWidth(s)
	}
	w.Close()
	pane.waitExit()
	s = pane.screen(true) // the header may have scrolled up
	if h := head(s); h != first {
		t.Errorf("the final table's columns are %s, not %s:\n%s", h, first, s)
	}
	if !strings.Contains(s, "…") {
		t.Errorf("the total's outcomes are not cut:\n%s", s)
	}
}

// importEvents writes the events evimport reads from the sessions under
// dir into the file events.
func importEvents(t *testing.T, dir, events string) {
	t.Helper()
	out, err := exec.Command("evimport", dir).Output()
	if err != nil {
		t.Fatalf("evimport %s: %v", dir, err)
	}
	if err := os.WriteFile(events, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
