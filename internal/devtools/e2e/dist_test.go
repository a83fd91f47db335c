package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/shell/tools"
)

// distTargets are the targets make dist builds, as scripts/dist.sh lists
// them.
func distTargets(t *testing.T) []string {
	t.Helper()
	script, err := os.ReadFile("../../../scripts/dist.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^TARGETS="([^"]+)"$`).FindSubmatch(script)
	if m == nil {
		t.Fatal(`scripts/dist.sh has no TARGETS="..." line`)
	}
	return strings.Fields(string(m[1]))
}

// Every target of make dist compiles: each package of the module and all
// it imports, the files its build constraints pick for the target,
// type-checked with the target's sizes (go run ./internal/devtools/dist check: a
// cross-compile from a cold cache takes about 40 s a target, this a few
// seconds for all; make dist builds them for real).
func TestEveryDistTargetCompiles(t *testing.T) {
	t.Parallel() // go and make at work, this process waiting
	targets := distTargets(t)
	for _, want := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "freebsd/amd64", "freebsd/arm64", "windows/amd64"} {
		if !slices.Contains(targets, want) {
			t.Errorf("make dist does not build %s (issue 12 asks for it)", want)
		}
	}
	start := time.Now()
	cmd := exec.Command("go", append([]string{"run", "./internal/devtools/dist", "check"}, targets...)...)
	cmd.Dir = "../../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a target does not compile: %v\n%s", err, out)
	}
	t.Logf("%d targets type-checked in %v", len(targets), time.Since(start).Round(time.Millisecond))
}

// make dist for this machine: the archive holds the tools, stamped with
// the version and commit, their man pages and completion scripts, README
// and LICENSE, and SHA256SUMS checks it.
func TestDistArchive(t *testing.T) {
	t.Parallel() // go and make at work, this process waiting
	host := runtime.GOOS + "/" + runtime.GOARCH
	if !slices.Contains(distTargets(t), host) {
		t.Skipf("make dist does not build for this machine (%s)", host)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: make dist stamps the commit from git")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make: make dist writes the man pages with make share")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "scripts/dist.sh")
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), "DIST_TARGETS="+host, "DIST_DIR="+out, "VERSION=9.8.7-test")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/dist.sh: %v\n%s", err, log)
	}
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))

	name := "evtools-9.8.7-test-" + runtime.GOOS + "-" + runtime.GOARCH
	archive := filepath.Join(out, name+".tar.gz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	sums, _ := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	sum := sha256.Sum256(data)
	if want := hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"; string(sums) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant\n%s", sums, want)
	}

	files := unpackTarGz(t, data, filepath.Join(out, "x"))
	var want []string
	for _, tool := range tools.All {
		want = append(want, "bin/"+tool.Name, "share/man/man1/"+tool.Name+".1",
			"share/bash-completion/completions/"+tool.Name, "share/zsh/site-functions/_"+tool.Name,
			"share/fish/vendor_completions.d/"+tool.Name+".fish")
	}
	// README.md and the man pages point to docs/ and examples/
	want = append(want, "share/man/man7/evtools.7", "README.md", "LICENSE", "docs/evsum.md", "docs/formats.md", "examples")
	for _, f := range want {
		if !slices.Contains(files, name+"/"+f) {
			t.Errorf("%s has no %s; it holds %q", filepath.Base(archive), f, files)
		}
	}
	dir := filepath.Join(out, "x", name)
	for _, tool := range tools.All {
		v, err := exec.Command(filepath.Join(dir, "bin", tool.Name), "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", tool.Name, err)
		}
		re := regexp.MustCompile(`^` + tool.Name + ` 9\.8\.7-test \(` + commit + `(-dirty)?\)\n$`)
		if !re.Match(v) {
			t.Errorf("%s --version printed %q, want %s", tool.Name, v, re)
		}
	}
	man, _ := os.ReadFile(filepath.Join(dir, "share/man/man1/evsum.1"))
	if !bytes.Contains(man, []byte(`"evtools 9.8.7-test"`)) {
		t.Errorf("evsum.1 does not name the release:\n%.300s", man)
	}
	readme, _ := os.ReadFile("../../../README.md")
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); !bytes.Equal(got, readme) {
		t.Error("the archive's README.md is not the repository's")
	}
}

// make build stamps the commit as make dist does, so that --version names
// it where Go's own VCS stamping is off.
func TestMakeBuildStampsCommit(t *testing.T) {
	t.Parallel() // go and make at work, this process waiting
	for _, need := range []string{"git", "make"} {
		if _, err := exec.LookPath(need); err != nil {
			t.Skipf("no %s: make build stamps the commit from git", need)
		}
	}
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := t.TempDir()
	cmd := exec.Command("make", "-s", "build", "BIN="+bin)
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	v, err := exec.Command(filepath.Join(bin, "evsum"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^evsum \S+ \(` + strings.TrimSpace(string(head)) + `(-dirty)?\)\n$`)
	if !re.Match(v) {
		t.Errorf("evsum --version of make build printed %q, want %s", v, re)
	}
}

// unpackTarGz unpacks a tar.gz into dir and returns its entries' names.
func unpackTarGz(t *testing.T, data []byte, dir string) []string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.TrimSuffix(h.Name, "/"))
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		b, _ := io.ReadAll(tr)
		if err := os.WriteFile(p, b, os.FileMode(h.Mode)); err != nil {
			t.Fatal(fmt.Errorf("unpacking %s: %w", h.Name, err))
		}
	}
}
