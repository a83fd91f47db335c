package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyTree copies the folder src to dst, as rsync -a or cp -r would.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -r %s %s: %v\n%s", src, dst, err, out)
	}
}

func tool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// A Claude Code session whose log the agent deleted is still found by a
// search of the archive, a word of a tool's output, with the command
// that reopens the session.
func TestArchiveSearchAfterTheLogIsGone(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("EVTOOLS_CACHE_DIR", filepath.Join(dir, "cache")) // evsum's, not the user's
	logs, arch := filepath.Join(dir, "logs"), filepath.Join(dir, "archive")
	copyTree(t, "../../../examples/agents", logs)
	tool(t, "evimport", "--archive="+arch, "--settle", "0", logs)
	if err := os.RemoveAll(filepath.Join(logs, "claude")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("evimport", "--archive="+arch, "--settle", "0", logs)
	stderr, _ := cmd.CombinedOutput()
	if !strings.Contains(string(stderr), "kept only in the archive") {
		t.Errorf("the sync after the logs went does not say what the archive alone keeps: %q", stderr)
	}
	out := tool(t, "evfilter", "--grep", "cart.json", "--format", "pretty", arch)
	for _, want := range []string{"cart.json", "claude --resume 5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90"} {
		if !strings.Contains(out, want) {
			t.Errorf("the search of the archive does not show %q:\n%s", want, out)
		}
	}
	// in a pipe, the matching events: a tool_result among them
	if events := tool(t, "evfilter", "--grep", "cart.json", arch); !strings.Contains(events, `"kind":"tool_result"`) {
		t.Errorf("no tool_result among the events found:\n%s", events)
	}
}

// The archives of two machines copied into one folder are read together,
// each machine once, and one of them copied in twice is still counted
// once: evsum --by host gives each machine's own report.
func TestArchiveCopiesCountedOnce(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("EVTOOLS_CACHE_DIR", filepath.Join(dir, "cache")) // evsum's, not the user's
	a, b := filepath.Join(dir, "laptop-archive"), filepath.Join(dir, "desk-archive")
	tool(t, "evimport", "--archive="+a, "--host", "laptop", "--settle", "0", "../../../examples/agents/claude")
	tool(t, "evimport", "--archive="+b, "--host", "desk", "--settle", "0", "../../../examples/agents/codex", "../../../examples/agents/pi")
	all := filepath.Join(dir, "all")
	os.MkdirAll(filepath.Join(all, "again"), 0o755)
	copyTree(t, filepath.Join(a, "laptop"), filepath.Join(all, "laptop"))
	copyTree(t, filepath.Join(b, "desk"), filepath.Join(all, "desk"))
	copyTree(t, filepath.Join(a, "laptop"), filepath.Join(all, "again", "laptop"))

	got := tool(t, "evsum", "--by", "host", "--format", "jsonl", all)
	records := strings.Split(strings.TrimSpace(got), "\n")
	if len(records) != 3 { // two hosts, the total
		t.Fatalf("evsum --by host over the copies:\n%s", got)
	}
	for host, folder := range map[string]string{"laptop": a, "desk": b} {
		alone := strings.Split(strings.TrimSpace(tool(t, "evsum", "--by", "host", "--format", "jsonl", folder)), "\n")[0]
		if !slices.Contains(records, alone) {
			t.Errorf("%s: read alone:\n%s\nnot among the records of all:\n%s", host, alone, got)
		}
	}
}
