package evsum

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A live table is drawn only while an input may still grow: a pipe among
// the inputs, not stored files nor a stdin that is no file.
func TestLiveInput(t *testing.T) {
	f := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(f, []byte("{}\n"), 0o644)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	buffer := strings.NewReader("{}\n")
	if liveInput([]string{f}, buffer) {
		t.Error("a stored file is live")
	}
	if liveInput(nil, buffer) {
		t.Error("a stdin that is no file is live")
	}
	if !liveInput([]string{f, "-"}, r) {
		t.Error("a pipe on stdin is not live")
	}
	if !liveInput([]string{filepath.Join(filepath.Dir(f), "missing"), "-"}, r) {
		t.Error("a missing file hides the pipe after it")
	}
}
