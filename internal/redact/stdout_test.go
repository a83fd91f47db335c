package redact

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/cli"
)

// Events renders for --format pretty, passes jsonl through, redacts when
// asked in either, and refuses another format before writing anything.
func TestFlagsEvents(t *testing.T) {
	const event = `{"seq":1,"ts":"2026-01-01T00:00:00Z","run_id":"r","agent_id":"a","kind":"run_started","payload":{"t":"AKIAFAKE4EXAMPLE7KEY"}}` + "\n"
	for _, c := range []struct {
		format string
		redact bool
		want   func(string) bool
	}{
		{"jsonl", false, func(s string) bool { return s == event }},
		{"", false, func(s string) bool { return s == event }}, // a buffer is no terminal
		{"jsonl", true, func(s string) bool { return strings.Contains(s, `"t":"[REDACTED:aws-access-key-id]"`) }},
		{"pretty", false, func(s string) bool { return !strings.Contains(s, "{") && strings.Contains(s, "run    started") }},
	} {
		var out, errw bytes.Buffer
		f := Flags{Redact: c.redact}
		w, end, err := f.Events("evcursor", cli.Stdio{Out: &out, Err: &errw}, c.format, "never", nil)
		if err != nil {
			t.Fatalf("%q: %v", c.format, err)
		}
		io.WriteString(w, event)
		if err := end(); err != nil {
			t.Fatalf("%q: end: %v", c.format, err)
		}
		if !c.want(out.String()) {
			t.Errorf("--format %q, redact %v: %q", c.format, c.redact, out.String())
		}
	}
	var out bytes.Buffer
	if _, _, err := (&Flags{}).Events("evcursor", cli.Stdio{Out: &out, Err: &out}, "csv", "never", nil); err == nil || out.Len() != 0 {
		t.Errorf("--format csv: %v, wrote %q", err, out.String())
	}
}
