// Command dist writes what make dist (scripts/dist.sh) ships: a folder as a
// release archive, and the SHA256SUMS of the archives. It is Go rather
// than tar, zip and sha256sum so that make dist works wherever Go does (no
// zip on a fresh Debian, no GNU tar options on macOS), and so that an
// archive's bytes depend only on what is in it: entries sorted, owned by
// root, every time the commit's.
//
//	go run ./internal/devtools/dist archive [-mtime UNIX] OUT.tar.gz|OUT.zip DIR
//	go run ./internal/devtools/dist sums OUT FILE...
//	go run ./internal/devtools/dist check GOOS/GOARCH...
//
// check type-checks the module's packages as each target builds them (see
// Check): what make test runs to know that every target of make dist
// still compiles, in seconds instead of a cold cross-compile's minutes.
//
// An archive holds DIR's files under DIR's own name (evtools-1.0-linux-amd64/bin/evsum):
// executables as 0755, everything else as 0644.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: dist archive [-mtime UNIX] OUT DIR | dist sums OUT FILE [FILE ...] | dist check GOOS/GOARCH [GOOS/GOARCH ...]")
	}
	switch args[0] {
	case "archive":
		fl := flag.NewFlagSet("archive", flag.ContinueOnError)
		fl.SetOutput(io.Discard) // the error says it
		mtime := fl.Int64("mtime", 0, "the time of every entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
		if err := fl.Parse(args[1:]); err != nil {
			return err
		}
		if fl.NArg() != 2 {
			return errors.New("usage: dist archive [-mtime UNIX] OUT.tar.gz|OUT.zip DIR")
		}
		return writeFile(fl.Arg(0), func(w io.Writer) error {
			return Archive(w, fl.Arg(0), fl.Arg(1), time.Unix(*mtime, 0))
		})
	case "sums":
		if len(args) < 3 {
			return errors.New("usage: dist sums OUT FILE [FILE ...]")
		}
		return writeFile(args[1], func(w io.Writer) error { return Sums(w, args[2:]) })
	case "check":
		if len(args) < 2 {
			return errors.New("usage: dist check GOOS/GOARCH [GOOS/GOARCH ...]")
		}
		goCmd := os.Getenv("GO")
		if goCmd == "" {
			goCmd = "go"
		}
		if errs := Check(goCmd, ".", args[1:], "./..."); len(errs) > 0 {
			return errors.New(strings.Join(errs, "\n"))
		}
		return nil
	}
	return fmt.Errorf("unknown command %q (archive, sums, check)", args[0])
}

// writeFile writes out through fill, and leaves no partial file behind.
func writeFile(out string, fill func(io.Writer) error) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		os.Remove(out)
		return err
	}
	return f.Close()
}

// entry is a file of the archived folder.
type entry struct {
	name string // slash path, under the folder's name
	path string // on disk
	mode int64  // 0755 or 0644
	dir  bool
}

// walk lists dir's folders and regular files, sorted, under dir's name.
// Anything else (a symlink, a FIFO) is an error: an archive would carry it
// differently on each system.
func walk(dir string) ([]entry, error) {
	root := filepath.Base(filepath.Clean(dir))
	var out []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(root, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			out = append(out, entry{name: name + "/", path: p, mode: 0o755, dir: true})
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			mode := int64(0o644)
			if fi.Mode()&0o111 != 0 || strings.HasSuffix(name, ".exe") {
				mode = 0o755
			}
			out = append(out, entry{name: name, path: p, mode: mode})
		default:
			return fmt.Errorf("%s: not a regular file or folder", p)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, err
}

// Archive writes dir as a tar.gz or zip archive, by the extension of name,
// with every entry's time mtime.
func Archive(w io.Writer, name, dir string, mtime time.Time) error {
	entries, err := walk(dir)
	if err != nil {
		return err
	}
	switch {
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		return writeTarGz(w, entries, mtime)
	case strings.HasSuffix(name, ".zip"):
		return writeZip(w, entries, mtime)
	}
	return fmt.Errorf("%s: not .tar.gz or .zip", name)
}

func writeTarGz(w io.Writer, entries []entry, mtime time.Time) error {
	gz, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, ModTime: mtime, Uname: "root", Gname: "root"}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
		}
		if err := copyEntry(e, func(size int64) (io.Writer, error) {
			h.Size = size
			return tw, tw.WriteHeader(h)
		}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime.UTC()}
		if e.dir {
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | fs.FileMode(e.mode))
		} else {
			h.SetMode(fs.FileMode(e.mode))
		}
		if err := copyEntry(e, func(int64) (io.Writer, error) { return zw.CreateHeader(h) }); err != nil {
			return err
		}
	}
	return zw.Close()
}

// copyEntry opens e's file, asks open for where its bytes go (given its
// size), and copies them there. A folder only gets its header.
func copyEntry(e entry, open func(size int64) (io.Writer, error)) error {
	if e.dir {
		_, err := open(0)
		return err
	}
	f, err := os.Open(e.path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	dst, err := open(fi.Size())
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, f)
	if err == nil && n != fi.Size() {
		err = fmt.Errorf("%s: changed while it was archived", e.path)
	}
	return err
}

// Sums writes one line per file as sha256sum does ("HEX  NAME", the
// file's base name), so that `sha256sum -c SHA256SUMS` (or `shasum -a 256
// -c`) checks the archives in the folder they were downloaded to.
func Sums(w io.Writer, files []string) error {
	var b strings.Builder
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), filepath.Base(name))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
