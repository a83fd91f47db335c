package transcript

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata")

// page writes the transcript of the file with the options.
func page(t testing.TB, file string, o Options) []byte {
	t.Helper()
	in, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	o.Loc, o.Tool, o.Version = time.UTC, "evfilter", "test"
	var b bytes.Buffer
	w := New(&b, o)
	// In pieces that split lines, as a tool's buffered writer does.
	for len(in) > 0 {
		n := min(len(in), 777)
		if _, err := w.Write(in[:n]); err != nil {
			t.Fatal(err)
		}
		in = in[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The transcripts of the shipped examples (the recorded uname run as
// zot2gp writes it and as raw zot lines, the multi-agent run log), of an
// imported Claude Code session, and of the same with small limits that
// cut every kind of text, byte for byte: go test -update rewrites them;
// open them in a browser before committing (internal/devtools/e2e's browser test
// does, and takes the screenshots of docs/images from them).
func TestGoldenPages(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		o          Options
	}{
		{"uname", "../../../examples/output/zot/uname.gp.jsonl", Options{Files: []string{"uname.gp.jsonl"}}},
		{"uname.raw", "../../../examples/zot/uname.jsonl", Options{}},
		{"auth-401.raw", "../../../examples/zot/auth-401.jsonl", Options{}},
		{"multiagent", "../../../examples/events/multiagent.jsonl", Options{Files: []string{"multiagent.jsonl"}}},
		{"imported", "testdata/imported.jsonl", Options{}},
		{"imported.cut", "testdata/imported.jsonl", Options{MaxText: 60, MaxLines: 3, MaxEntries: 8, MaxBars: 2, MaxPage: 3000}},
		{"empty", os.DevNull, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := page(t, tc.file, tc.o)
			path := filepath.Join("testdata", tc.name+".html")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the page written now (go test -update rewrites it)", path)
			}
		})
	}
}
