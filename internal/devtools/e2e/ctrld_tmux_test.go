//go:build unix

package e2e

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Started on an empty terminal, a tool says once, on one line of an
// 80-column pane, that it reads the terminal; one Ctrl-D ends the input,
// as it ends cat's. A second read after the terminal's end of file waits
// for another Ctrl-D, which a person takes for a hung tool.
func TestTmuxCtrlDOnce(t *testing.T) {
	for _, tool := range []string{"evsum", "evfilter tools", "evcursor", "ev2otlp", "zot2gp"} {
		t.Run(strings.Fields(tool)[0], func(t *testing.T) {
			t.Parallel()
			name := strings.Fields(tool)[0]
			path, err := exec.LookPath(name)
			if err != nil {
				t.Fatal(err)
			}
			cmd := fmt.Sprintf("'%s'%s", path, strings.TrimPrefix(tool, name))
			pane := startTmuxCommand(t, 80, 24, cmd)
			notice := regexp.MustCompile(`(?m)^` + name + `: reading .*Ctrl-D.*$`)
			pane.waitFor("the notice", notice.MatchString)
			pane.tmux("send-keys", "C-d")
			s := pane.waitExit()
			if lines := notice.FindAllString(s, -1); len(lines) != 1 {
				t.Errorf("want the notice once, on one line:\n%s", s)
			}
			pane.checkWidth(pane.tmux("capture-pane", "-p")) // wrapped lines not joined
		})
	}
}
