package evcursor_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --state keeps the last line passed for its cursor: a line longer than
// the reader's buffers is kept as read, not copied, and a short line after
// it is copied into a buffer of its own. Either way the cursor is that of
// the last line passed.
func TestStateLongLines(t *testing.T) {
	long := strings.Repeat(`x\"y `, 1<<19) // 2.5 MB
	lines := []string{
		`{"seq":1,"run_id":"r","kind":"a","payload":{}}`,
		`{"seq":2,"run_id":"r","kind":"b","payload":{"text":"` + long + `"}}`,
		`{"seq":3,"run_id":"r","kind":"c","payload":{}}`,
		`{"seq":4,"run_id":"r","kind":"d","payload":{"text":"` + long[5:] + `"}}`,
	}
	for n := 2; n <= len(lines); n++ {
		dir := t.TempDir()
		logf, state := filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "daily.cursor")
		in := strings.Join(lines[:n], "\n") + "\n"
		if err := os.WriteFile(logf, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := run(t, "", "--state", state, logf)
		if code != 0 || out != in {
			t.Fatalf("%d lines: exit %d, %d bytes out of %d, stderr %q", n, code, len(out), len(in), stderr)
		}
		b, err := os.ReadFile(state)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Cursor struct {
				Seq    json.Number `json:"seq"`
				SHA256 string      `json:"sha256"`
				Line   int         `json:"line"`
			} `json:"cursor"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(lines[n-1]))
		if c := st.Cursor; c.Seq.String() != fmt.Sprint(n) || c.Line != n || c.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%d lines: cursor %+v, want seq and line %d, sha256 %x", n, c, n, sum)
		}
	}
}
