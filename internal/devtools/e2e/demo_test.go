package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/tools"
)

// make demo is what a newcomer runs first: each tool has a demo script of
// its own (scripts/demo/NN-TOOL.sh), and each runs to its end on the
// shipped examples. evimport's shows every agent's example session.
func TestDemo(t *testing.T) {
	scripts, err := filepath.Glob("../../../scripts/demo/[0-9]*.sh")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no demo scripts: %v", err)
	}
	byTool := map[string]string{}
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s), ".sh")
		if _, tool, ok := strings.Cut(name, "-"); ok {
			byTool[tool] = s
		}
	}
	for _, tool := range tools.All {
		if byTool[tool.Name] == "" {
			t.Errorf("make demo does not show %s: no scripts/demo/NN-%s.sh", tool.Name, tool.Name)
		}
	}
	for _, s := range scripts {
		cmd := exec.Command("bash", s)
		cmd.Env = append(agentless(os.Environ()), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", s, err, out)
			continue
		}
		if filepath.Base(s) != filepath.Base(byTool["evimport"]) {
			continue
		}
		for _, source := range []string{"claude", "codex", "pi", "gemini", "copilot"} {
			if !strings.Contains(string(out), "\n"+source+" ") {
				t.Errorf("%s shows no row for %s:\n%s", s, source, out)
			}
		}
	}
}
