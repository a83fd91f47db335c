package jsonl_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/archivetest"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/google/go-cmp/cmp"
)

// writeHost writes a host folder under root, one segment per string of
// events.
func writeHost(t *testing.T, dir string, h archivetest.Host, days ...string) {
	t.Helper()
	var segs []archivetest.Segment
	for i, events := range days {
		segs = append(segs, archivetest.Segment{Day: "2026-12-0" + string(rune('1'+i)), Events: []byte(events)})
	}
	if _, err := archivetest.Write(dir, h, segs); err != nil {
		t.Fatal(err)
	}
}

// read reads names with an Input and returns the records as FILE:LINE
// DATA, relative to root, and what went to stderr.
func read(t *testing.T, root string, names ...string) (recs []string, stderr string, trouble bool) {
	t.Helper()
	var errb bytes.Buffer
	in := &jsonl.Input{Tool: "t", Names: names, Stderr: &errb}
	err := in.Each(func(r jsonl.Record) error {
		if bytes.Contains(r.Data, []byte("bad")) {
			return in.Bad(r, os.ErrInvalid)
		}
		rel, _ := filepath.Rel(root, r.File)
		recs = append(recs, rel+":"+string(rune('0'+r.Line))+" "+string(r.Data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	trouble = in.Trouble()
	return recs, strings.ReplaceAll(errb.String(), root+string(filepath.Separator), ""), trouble
}

func TestArchiveFolderIsItsSegments(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	// Two machines, and a copy of the first one of an older generation
	// (an rsync of last week): each host is read once, from its newest
	// manifest, host after host by id, each in manifest order.
	writeHost(t, filepath.Join(a, "laptop"), archivetest.Host{Name: "laptop", ID: "L", Generation: 3}, "{\"n\":1}\n{\"n\":2}\n", "{\"n\":3}\n")
	writeHost(t, filepath.Join(a, "old", "laptop"), archivetest.Host{Name: "laptop", ID: "L", Generation: 2}, "{\"n\":\"old\"}\n")
	writeHost(t, filepath.Join(a, "desk"), archivetest.Host{Name: "desk", ID: "D", Generation: 1}, "{\"n\":4}\nbad\n")
	file := filepath.Join(root, "f.jsonl")
	if err := os.WriteFile(file, []byte("{\"n\":0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, stderr, trouble := read(t, root, file, a)
	want := []string{
		`f.jsonl:1 {"n":0}`,
		`a/desk/2026-12-01.g1.0.jsonl.zst:1 {"n":4}`,
		`a/laptop/2026-12-01.g3.0.jsonl.zst:1 {"n":1}`,
		`a/laptop/2026-12-01.g3.0.jsonl.zst:2 {"n":2}`,
		`a/laptop/2026-12-02.g3.1.jsonl.zst:1 {"n":3}`,
	}
	if d := cmp.Diff(want, recs); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	// a bad line is reported as the segment's
	if wantErr := "t: a/desk/2026-12-01.g1.0.jsonl.zst:2: invalid argument\n"; stderr != wantErr || !trouble {
		t.Errorf("stderr %q (trouble %v), want %q", stderr, trouble, wantErr)
	}
}

func TestArchiveFolderProblems(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	badManifest := filepath.Join(root, "bad", "h")
	os.MkdirAll(badManifest, 0o755)
	os.WriteFile(filepath.Join(badManifest, "evtools-archive.json"), []byte(`{"version":9,"id":"x"}`), 0o644)
	missing := filepath.Join(root, "missing", "h")
	writeHost(t, missing, archivetest.Host{Name: "h", ID: "M", Generation: 1}, "{\"n\":1}\n", "{\"n\":2}\n")
	os.Remove(filepath.Join(missing, "2026-12-01.g1.0.jsonl.zst"))
	tests := []struct {
		name   string
		input  string
		recs   []string
		stderr string
	}{
		{"a folder without an archive", empty, nil,
			"t: no evtools archive under empty: name files, or a folder evimport --archive wrote\n"},
		{"a manifest of a later version", filepath.Join(root, "bad"), nil,
			"t: bad/h/evtools-archive.json: archive format version 9 is not supported (this evtools reads 1)\n"},
		{"a segment the manifest lists is missing", filepath.Join(root, "missing"),
			[]string{`missing/h/2026-12-02.g1.1.jsonl.zst:1 {"n":2}`},
			"t: missing/h/2026-12-01.g1.0.jsonl.zst: no such file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, stderr, trouble := read(t, root, tt.input)
			if d := cmp.Diff(tt.recs, recs); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			if stderr != tt.stderr || !trouble {
				t.Errorf("stderr %q (trouble %v), want %q", stderr, trouble, tt.stderr)
			}
		})
	}
}

func TestArchiveFolderThroughALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root := t.TempDir()
	writeHost(t, filepath.Join(root, "a", "h"), archivetest.Host{Name: "h", ID: "H", Generation: 1}, "{\"n\":1}\n")
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "a"), link); err != nil {
		t.Fatal(err)
	}
	recs, stderr, _ := read(t, root, link)
	if want := []string{`link/h/2026-12-01.g1.0.jsonl.zst:1 {"n":1}`}; !cmp.Equal(recs, want) || stderr != "" {
		t.Errorf("records %q, stderr %q; want %q", recs, stderr, want)
	}
}
