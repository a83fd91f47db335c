package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Only regular files and folders (an archive's files) are stored logs: a
// pipe, a missing file or a reader that is not a file are not.
func TestRegularFiles(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "log.jsonl")
	os.WriteFile(f, []byte("{}\n"), 0o644)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, _ := os.Open(f)
	defer file.Close()
	for _, tc := range []struct {
		names []string
		stdin any
		want  bool
	}{
		{[]string{f}, nil, true},
		{[]string{f, f}, nil, true},
		{[]string{f, dir}, nil, true},
		{[]string{filepath.Join(dir, "missing")}, nil, false},
		{nil, file, true},
		{[]string{"-"}, file, true},
		{[]string{f, "-"}, r, false},
		{nil, strings.NewReader("{}"), false},
	} {
		var stdin interface{ Read([]byte) (int, error) } = strings.NewReader("")
		if tc.stdin != nil {
			stdin = tc.stdin.(interface{ Read([]byte) (int, error) })
		}
		if got := RegularFiles(tc.names, stdin); got != tc.want {
			t.Errorf("RegularFiles(%v, %T) = %v, want %v", tc.names, tc.stdin, got, tc.want)
		}
	}
}
