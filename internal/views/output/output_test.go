package output

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/filters/redact"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/pretty"
)

// never is the view's flags without colour, for output a test compares.
var never = pretty.ViewFlags{ColorFlag: term.ColorFlag{Color: "never"}}

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
		f := Flags{Format: c.format, ViewFlags: never, Flags: redact.Flags{Redact: c.redact}}
		w, end, err := f.Events("evcursor", cli.Stdio{Out: &out, Err: &errw}, Events, nil)
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
	if _, _, err := (&Flags{Format: "csv", ViewFlags: never}).Events("evcursor", cli.Stdio{Out: &out, Err: &out}, Events, nil); err == nil || out.Len() != 0 {
		t.Errorf("--format csv: %v, wrote %q", err, out.String())
	}
}

// A secret the pretty view joins from pieces, each redacted alone, is
// redacted whole (issue 21.9): text deltas, and the pieces of a tool call's
// arguments. The JSON Lines stay as they were, piece by piece.
func TestPrettyRedactsJoinedPieces(t *testing.T) {
	const token = "ghp_FAKEa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
	in := `{"seq":1,"ts":1793524443,"run_id":"r_1","agent_id":"zot","kind":"message_update","payload":{"type":"text_delta","delta":"use ` + token[:12] + `"}}
{"seq":2,"ts":1793524443,"run_id":"r_1","agent_id":"zot","kind":"message_update","payload":{"type":"text_delta","delta":"` + token[12:] + ` now"}}
{"seq":3,"ts":1793524444,"run_id":"r_1","agent_id":"zot","kind":"tool_execution_start","payload":{"type":"tool_use_start","id":"c1","name":"bash"}}
{"seq":4,"ts":1793524444,"run_id":"r_1","agent_id":"zot","kind":"tool_execution_update","payload":{"type":"tool_use_args","id":"c1","delta":"{\"command\":\"echo ` + token[:20] + `"}}
{"seq":5,"ts":1793524444,"run_id":"r_1","agent_id":"zot","kind":"tool_execution_update","payload":{"type":"tool_use_args","id":"c1","delta":"` + token[20:] + `\"}"}}
{"seq":6,"ts":1793524444,"run_id":"r_1","agent_id":"zot","kind":"tool_execution_update","payload":{"type":"tool_use_end","id":"c1"}}
`
	for _, format := range []string{"pretty", "jsonl", "html"} {
		var out, errw bytes.Buffer
		f := Flags{Format: format, ViewFlags: never, Flags: redact.Flags{Redact: true}}
		w, end, err := f.Events("evfilter", cli.Stdio{Out: &out, Err: &errw}, Events, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, in)
		if err := end(); err != nil {
			t.Fatal(err)
		}
		switch format {
		case "pretty":
			got := out.String()
			if strings.Contains(got, token[:12]) || strings.Contains(got, token[20:]) {
				t.Errorf("the pretty view shows the secret joined:\n%s", got)
			}
			if n := strings.Count(got, "[REDACTED:github-token]"); n != 2 {
				t.Errorf("the pretty view shows %d redactions, want the text's and the command's:\n%s", n, got)
			}
			if !strings.Contains(got, "use [REDACTED:github-token] now") || !strings.Contains(got, "bash  echo [REDACTED:github-token]") {
				t.Errorf("what redaction leaves is not shown:\n%s", got)
			}
			if e := errw.String(); e != "evfilter: redacted 2 github-token\n" {
				t.Errorf("the count on stderr: %q", e)
			}
		case "html":
			got := out.String()
			if strings.Contains(got, token[:12]) || strings.Contains(got, token[20:]) {
				t.Errorf("the transcript shows the secret joined:\n%s", got)
			}
			if !strings.Contains(got, "<p>use [REDACTED:github-token] now</p>") || !strings.Contains(got, "<code>echo [REDACTED:github-token]</code>") {
				t.Errorf("what redaction leaves is not shown:\n%s", got)
			}
			if e := errw.String(); e != "evfilter: redacted 2 github-token\n" {
				t.Errorf("the count on stderr: %q", e)
			}
		case "jsonl":
			if out.String() != in {
				t.Errorf("the JSON Lines changed:\n%s", out.String())
			}
		}
	}
}
