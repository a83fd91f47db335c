//go:build unix

package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evfilter --grep on a real terminal, over evimport's events of the
// Claude Code fixture: the hits of each session under its
// agent and project, the command that reopens it, the match's line cut
// to the pane around the match, kept as tmux captures at 60, 80 and 120
// columns (testdata/tmux/grep-*.txt; -run TestTmuxGrep -update rewrites
// them: read them before committing).
func TestTmuxGrep(t *testing.T) {
	home := t.TempDir()
	for _, f := range []string{"claude"} {
		unpackHome(t, "../../sources/evimport/testdata/"+f+".txtar", filepath.Join(home, f))
	}
	update := flag.Lookup("update") != nil && flag.Lookup("update").Value.String() == "true"
	for _, width := range []int{60, 80, 120} {
		t.Run(fmt.Sprintf("w%d", width), func(t *testing.T) {
			cmd := fmt.Sprintf("cd %q && TZ=UTC evimport claude/home 2>/dev/null | evfilter -i --grep 'test'", home)
			p := startTmuxCommand(t, width, 150, cmd)
			p.waitExit()
			s := p.screen(true)
			s = s[:strings.LastIndex(s, "\nexit ")+1]
			p.checkWidth(s)
			for _, want := range []string{"claude --resume ", "── claude · ", "thinking "} {
				if !strings.Contains(s, want) {
					t.Errorf("the screen lacks %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, `{"seq"`) {
				t.Errorf("JSON on a terminal:\n%s", s)
			}
			golden := filepath.Join("testdata", "tmux", fmt.Sprintf("grep.w%d.txt", width))
			if update {
				if err := os.WriteFile(golden, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestTmuxGrep -update writes it)", err)
			}
			if s != string(want) {
				t.Errorf("the screen differs from %s (-update rewrites it); now:\n%s", golden, s)
			}
		})
	}
}
