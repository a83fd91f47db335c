//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/devtools/ptytest"
	"github.com/evtools/evtools/internal/shell/tools"
)

// The data's escapes never reach a terminal raw (issue 21, item 11): every
// tool in every format it has, on hostile data in a file with a hostile
// name (and a missing file with one), with stdout and stderr each on a
// terminal of its own, writes no control character (but '\n', '\t' and the
// terminal's own "\r\n"), no DEL, no C1, no bidi control, no line or
// paragraph separator, and no byte that is not UTF-8. The formats are each
// tool's own list (its fish completion), so a format added later is
// checked too. Before, `evsum --format html` on a terminal wrote the data's
// OSC 52 (which sets the clipboard under tmux) and OSC 0 (the title), JSON
// passed the bidi controls raw, and messages on stderr carried the data's
// and the file names' escapes (`evfilter 'error(payload.text)'`).
func TestTerminalGetsNoRawControls(t *testing.T) {
	dir := t.TempDir()
	// A name with an OSC 0 (the title), a BEL, a CSI and a right-to-left
	// override: it shows up in every message about the file.
	evil := "ev\x1b]0;TITLE\x07il\x1b[2J\u202e"
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inputs := map[string]string{
		"envelope": write(evil+".jsonl", hostileEnvelope),
		"zot":      write(evil+".zot.jsonl", hostileZot),
		"pi":       write(evil+".pi.jsonl", hostilePi),
	}
	missing := filepath.Join(dir, "no\x1b]52;c;cHduZWQ=\x07such\u2066.jsonl")
	type run struct {
		input string
		args  []string
		stdin bool // the input on stdin, a pipe (evsum's live table)
	}
	runs := map[string][]run{
		"zot2gp":   {{input: "zot"}},
		"evfilter": {{input: "envelope", args: []string{"true"}}, {input: "envelope", args: []string{"error(payload.text)"}}, {input: "envelope", args: []string{"-c", `kind=="tool_call"`}}},
		"evcursor": {{input: "envelope"}, {input: "envelope", args: []string{"--check"}}, {input: "envelope", args: []string{"--state", filepath.Join(dir, "c\x1b]0;T\x07")}}},
		"evsum":    {{input: "envelope", args: []string{"--by", "run,agent,tool"}}, {input: "envelope", args: []string{"--by", "payload.tool"}}, {input: "envelope", args: []string{"--by", "run,agent,tool"}, stdin: true}},
		"evimport": {{input: "pi", args: []string{"--from", "pi"}}},
		"ev2otlp":  {{input: "envelope", args: []string{"--content"}}, {input: "zot"}},
	}
	// ev2otlp writes OTLP, not events: no --format, no colour, one way
	noFormat := map[string]bool{"ev2otlp": true}
	checked := 0
	for _, tool := range tools.All {
		bin, err := exec.LookPath(tool.Name)
		if err != nil {
			t.Fatal(err)
		}
		formats := formatsOf(t, bin)
		colors := []string{"never", "always"}
		if noFormat[tool.Name] {
			formats, colors = []string{""}, []string{""}
		} else if len(formats) == 0 {
			t.Fatalf("%s: no --format values in its completion", tool.Name)
		}
		rs, ok := runs[tool.Name]
		if !ok {
			t.Fatalf("%s: no hostile run: add one", tool.Name)
		}
		for _, format := range formats {
			for _, r := range rs {
				var args []string
				if format != "" {
					args = []string{"--format", format}
				}
				args = append(args, r.args...)
				if tool.Name == "evfilter" && args[len(args)-1] != "true" && format != "jsonl" {
					continue // the other expressions once, in jsonl
				}
				var stdin []byte
				if r.stdin {
					if stdin, err = os.ReadFile(inputs[r.input]); err != nil {
						t.Fatal(err)
					}
					args = append(args, "-", missing)
				} else {
					args = append(args, inputs[r.input], missing)
				}
				for _, color := range colors {
					cargs := args
					if color != "" {
						cargs = append([]string{"--color", color}, args...)
					}
					out, errs := onTerminals(t, bin, cargs, dir, stdin)
					name := fmt.Sprintf("%s %q", tool.Name, cargs)
					if color == "always" {
						// The tools' own colours are let through; only they.
						out, errs = sgr.ReplaceAll(out, nil), sgr.ReplaceAll(errs, nil)
					}
					for _, s := range []struct {
						stream string
						b      []byte
					}{{"stdout", out}, {"stderr", errs}} {
						if i, what := rawControl(s.b); i >= 0 {
							t.Errorf("%s: %s has %s at byte %d: ...%q...", name, s.stream, what, i, s.b[max(0, i-60):min(len(s.b), i+20)])
						}
					}
					if len(errs) == 0 {
						t.Errorf("%s: nothing on stderr, where the missing file and the bad line must be said", name)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d runs checked", checked)
}

// sgr is a Select Graphic Rendition sequence: a colour the tool chose.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// formatsOf is the values of a tool's --format, from its fish completion
// (written from the tool's own flag), "auto" left out: it is one of them.
func formatsOf(t *testing.T, bin string) []string {
	out, err := exec.Command(bin, "--completion", "fish").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^complete -c \S+ -l format .*-a '([^']*)'`).FindSubmatch(out)
	if m == nil {
		return nil
	}
	var formats []string
	for _, f := range strings.Fields(string(m[1])) {
		if f != "auto" {
			formats = append(formats, f)
		}
	}
	return formats
}

// onTerminals runs bin with stdout on a terminal and stderr on another,
// stdin a pipe that gives stdin, and returns what each terminal got.
func onTerminals(t *testing.T, bin string, args []string, dir string, stdin []byte) (stdout, stderr []byte) {
	t.Helper()
	om, os_ := ptytest.Open(t)
	em, es := ptytest.Open(t)
	ptytest.Resize(t, os_, 120, 40)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(agentless(os.Environ()), "HOME="+dir, "TERM=xterm-256color", "TZ=UTC")
	cmd.Stdout, cmd.Stderr = os_, es
	cmd.Stdin = bytes.NewReader(stdin) // a pipe, not a terminal
	got := func(m *os.File) chan []byte {
		c := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(m); c <- b }()
		return c
	}
	oc, ec := got(om), got(em)
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	os_.Close()
	es.Close()
	return <-oc, <-ec
}

// rawControl finds the first byte of b a terminal would act on or reorder:
// a control character but '\n', '\t' and the "\r\n" the terminal makes of
// '\n', DEL, a C1 control, a bidi control, a line or paragraph separator,
// or a byte that is not UTF-8. It returns -1 when there is none.
func rawControl(b []byte) (int, string) {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return i, fmt.Sprintf("the byte %#x, not UTF-8", b[i])
		case r == '\n' || r == '\t' || r == '\r' && i+1 < len(b) && b[i+1] == '\n':
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			return i, fmt.Sprintf("%U", r)
		}
		i += n
	}
	return -1, ""
}

