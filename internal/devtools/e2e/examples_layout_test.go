package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Item 12: examples/ keeps inputs and what the tools make of them apart,
// lists every file in its README, and each output file is what the command
// the README gives for it makes now.
func TestExamplesLayout(t *testing.T) {
	readme, err := os.ReadFile("../../../examples/README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{} // file -> command ("" for an input)
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\| (.*) \\|$")
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		cmd := ""
		if c := regexp.MustCompile("^`(.*)`$").FindStringSubmatch(m[2]); c != nil && strings.HasPrefix(m[1], "output/") {
			cmd = strings.ReplaceAll(c[1], `\|`, "|")
		}
		listed[m[1]] = cmd
	}
	var files []string
	filepath.WalkDir("../../../examples", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel("../../../examples", path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	for _, f := range files {
		cmd, ok := listed[f]
		switch {
		case f == "README.md":
		case !ok:
			t.Errorf("examples/%s is not listed in examples/README.md", f)
		case strings.HasPrefix(f, "output/"):
			if cmd == "" {
				t.Errorf("examples/README.md gives no command for examples/%s", f)
				continue
			}
			c := exec.Command("sh", "-c", cmd)
			c.Dir = "../../../examples"
			got, err := c.Output()
			if err != nil {
				t.Errorf("%s: %v", cmd, err)
			}
			want, _ := os.ReadFile("../../../examples/" + f)
			if !bytes.Equal(got, want) {
				t.Errorf("examples/%s is not what `%s` makes now", f, cmd)
			}
		case strings.Count(filepath.Base(f), ".") != 1:
			t.Errorf("examples/%s: an input folder holds inputs only (X.jsonl)", f)
		}
	}
	for f := range listed {
		if _, err := os.Stat("../../../examples/" + f); err != nil && strings.Contains(f, "/") && !strings.Contains(f, "X") {
			t.Errorf("examples/README.md lists %s, which is not there", f)
		}
	}
}
