package cli

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A tool built from a git checkout says which commit it is: --version is
// the release and the first 12 hex digits of the revision.
func TestVersionNamesTheCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: a build is not stamped with its commit")
	}
	if err := exec.Command("git", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	bin := filepath.Join(t.TempDir(), "evversion")
	// -buildvcs=true: the environment may turn stamping off (GOFLAGS).
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./testdata/evversion")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Go stamps no revision in some checkouts (a git worktree, say): then
	// there is nothing for --version to show.
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	if !strings.Contains(string(info), "vcs.revision=") {
		t.Skip("go build stamped no revision in this checkout")
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("evversion --version: %v", err)
	}
	want := regexp.MustCompile(`^evversion ` + regexp.QuoteMeta(Version) + ` \([0-9a-f]{12}\)$`)
	if got := strings.TrimSuffix(string(out), "\n"); !want.MatchString(got) {
		t.Errorf("--version printed %q, want the release and the commit, %s", got, want)
	}
}
