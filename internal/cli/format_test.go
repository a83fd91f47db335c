//go:build linux

package cli

import (
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/ptytest"
)

// --format auto is pretty on a terminal and the tool's default elsewhere;
// a value not among the choices is a usage error naming them.
func TestParseFormat(t *testing.T) {
	_, tty := ptytest.Open(t)
	if f, _ := ParseFormat("", tty, "jsonl", "jsonl", "pretty"); f != "pretty" {
		t.Errorf("terminal: %q", f)
	}
	if f, _ := ParseFormat("auto", &strings.Builder{}, "envelope", "envelope", "pretty"); f != "envelope" {
		t.Errorf("pipe: %q", f)
	}
	if f, _ := ParseFormat("jsonl", tty, "jsonl", "jsonl", "pretty"); f != "jsonl" {
		t.Errorf("forced jsonl: %q", f)
	}
	_, err := ParseFormat("json", tty, "jsonl", "jsonl", "pretty")
	if err == nil || !strings.Contains(err.Error(), "one of auto, jsonl, pretty") {
		t.Errorf("bad value: %v", err)
	}
}
