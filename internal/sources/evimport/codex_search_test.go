package evimport_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evimport -F on a Codex rollout that ends with a web search whose end is
// not written yet: the search waits for it, and is written once, with
// the end's id, not named by its place first and by its id then.
func TestFollowCodexWebSearch(t *testing.T) {
	const name = "rollout-2026-03-08T09-00-00-019cc1a0-1b2c-7d3e-8f40-5a6b7c8d9e01.jsonl"
	lines := sessionLines(t, "codex-web-search.txtar", "home/.codex/sessions/2026/03/08/"+name)
	dir := t.TempDir()
	file := filepath.Join(dir, name)
	os.WriteFile(file, []byte(strings.Join(lines[:6], "")), 0o644) // up to the first search
	f := startFollow(t, file)
	f.wait("the prompt", f.has(`"kind":"user_message"`))
	more, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	more.WriteString(strings.Join(lines[6:], ""))
	more.Close()
	f.wait("the second prompt", f.has(`"text":"and in 1.27?"`))
	all := strings.Join(f.got, "\n")
	if strings.Contains(all, `"id":"019cc1a0-1b2c-7d3e-8f40-5a6b7c8d9e01:6"`) {
		t.Errorf("the search was named by its place before its end came:\n%s", all)
	}
	if n := strings.Count(all, `"kind":"tool_call","payload":{"step":1,"id":"ws_0a1b2c3d4e5f"`); n != 1 {
		t.Errorf("the search written %d times, want once:\n%s", n, all)
	}
	if e := f.stderr.String(); e != "" {
		t.Errorf("stderr: %s", e)
	}
}
