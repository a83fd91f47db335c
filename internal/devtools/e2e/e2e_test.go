// Package e2e runs the pipelines of docs/cookbook.md and the behaviour the
// four tools share, with every tool built into the test binary.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/scripttest"
	"github.com/evtools/evtools/internal/shell/tools"
)

func TestMain(m *testing.M) { scripttest.RunMain(m, nil) }

// TestCookbook runs the recipes of docs/cookbook.md on the shipped examples.
func TestCookbook(t *testing.T) { scripttest.Run(t, "testdata") }

// A reader that goes away (| head -1) ends every tool quietly with status
// 0, as a real process: not killed by SIGPIPE (141), no error text.
func TestClosedStdoutEndsQuietly(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 50000; i++ {
		in.WriteString(`{"seq":1,"ts":1,"run_id":"r","agent_id":"a","kind":"tool_call","type":"tool_call","payload":{"tool":"bash"}}` + "\n")
	}
	// What a tool needs besides stdin to read it all.
	needs := map[string][]string{"evfilter": {"true"}, "evsum": {"--by", "none"}}
	for _, tool := range tools.All {
		args := append([]string{tool.Name}, needs[tool.Name]...)
		bin, err := exec.LookPath(args[0])
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(bin, args[1:]...)
		// evimport reads a session of its own on stdin, and no one's
		// sessions from HOME
		cmd.Env = append(agentless(os.Environ()), "HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader(in.String())
		if tool.Name == "evimport" {
			cmd.Stdin = strings.NewReader(claudeLines(1000))
		}
		cmd.Stdout = w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		w.Close()
		if err != nil || stderr.Len() != 0 {
			t.Errorf("%s with stdout closed: %v, stderr %q; want a quiet exit 0", args[0], err, stderr.String())
		}
	}
}

// claudeLines is a Claude Code session of n prompts.
func claudeLines(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"user","sessionId":"s1","cwd":"/src/app","uuid":"u%d","timestamp":"2026-03-03T16:40:%02d.000Z","message":{"role":"user","content":"prompt %d"}}`+"\n", i, i%60, i)
	}
	return b.String()
}
