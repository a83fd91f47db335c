package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// On a real terminal, zot2gp shows the uname transcript for people by
// default: the command the tool ran, the model's 41 text pieces as one
// sentence, the cost, and nothing wider than the pane; --format envelope
// forces JSON Lines there.
func TestTmuxPrettyByDefault(t *testing.T) {
	dir, _ := filepath.Abs("../../../examples")
	p := startTmuxCommand(t, 80, 30, fmt.Sprintf("cd %q && zot2gp zot/uname.jsonl", dir))
	s := p.waitExit()
	for _, want := range []string{"tool   bash  uname -a", "ok     bash", "$0.0004", "run    ok"} {
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
	p.checkWidth(s)

	p = startTmuxCommand(t, 80, 30, fmt.Sprintf("cd %q && zot2gp --format envelope zot/auth-401.jsonl | cut -c1-60", dir))
	s = p.waitExit()
	if !strings.Contains(s, `{"seq":`) || strings.Contains(s, "ERROR") {
		t.Errorf("--format envelope on a terminal: no JSON:\n%s", s)
	}
}

// A live feed through a FIFO: each event is on the screen once written,
// while the next one waits for it and the input stays open; text pieces
// appear as they are written, on the line they continue, up to their
// last space: the word after it waits for the next piece or event, to be
// placed whole.
func TestTmuxPrettyLiveFeed(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "feed")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p := startTmux(t, 100, 20, fmt.Sprintf("evfilter true %q", fifo))
	w := openFIFO(t, fifo)
	steps := []struct{ line, want string }{
		{`{"seq":1,"ts":1793524443.2,"run_id":"r_1","agent_id":"coder","kind":"tool_call","payload":{"tool":"bash","args":{"command":"make test"}}}`, "tool   bash  make test"},
		{`{"seq":2,"ts":1793524444.2,"run_id":"r_1","agent_id":"coder","kind":"message_update","payload":{"type":"text_delta","delta":"All tests "}}`, "All tests"},
		{`{"seq":3,"ts":1793524444.3,"run_id":"r_1","agent_id":"coder","kind":"message_update","payload":{"type":"text_delta","delta":"pass. Ship"}}`, "All tests pass."},
		{`{"seq":4,"ts":1793524445.2,"run_id":"r_1","agent_id":"coder","kind":"error","payload":{"message":"disk full"}}`, "ERROR  disk full"},
	}
	for _, st := range steps {
		if _, err := w.WriteString(st.line + "\n"); err != nil {
			t.Fatal(err)
		}
		s, took := p.waitFor(fmt.Sprintf("%q", st.want), func(s string) bool { return strings.Contains(s, st.want) })
		t.Logf("%q on the screen after %v", st.want, took.Round(time.Millisecond))
		p.checkWidth(s)
		if strings.Contains(st.want, "pass.") && strings.Contains(s, "Ship") {
			t.Errorf("a word that may go on in the next piece is drawn:\n%s", s)
		}
		if strings.Contains(st.want, "ERROR") && !strings.Contains(s, "All tests pass. Ship") {
			t.Errorf("the word held is not drawn when the next event comes:\n%s", s)
		}
	}
}
