package corpus

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree reads every file under dir, by its path from dir.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestAgentsDeterministic(t *testing.T) {
	for _, kind := range AgentKinds {
		t.Run(kind, func(t *testing.T) {
			a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
			for _, run := range []struct {
				dir  string
				seed uint64
			}{{a, 5}, {b, 5}, {c, 6}} {
				if err := Agents(run.dir, kind, 300<<10, run.seed); err != nil {
					t.Fatal(err)
				}
			}
			ta, tb, tc := tree(t, a), tree(t, b), tree(t, c)
			if len(ta) != len(tb) {
				t.Fatalf("two runs with the same seed wrote %d and %d files", len(ta), len(tb))
			}
			size := 0
			for name, data := range ta {
				if !bytes.Equal(data, tb[name]) {
					t.Fatalf("%s differs between two runs with the same seed", name)
				}
				size += len(data)
			}
			if size < 300<<10 {
				t.Fatalf("%d bytes written, want at least %d", size, 300<<10)
			}
			same := 0
			for name := range ta {
				if kind == "opencode" && !bytes.Equal(ta[name], tc[name]) {
					continue // one database of one name: its content differs
				}
				if _, ok := tc[name]; ok {
					same++
				}
			}
			if same == len(ta) {
				t.Fatal("another seed gives the same files")
			}
		})
	}
}

// TestAgentsLayout checks that each agent's files are where the agent
// keeps them, as lines of JSON objects.
func TestAgentsLayout(t *testing.T) {
	prefix := map[string]string{"claude": ".claude/projects/", "codex": ".codex/sessions/", "pi": ".pi/agent/sessions/", "gemini": ".gemini/tmp/"}
	for _, kind := range AgentKinds {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			if err := Agents(dir, kind, 1<<20, 3); err != nil {
				t.Fatal(err)
			}
			for name, data := range tree(t, dir) {
				if kind == "opencode" {
					// one SQLite database (evimport's tests read it)
					if name != ".local/share/opencode/opencode.db" || !strings.HasPrefix(string(data), "SQLite format 3\x00") {
						t.Errorf("%s: not opencode's database", name)
					}
					continue
				}
				if !strings.HasPrefix(name, prefix[kind]) || !strings.HasSuffix(name, ".jsonl") {
					t.Errorf("%s: not where %s keeps its sessions", name, kind)
				}
				for i, line := range splitLines(data) {
					var m map[string]any
					if err := json.Unmarshal(line, &m); err != nil {
						t.Fatalf("%s:%d: %v: %.200s", name, i+1, err, line)
					}
				}
			}
		})
	}
	if err := Agents(t.TempDir(), "cursor", 1, 1); err == nil {
		t.Error("an unknown agent is no error")
	}
}
