//go:build linux

package evsum_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/ptytest"
	"github.com/evtools/evtools/internal/folds/evsum"
	"github.com/evtools/evtools/internal/shell/cli"
)

// Control characters from the data never reach a terminal raw, whatever
// the format: the table escapes them, and so must csv, md and JSON when
// they are written to a terminal.
func TestTerminalGetsNoRawControls(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	in := `{"seq":1,"ts":1782083692.5,"run_id":"r_\u001b[2J","agent_id":"a` + "\u009b" + `31m","kind":"tool_call","payload":{"tool":"ba\u001bsh"}}` + "\n"
	for _, format := range []string{"table", "csv", "md", "jsonl", "json"} {
		m, s := ptytest.Open(t)
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(m); got <- b }()
		var stderr bytes.Buffer
		code := evsum.Main([]string{"--format", format, "--by", "run,agent,tool"}, cli.Stdio{In: strings.NewReader(in), Out: s, Err: &stderr})
		s.Close()
		out := <-got
		m.Close()
		if code != 0 {
			t.Fatalf("-f %s: exit %d: %s", format, code, stderr.String())
		}
		if i := bytes.IndexAny(out, "\x1b\u009b"); i >= 0 {
			t.Errorf("-f %s: a raw control character reached the terminal: %q", format, out)
		}
		if format == "jsonl" {
			first, _, _ := bytes.Cut(out, []byte("\r\n"))
			var rec struct{ Group map[string]string }
			if err := json.Unmarshal(first, &rec); err != nil || rec.Group["agent_id"] != "a\u009b31m" {
				t.Errorf("-f jsonl: escaped line %q reads back as %v (%v)", first, rec.Group, err)
			}
		}
		if !bytes.Contains(out, []byte(`\x1b`)) && !bytes.Contains(out, []byte(`\u001b`)) {
			t.Errorf("-f %s: the escaped form is missing: %q", format, out)
		}
	}
}

// A group key that is an object is re-encoded by encoding/json, which
// leaves DEL and the C1 controls raw: on a terminal JSON escapes them, and
// them only (U+00A0 is not a control), and still reads back as the data.
func TestTerminalJSONEscapesObjectKeys(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	const args = "\u007f\u0080\u009b[31m\u009f\u00a0"
	in := `{"seq":1,"ts":1782083692.5,"run_id":"r_1","kind":"tool_call","payload":{"tool":"bash","args":{"k":"` + args + `"}}}` + "\n"
	for _, format := range []string{"jsonl", "json"} {
		m, s := ptytest.Open(t)
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(m); got <- b }()
		var stderr bytes.Buffer
		code := evsum.Main([]string{"--format", format, "--by", "payload.args"}, cli.Stdio{In: strings.NewReader(in), Out: s, Err: &stderr})
		s.Close()
		out := <-got
		m.Close()
		if code != 0 {
			t.Fatalf("-f %s: exit %d: %s", format, code, stderr.String())
		}
		if i := bytes.IndexAny(out, "\x7f\u0080\u009b\u009f"); i >= 0 {
			t.Errorf("-f %s: a raw control character reached the terminal: %q", format, out)
		}
		if !bytes.Contains(out, []byte("\u00a0")) {
			t.Errorf("-f %s: U+00A0 was escaped: %q", format, out)
		}
		var rec struct {
			Group map[string]map[string]string
		}
		first, _, _ := bytes.Cut(bytes.TrimPrefix(out, []byte("[\r\n")), []byte("\r\n"))
		first = bytes.TrimSuffix(first, []byte(","))
		if err := json.Unmarshal(first, &rec); err != nil || rec.Group["payload.args"]["k"] != args {
			t.Errorf("-f %s: %q reads back as %v (%v)", format, first, rec.Group, err)
		}
	}
}
