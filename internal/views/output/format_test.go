//go:build linux

package output

import (
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/ptytest"
)

// --format auto is pretty on a terminal and the Set's first format
// elsewhere; a value not in the Set is a usage error naming them.
func TestParse(t *testing.T) {
	_, tty := ptytest.Open(t)
	jp := Set{Formats: []Format{JSONL, Pretty}}
	if f, _ := jp.Parse("", tty); f.Name != "pretty" {
		t.Errorf("terminal: %q", f.Name)
	}
	if f, _ := (Set{Formats: []Format{Lines("envelope", ""), Pretty}}).Parse("auto", &strings.Builder{}); f.Name != "envelope" {
		t.Errorf("pipe: %q", f.Name)
	}
	if f, _ := jp.Parse("jsonl", tty); f.Name != "jsonl" {
		t.Errorf("forced jsonl: %q", f.Name)
	}
	_, err := jp.Parse("json", tty)
	if err == nil || !strings.Contains(err.Error(), "one of auto, jsonl, pretty") {
		t.Errorf("bad value: %v", err)
	}
}
