package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// Item 10: each tool's help states its defaults and what its modes do.
func TestHelpTexts(t *testing.T) {
	for _, c := range []struct{ tool, want string }{
		{"evsum", "UTC or Local. Default: UTC."},
		{"evimport", "UTC or Local. Default: UTC."},
		{"evsum", "Default: run."},
		{"evcursor", "a bad line is reported and not passed"},
		{"evfilter", "with -v,"},
		{"evfilter", "Usage: evfilter [flags] EXPR [FILE ...]"},
	} {
		out, err := exec.Command(c.tool, "--help").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(string(out)), " "); !strings.Contains(got, c.want) {
			t.Errorf("%s --help lacks %q", c.tool, c.want)
		}
	}
}
