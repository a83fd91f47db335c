package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

// prettyPane runs a shell command in a new tmux pane of the given size,
// with the tools on PATH, and returns a function that reads the screen.
func prettyPane(t *testing.T, width, height int, dir, command string) func() []string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("tmux is not installed (.ci/run installs it)")
		}
		t.Fatal("tmux is not installed")
	}
	sock := fmt.Sprintf("evtools-pretty-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	// A shell script, so that the pane's environment is exactly this.
	script := filepath.Join(t.TempDir(), "run.sh")
	env := fmt.Sprintf("export PATH=%q TZ=UTC TERM=xterm-256color LANG=C.UTF-8\nunset NO_COLOR COLUMNS LINES\ncd %q\n", os.Getenv("PATH"), dir)
	if err := os.WriteFile(script, []byte(env+command+"\nsleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := tmux("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "bash "+script); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { tmux("kill-server") })
	return func() []string {
		out, err := tmux("capture-pane", "-p", "-t", "0")
		if err != nil {
			t.Fatalf("capture-pane: %v: %s", err, out)
		}
		return strings.Split(strings.TrimRight(out, "\n"), "\n")
	}
}

// waitScreen reads the screen until ok holds, or fails after the deadline.
func waitScreen(t *testing.T, screen func() []string, within time.Duration, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := strings.Join(screen(), "\n")
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the screen shows no %s:\n%s", within, what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func noWiderThan(t *testing.T, screen string, width int) {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if w := runewidth.StringWidth(l); w > width {
			t.Errorf("a line is %d wide in a %d-column pane: %q", w, width, l)
		}
	}
}

// On a real terminal, zot2gp shows the uname transcript for people by
// default: the command the tool ran, the model's 41 text pieces as one
// sentence, the cost, and nothing wider than the pane.
func TestPrettyOnATerminal(t *testing.T) {
	dir, _ := filepath.Abs("../../examples")
	screen := prettyPane(t, 80, 30, dir, "zot2gp zot/uname.jsonl; echo END")
	s := waitScreen(t, screen, 10*time.Second, "END", func(s string) bool { return strings.Contains(s, "END") })
	for _, want := range []string{"tool   bash  uname -a", "ok     bash", "$0.00037", "run    ok"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	// The sentence, joined from its pieces and wrapped at word ends.
	joined := strings.Join(strings.Fields(s), " ")
	if !strings.Contains(joined, "This system is running FreeBSD 15.0-RELEASE-p10, the security patch level 10 build of the FreeBSD 15.0 kernel with the GENERIC configuration, on the amd64 architecture.") {
		t.Errorf("the assistant's sentence is not one piece of text:\n%s", s)
	}
	if strings.Contains(s, `{"seq"`) {
		t.Errorf("JSON on a terminal without --format:\n%s", s)
	}
	noWiderThan(t, s, 80)

	// --format envelope forces JSON Lines on the terminal.
	screen = prettyPane(t, 80, 30, dir, "zot2gp --format envelope zot/auth-401.jsonl | cut -c1-60; echo END")
	s = waitScreen(t, screen, 10*time.Second, "END", func(s string) bool { return strings.Contains(s, "END") })
	if !strings.Contains(s, `{"seq":1,`) {
		t.Errorf("--format envelope on a terminal: no JSON:\n%s", s)
	}
}

// A live feed through a FIFO: each event is on the screen within half a
// second of its write, without waiting for the next one or the end; text
// pieces appear as they are written.
func TestPrettyLiveFeed(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "feed")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	screen := prettyPane(t, 100, 20, dir, "evfilter true feed")
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	steps := []struct{ line, want string }{
		{`{"seq":1,"ts":1793524443.2,"run_id":"r_1","agent_id":"coder","kind":"tool_call","payload":{"tool":"bash","args":{"command":"make test"}}}`, "tool   bash  make test"},
		{`{"seq":2,"ts":1793524444.2,"run_id":"r_1","agent_id":"coder","kind":"message_update","payload":{"type":"text_delta","delta":"All tests"}}`, "All tests"},
		{`{"seq":3,"ts":1793524444.3,"run_id":"r_1","agent_id":"coder","kind":"message_update","payload":{"type":"text_delta","delta":" pass."}}`, "All tests pass."},
		{`{"seq":4,"ts":1793524445.2,"run_id":"r_1","agent_id":"coder","kind":"error","payload":{"message":"disk full"}}`, "ERROR  disk full"},
	}
	for _, st := range steps {
		start := time.Now()
		if _, err := w.WriteString(st.line + "\n"); err != nil {
			t.Fatal(err)
		}
		waitScreen(t, screen, 500*time.Millisecond, fmt.Sprintf("%q", st.want), func(s string) bool { return strings.Contains(s, st.want) })
		t.Logf("%q on the screen after %v", st.want, time.Since(start).Round(time.Millisecond))
	}
}
