package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree makes the folder an archive is made of: a tool, a man page, a
// README, in an order the walk must sort.
func tree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "evtools-1.2.3-os-arch")
	for name, mode := range map[string]os.FileMode{"bin/zz": 0o700, "bin/evsum.exe": 0o600, "share/man/man1/evsum.1": 0o600, "README.md": 0o664} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+name), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// An archived entry as the tests compare them.
type got struct {
	name    string
	mode    int64
	dir     bool
	mtime   time.Time
	content string
}

var want = []string{
	"evtools-1.2.3-os-arch/ 755 dir",
	"evtools-1.2.3-os-arch/README.md 644 content of README.md",
	"evtools-1.2.3-os-arch/bin/ 755 dir",
	"evtools-1.2.3-os-arch/bin/evsum.exe 755 content of bin/evsum.exe",
	"evtools-1.2.3-os-arch/bin/zz 755 content of bin/zz",
	"evtools-1.2.3-os-arch/share/ 755 dir",
	"evtools-1.2.3-os-arch/share/man/ 755 dir",
	"evtools-1.2.3-os-arch/share/man/man1/ 755 dir",
	"evtools-1.2.3-os-arch/share/man/man1/evsum.1 644 content of share/man/man1/evsum.1",
}

func check(t *testing.T, entries []got, mtime time.Time) {
	t.Helper()
	var lines []string
	for _, e := range entries {
		l := fmt.Sprintf("%s %o", e.name, e.mode)
		if e.dir {
			l += " dir"
		} else {
			l += " " + e.content
		}
		lines = append(lines, l)
		if !e.mtime.Equal(mtime) {
			t.Errorf("%s: time %v, want %v", e.name, e.mtime, mtime)
		}
	}
	if g, w := strings.Join(lines, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("archive holds\n%s\nwant\n%s", g, w)
	}
}

var mtime = time.Unix(1764547200, 0)

// A tar.gz holds the folder under its own name, sorted, executables 0755
// and the rest 0644, owned by root, every entry dated mtime.
func TestTarGz(t *testing.T) {
	dir := tree(t)
	var b bytes.Buffer
	if err := Archive(&b, "x.tar.gz", dir, mtime); err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var entries []got
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if h.Uname != "root" || h.Gname != "root" || h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: owned by %s(%d):%s(%d), want root", h.Name, h.Uname, h.Uid, h.Gname, h.Gid)
		}
		if isDir := h.Typeflag == tar.TypeDir; isDir != strings.HasSuffix(h.Name, "/") || (!isDir && h.Typeflag != tar.TypeReg) {
			t.Errorf("%s: type %c", h.Name, h.Typeflag)
		}
		entries = append(entries, got{h.Name, h.Mode, h.Typeflag == tar.TypeDir, h.ModTime, string(data)})
	}
	check(t, entries, mtime)
}

// A zip holds the same, with the same modes (Unix tools read them from
// the zip's external attributes).
func TestZip(t *testing.T) {
	dir := tree(t)
	var b bytes.Buffer
	if err := Archive(&b, "x.zip", dir, mtime); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var entries []got
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		entries = append(entries, got{f.Name, int64(f.Mode().Perm()), f.Mode().IsDir(), f.Modified, string(data)})
	}
	check(t, entries, mtime)
}

// The same folder gives the same bytes, whenever its files were written:
// one commit, one set of archives.
func TestArchivesAreReproducible(t *testing.T) {
	for _, name := range []string{"x.tar.gz", "x.zip"} {
		dir := tree(t)
		var one, two bytes.Buffer
		if err := Archive(&one, name, dir, mtime); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(dir, "README.md"), time.Now(), time.Now().Add(time.Hour))
		if err := Archive(&two, name, dir, mtime); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(one.Bytes(), two.Bytes()) {
			t.Errorf("%s: two archives of one folder differ", name)
		}
	}
}

