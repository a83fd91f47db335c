package evsum

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A live table is drawn only while an input may still grow: a pipe among
// the inputs, not stored files nor a stdin that is no file.
func TestLiveInput(t *testing.T) {
	stored, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer stored.Close()
	pipe, writer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pipe.Close(); writer.Close() })
	missing := filepath.Join(filepath.Dir(stored.Name()), "missing")
	for _, c := range []struct {
		names []string
		stdin io.Reader
		live  bool
	}{
		{[]string{stored.Name()}, strings.NewReader(""), false},
		{nil, strings.NewReader("{}\n"), false},
		{nil, stored, false},
		{[]string{stored.Name(), "-"}, pipe, true},
		{[]string{missing, "-"}, pipe, true},
	} {
		if got := liveInput(c.names, c.stdin); got != c.live {
			t.Errorf("liveInput(%v, %T) = %v", c.names, c.stdin, got)
		}
	}
}
