package jsonl

import (
	"os"
	"path/filepath"
	"testing"
)

// Every tool words a file it cannot open the same way: the name, then the
// reason, without Go's "open NAME:" in between.
func TestFileError(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	_, err := os.Open(missing)
	if got, want := FileError(missing, err).Error(), missing+": no such file"; got != want {
		t.Errorf("missing file: %q, want %q", got, want)
	}
	_, err = os.ReadFile(dir)
	if got, want := FileError(dir, err).Error(), dir+": is a directory"; got != want {
		t.Errorf("ReadFile of a folder: %q, want %q", got, want)
	}
	_, err = open(dir, nil, nil, nil)
	if got, want := err.Error(), dir+": is a directory"; got != want {
		t.Errorf("Open of a folder: %q, want %q", got, want)
	}
}
