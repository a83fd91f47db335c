//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// A tmuxPane is a command running in a terminal of its own: a tmux server
// on a socket of the test's, with one session of a fixed size, no status
// line, and the pane kept when the command ends so that its last screen
// can still be read. Tests read the screen as a person would see it.
type tmuxPane struct {
	t      *testing.T
	socket string
	width  int
}

var tmuxServers atomic.Int64

// paneWait is how long a test waits for a pane to show what it expects.
// It measures no speed: it only ends a wait that would never end (a tool
// that hangs, a sequence that swallows the rest). Under go test -race on
// a busy 2-core machine, evimport | evsum has taken over 10 s to end.
const paneWait = time.Minute

// startTmux runs command (a shell command line) in a width×height pane.
// Without tmux the test is skipped, but not in CI (CI set), where .ci/run
// installs it: there a missing tmux fails the test.
func startTmux(t *testing.T, width, height int, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("tmux is not installed (CI installs it: .ci/run)")
		}
		t.Fatal("tmux is not installed, and CI is set: .ci/run should have installed it")
	}
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	err := os.WriteFile(conf, []byte("set -g status off\nset -g remain-on-exit on\nset -g history-limit 1000\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p := &tmuxPane{t: t, width: width, socket: fmt.Sprintf("evtools-test-%d-%d", os.Getpid(), tmuxServers.Add(1))}
	p.tmux("-f", conf, "new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), command)
	// kill-server leaves the socket file behind
	socket := strings.TrimSpace(p.tmux("display-message", "-p", "#{socket_path}"))
	t.Cleanup(func() {
		exec.Command("tmux", "-L", p.socket, "kill-server").Run()
		os.Remove(socket)
	})
	return p
}

// startTmuxCommand runs command in a width×height pane as a shell would
// at a prompt, then writes its exit status on a line of its own, "exit 0"
// (see waitExit). The shell stays after that line: tmux 3.3 throws away
// what a pane's command wrote but tmux had not read yet when the command
// ended, which on a busy machine can be all of it.
func startTmuxCommand(t *testing.T, width, height int, command string) *tmuxPane {
	t.Helper()
	return startTmux(t, width, height, command+`; echo "exit $?"; exec sleep 600`)
}

// exitLine is the line startTmuxCommand writes after the command.
var exitLine = regexp.MustCompile(`(?:^|\n)exit \d+\n$`)

// waitExit waits until the command of startTmuxCommand has ended and tmux
// has read all it wrote, which the line of its exit status, the last one
// on the screen, says; it returns the screen.
func (p *tmuxPane) waitExit() string {
	p.t.Helper()
	s, _ := p.waitFor("the command's exit status", exitLine.MatchString)
	return s
}

// tmux runs a tmux command on the pane's server.
func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...)
	// not the tmux the tests may run in; the command's terminal decides
	// its size, not the environment
	cmd.Env = append(os.Environ(), "TMUX=", "COLUMNS=", "LINES=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the pane shows, wrapped lines joined (so a line wider
// than the pane shows as one), trailing blanks dropped; with history, the
// lines scrolled off the top come first.
func (p *tmuxPane) screen(history bool) string {
	p.t.Helper()
	args := []string{"capture-pane", "-p", "-J"}
	if history {
		args = append(args, "-S", "-")
	}
	var lines []string
	for _, l := range strings.Split(p.tmux(args...), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// waitFor polls the screen until ok holds, and fails the test after
// paneWait; it returns the screen and how long it took.
func (p *tmuxPane) waitFor(what string, ok func(screen string) bool) (string, time.Duration) {
	p.t.Helper()
	start := time.Now()
	for {
		s := p.screen(false)
		if ok(s) {
			return s, time.Since(start)
		}
		if time.Since(start) > paneWait {
			p.t.Fatalf("after %v the screen does not show %s:\n%s", paneWait, what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkWidth fails the test for a line of text wider than the pane.
func (p *tmuxPane) checkWidth(text string) {
	p.t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > p.width {
			p.t.Errorf("a line %d wide in a %d-column pane: %q", n, p.width, l)
		}
	}
}

// runEvents are the events of a run started now; with end, its end too
// (ok, after 1m52s).
func runEvents(run string, start, end bool) string {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	ev := func(seq int, kind, payload string) string {
		return fmt.Sprintf(`{"seq":%d,"ts":%s,"run_id":"%s","agent_id":"","kind":"%s","payload":%s}`+"\n", seq, ts, run, kind, payload)
	}
	var s string
	if start {
		s += ev(1, "user_message", `{"text":"hi"}`) + ev(2, "model_result", `{"tokens":1234567,"cost_usd":0.5,"latency_ms":1500}`)
	}
	if end {
		s += ev(3, "assistant_message", `{"text":"done"}`) + ev(4, "run_finished", `{"outcome":"ok","wall_seconds":112.35}`)
	}
	return s
}

// openFIFO makes a FIFO and opens it for writing once the pane's command
// has opened it for reading.
func openFIFO(t *testing.T, path string) *os.File {
	t.Helper()
	got := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	select {
	case f := <-got:
		if f == nil {
			t.FailNow()
		}
		t.Cleanup(func() { f.Close() })
		return f
	case <-time.After(paneWait):
		// unblock the goroutine: a reader of our own
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close()
		}
		t.Fatalf("the command in the pane did not open the FIFO in %v", paneWait)
		return nil
	}
}

// evsum on a terminal, reading a FIFO that events come through: the table
// is drawn while the input is open and redrawn in place as runs start and
// end (a run in progress says running), a bad line's message goes above
// it, the final table stays on the screen when the input ends, and
// nothing is wider than the 80-column pane. The frames leave nothing
// behind, on the screen or in the scrollback: one header in all.
func TestTmuxEvsumLiveTable(t *testing.T) {
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
	send := func(s string) {
		t.Helper()
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	headers := func(s string) int { return len(regexp.MustCompile(`(?m)^run_id `).FindAllString(s, -1)) }
	row := func(s, run, outcome string) bool {
		return regexp.MustCompile(`(?m)^` + run + ` +` + outcome + ` `).MatchString(s)
	}

	send(runEvents("r_1", true, false))
	s, took := pane.waitFor("r_1 running", func(s string) bool { return row(s, "r_1", "running 1") && row(s, "total", "running 1") })
	t.Logf("first table %v after the first events", took)
	if strings.Contains(s, "exit") {
		t.Fatalf("evsum ended while its input is open:\n%s", s)
	}

	send(runEvents("r_1", false, true) + runEvents("r_2", true, false))
	s, took = pane.waitFor("r_1 ok, r_2 running", func(s string) bool {
		return row(s, "r_1", "ok 1") && row(s, "r_2", "running 1") && row(s, "total", "ok 1, running 1")
	})
	t.Logf("redrawn %v after more events", took)
	if headers(s) != 1 || !strings.Contains(s, "1m52s") || !strings.Contains(s, "1.2M") {
		t.Errorf("want one table, with r_1's wall time 1m52s and 1.2M tokens:\n%s", s)
	}
	pane.checkWidth(s)

	// A bad line: its message above the table, the table whole under it.
	send("not an event\n")
	s, _ = pane.waitFor("the bad line's message", func(s string) bool { return strings.Contains(s, "evsum: <stdin>:7: ") })
	if i, j := strings.Index(s, "evsum: <stdin>:7: "), strings.Index(s, "run_id "); j < i || headers(s) != 1 || !row(s, "total", "ok 1, running 1") {
		t.Errorf("want the message above one whole table:\n%s", s)
	}

	send(runEvents("r_2", false, true))
	w.Close()
	s = pane.waitExit()
	if !strings.HasSuffix(s, "\nexit 2\n") { // the bad line
		t.Errorf("want exit status 2 (a bad line):\n%s", s)
	}
	if !row(s, "r_1", "ok 1") || !row(s, "r_2", "ok 1") || !row(s, "total", "ok 2") {
		t.Errorf("the final table is not on the screen:\n%s", s)
	}
	all := pane.screen(true)
	if headers(all) != 1 || strings.Count(all, "evsum: <stdin>:7:") != 1 {
		t.Errorf("the screen and scrollback hold more than one table or message:\n%s", all)
	}
	pane.checkWidth(all)
}

// In a pane shorter than the table a frame keeps to the screen: the
// oldest rows give way to "… N more" and the header stays in sight; the
// final table is printed whole.
func TestTmuxEvsumLiveTableShortPane(t *testing.T) {
	evsum, err := exec.LookPath("evsum")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "events")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxCommand(t, 60, 8, fmt.Sprintf("'%s' < '%s'", evsum, fifo))
	w := openFIFO(t, fifo)
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		b.WriteString(runEvents(fmt.Sprintf("r_%02d", i), true, i < 10))
	}
	w.WriteString(b.String())
	s, _ := pane.waitFor("the newest run", func(s string) bool { return strings.Contains(s, "r_10 ") })
	if !strings.HasPrefix(s, "run_id ") || !strings.Contains(s, "\n… 6 more\n") || strings.Count(s, "\n") > 7 {
		t.Errorf("want the header, … 6 more, the newest runs and the total in 7 lines:\n%s", s)
	}
	pane.checkWidth(s)
	w.Close()
	if s := pane.waitExit(); !strings.HasSuffix(s, "\nexit 0\n") {
		t.Errorf("want exit status 0:\n%s", s)
	}
	all := pane.screen(true)
	for i := 1; i <= 10; i++ {
		if strings.Count(all, fmt.Sprintf("\nr_%02d ", i)) != 1 {
			t.Errorf("r_%02d is not in the final table once:\n%s", i, all)
		}
	}
	if !regexp.MustCompile(`(?m)^total +ok 9, running 1 `).MatchString(all) {
		t.Errorf("no total row with 9 runs ok and 1 running:\n%s", all)
	}
	pane.checkWidth(all)
}