// The hostile data: OSC 52 (the clipboard), OSC 0 (the title), BEL, CSI
// (clear the screen), a carriage return and a backspace (to overwrite),
// DEL, C1 CSI, and the bidi controls, as JSON escapes and as raw UTF-8 in
// the strings (which JSON allows for all but C0), in keys and in values,
// in the members every view shows; then a line that is no JSON, with raw
// escapes.
const (
	osc52 = `\u001b]52;c;cHduZWQ=\u0007`
	osc0  = `\u001b]0;TITLE\u0007`
	csi   = `\u001b[2J\r\b\u007f`
	bidi  = "\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029\u009b2J\x7f"
	evilS = osc52 + osc0 + csi + bidi

	hostileEnvelope = `{"seq":1,"ts":1782083692.5,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"run_started","payload":{"mode":"agent` + evilS + `","model":{"provider":"p` + evilS + `","model":"m` + evilS + `"}}}
{"seq":2,"ts":1782083692.6,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"tool_call","payload":{"tool":"ba` + evilS + `sh","args":{"command":"rm` + evilS + `"},"k` + evilS + `ey":1}}
{"seq":3,"ts":1782083692.7,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"message_update","payload":{"text":"t` + evilS + `"}}
{"seq":4,"ts":1782083692.8,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"tool_result","payload":{"tool":"ba` + evilS + `sh","ok":false,"output":"o` + evilS + `","error":"e` + evilS + `"}}
{"seq":5,"ts":1782083692.9,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"run_error","payload":{"error":"e` + evilS + `","text":"x` + evilS + `"}}
{"seq":"s` + evilS + `","ts":1782083693,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"assistant_message","payload":{"text":"a` + evilS + `"}}
{"seq":7,"ts":1782083693.1,"run_id":"r` + evilS + `","agent_id":"a` + evilS + `","kind":"run_finished","payload":{"outcome":"o` + evilS + `","tokens":5}}
not json` + "\x1b]0;BAD\x07\x1b[2J\u202e\x9b" + `
`

	hostileZot = `{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}
{"content":[{"text":"u` + evilS + `","type":"text"}],"time":"2026-06-21T23:14:52.309Z","type":"user_message"}
{"step":1,"type":"turn_start"}
{"type":"assistant_start"}
{"delta":"d` + evilS + `","type":"text_delta"}
{"id":"c1","name":"ba` + evilS + `sh","type":"tool_use_start"}
{"delta":"{\"command\": \"rm` + evilS + `\"}","id":"c1","type":"tool_use_args"}
{"id":"c1","type":"tool_use_end"}
{"args":{"command":"rm` + evilS + `"},"id":"c1","name":"ba` + evilS + `sh","type":"tool_call"}
{"id":"c1","text":"o` + evilS + `","type":"tool_result"}
{"error":"e` + evilS + `","stop":"error","type":"turn_end"}
{"message":"m` + evilS + `","type":"error"}
{"type":"x` + evilS + `"}
{"type":"done"}
not json` + "\x1b]0;BAD\x07\x1b[2J\u202e\x9b" + `
`

	hostilePi = `{"type":"session","version":3,"id":"s` + evilS + `","timestamp":"2026-03-08T20:00:00.000Z","cwd":"/w` + evilS + `"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-03-08T20:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"u` + evilS + `"}],"timestamp":1772999405000}}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-03-08T20:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a` + evilS + `"},{"type":"toolCall","id":"t1","name":"ba` + evilS + `sh","arguments":{"command":"rm` + evilS + `"}}],"api":"x","provider":"p` + evilS + `","model":"m` + evilS + `","usage":{"input":3,"output":80,"cacheRead":0,"cacheWrite":0,"totalTokens":83,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1772999406000}}
{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-03-08T20:00:09.100Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"ba` + evilS + `sh","content":[{"type":"text","text":"o` + evilS + `"}],"isError":true,"timestamp":1772999409100}}
{"type":"w` + evilS + `","id":"e4","parentId":"e3","timestamp":"2026-03-08T20:00:10.000Z"}
not json` + "\x1b]0;BAD\x07\x1b[2J\u202e\x9b" + `
`
)