// What an archive cannot carry the same way everywhere is refused, and so
// is a name that is not an archive's.
func TestArchiveRefuses(t *testing.T) {
	dir := tree(t)
	if err := Archive(io.Discard, "x.rar", dir, mtime); err == nil || !strings.Contains(err.Error(), "not .tar.gz or .zip") {
		t.Errorf("x.rar: %v", err)
	}
	if err := os.Symlink("README.md", filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	for _, name := range []string{"x.tar.gz", "x.zip"} {
		if err := Archive(io.Discard, name, dir, mtime); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s with a symlink: %v", name, err)
		}
	}
	if err := Archive(io.Discard, "x.tar.gz", filepath.Join(dir, "missing"), mtime); err == nil {
		t.Error("a missing folder archived")
	}
}

// SHA256SUMS is sha256sum's format with base names: `sha256sum -c` in the
// download folder checks it.
func TestSums(t *testing.T) {
	dir := t.TempDir()
	var wantSums strings.Builder
	var files []string
	for _, name := range []string{"b.zip", "a.tar.gz"} {
		data := []byte("archive " + name)
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		files = append(files, p)
		sum := sha256.Sum256(data)
		wantSums.WriteString(hex.EncodeToString(sum[:]) + "  " + name + "\n")
	}
	out := filepath.Join(dir, "SHA256SUMS")
	if err := run(append([]string{"sums", out}, files...)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if string(data) != wantSums.String() {
		t.Errorf("SHA256SUMS:\n%s\nwant\n%s", data, wantSums.String())
	}
	// A missing file leaves no SHA256SUMS that would pass for complete.
	if err := run([]string{"sums", out, filepath.Join(dir, "missing.zip")}); err == nil {
		t.Error("sums of a missing file: no error")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed sums left its file")
	}
}

// The command line: archive with its -mtime, and the mistakes.
func TestRun(t *testing.T) {
	dir := tree(t)
	out := filepath.Join(t.TempDir(), "x.tar.gz")
	if err := run([]string{"archive", "-mtime", "1764547200", out, dir}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(out)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	h, err := tar.NewReader(gz).Next()
	if err != nil || !h.ModTime.Equal(mtime) {
		t.Errorf("first entry %+v, %v; want dated %v", h, err, mtime)
	}
	for _, args := range [][]string{
		nil, {"archive", out}, {"archive", "-mtime", "x", out, dir}, {"sums", out},
		{"check"}, {"unpack", out}, {"archive", filepath.Join(dir, "x.rar"), dir},
	} {
		if err := run(args); err == nil {
			t.Errorf("dist %q: no error", args)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.rar")); err == nil {
		t.Error("a failed archive left its file")
	}
}

// check finds what a target's build would reject: a function defined only
// on Linux, used everywhere; a package with no file for the target; an
// int constant too big for 32 bits; a target Go does not build. A target
// that builds says nothing.
func TestCheck(t *testing.T) {
	dir := "testdata/mod"
	if errs := Check("go", dir, []string{"linux/amd64"}, "./..."); len(errs) != 0 {
		t.Errorf("linux/amd64: %q, want no error", errs)
	}
	errs := Check("go", dir, []string{"darwin/arm64", "linux/386", "plan10/amd64", "linux"}, "./...")
	wants := [][2]string{
		{"darwin/arm64: ", "undefined: linuxOnly"},
		{"darwin/arm64: fixture/onlylinux: ", "build constraints exclude all Go files"},
		{"darwin/arm64: ", "could not import fixture/onlylinux"},
		{"linux/386: ", "overflows"},
		{"plan10/amd64: not a target", ""},
		{"linux: not a target", ""},
	}
	if len(errs) != len(wants) {
		t.Fatalf("errors %q, want %d", errs, len(wants))
	}
	for _, w := range wants {
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, w[0]) && strings.Contains(e, w[1]) }) {
			t.Errorf("no error %q ... %q in %q", w[0], w[1], errs)
		}
	}
}