// What a person would have seen (issue 21, item 11): under tmux, the data
// of `evsum --format html`, of JSON and of a message on stderr set the
// clipboard (OSC 52: a tmux paste buffer) and the window's title (OSC 0).
// Now neither changes, and the escapes show as text.
func TestTmuxDataSetsNoClipboardNorTitle(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evil.jsonl"), []byte(hostileEnvelope), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "evil.zot.jsonl"), []byte(hostileZot), 0o644); err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"evsum --format html evil.jsonl",
		"evsum --format md --by run,tool evil.jsonl",
		"evfilter --format jsonl 'error(payload.text)' evil.jsonl",
		"evcursor --format jsonl evil.jsonl",
		"zot2gp --format envelope evil.zot.jsonl",
	}
	// The command waits for a line, so that the options below are set
	// before the tools write.
	p := startTmuxCommand(t, 200, 50, "cd "+dir+" && read x && { "+strings.Join(commands, "; ")+"; } 2>&1")
	p.tmux("set-option", "-g", "set-clipboard", "on")
	p.tmux("set-option", "-g", "allow-rename", "on")
	before := strings.TrimSpace(p.tmux("display-message", "-p", "#{pane_title}"))
	p.tmux("send-keys", "Enter")
	// A sequence of the data left open would swallow the rest, the
	// exit status too.
	p.waitExit()
	screen := p.screen(true)
	if title := strings.TrimSpace(p.tmux("display-message", "-p", "#{pane_title}")); title != before {
		t.Errorf("the pane's title is %q, was %q: the data retitled the window", title, before)
	}
	if buffers := strings.TrimSpace(p.tmux("list-buffers")); buffers != "" {
		t.Errorf("tmux has paste buffers: the data set the clipboard (OSC 52):\n%s", buffers)
	}
	if !strings.Contains(screen, `\u001b]52;c;cHduZWQ=`) && !strings.Contains(screen, `\x1b]52;c;cHduZWQ=`) {
		t.Errorf("the escapes are not shown as text:\n%s", screen)
	}
}
