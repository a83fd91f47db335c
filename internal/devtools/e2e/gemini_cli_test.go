package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Gemini CLI run for real (issue 33), as Codex is (codex_test.go): the
// pinned version from npm, a scratch HOME whose ~/.gemini/settings.json
// selects the Gemini API key as its way in (GEMINI_API_KEY is any key),
// and GOOGLE_GEMINI_BASE_URL, which the CLI hands to its Gemini client,
// naming the scripted server. No login, no other host (usage statistics
// and update checks are off). Its chats keep tokens, not cost: evimport
// prices them.

const geminiVersion = "0.61.0"

var geminiAgent = &npmAgent{name: "gemini-cli", title: "Gemini CLI", pkg: "@google/gemini-cli", version: geminiVersion, bin: "gemini"}

// geminiModel is a model of evimport's price table, so that every call
// is priced.
const geminiModel = "gemini-2.5-flash"

// geminiSettings are the scratch HOME's settings: the API key's way in,
// the folder trusted (else --yolo is turned back to asking), nothing
// sent to Google.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}`

// TestGeminiCLI plays three prompts of one Gemini CLI session: a 500
// (retried after some 5 seconds, the CLI's least wait), a tool call the
// CLI runs (run_shell_command ls) and a reply; the session resumed
// (--resume latest), its call answered 429 before the reply; and a call
// whose stream is cut short, which Gemini CLI 0.61 does not retry: the
// run fails, the chat keeping nothing of it but its prompt.
func TestGeminiCLI(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs Gemini CLI")
	}
	bin := geminiAgent.program(t)
	home, work := scratchHome(t)

	// main: the CLI's own turns (they declare run_shell_command)
	main := func(r *Request) bool { return r.HasTool("run_shell_command") }
	u := func(in, read, out, reasoning int64) Usage {
		return Usage{Input: in, CacheRead: read, Output: out, Reasoning: reasoning}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1: a 500, then the tool call and the reply
		{When: main, Reply: Reply{Status: 500, Error: "Internal error encountered."}},
		{When: main, Reply: Reply{Thinking: "**Looking**\n\nFirst the files.", Text: "Let me look.", Usage: u(6200, 0, 41, 12),
			Tools: []ToolCall{{Name: "run_shell_command", Input: json.RawMessage(`{"command":"ls"}`)}}}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 14, 0)}},
		// prompt 2, resumed: a 429, then the reply
		{When: main, Reply: Reply{Status: 429, Error: "Resource exhausted.", RetryAfter: "0"}},
		{When: main, Reply: Reply{Thinking: "**Sizes**\n\nThe note is shorter.", Text: "notes.txt is the shorter one.", Usage: u(6480, 6390, 23, 5)}},
		// prompt 3: the stream cut short fails the call for good
		{When: main, Reply: Reply{Text: "plan.md", Cut: true, Usage: u(6550, 6480, 2, 0)}},
	}})
	defer s.Close()

	gemini := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(gemini, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(gemini, "settings.json"), []byte(geminiSettings), 0o644)

	run := func(prompt string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-p", prompt, "--yolo", "-m", geminiModel}, args...)...)
		cmd.Dir = work
		// nothing of the user's environment; no second node process
		// for a larger heap (GEMINI_CLI_NO_RELAUNCH)
		cmd.Env = []string{
			"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash", "TMPDIR=" + filepath.Join(home, "tmp"),
			"GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL=" + s.URL, "GEMINI_CLI_NO_RELAUNCH=true",
		}
		t0 := time.Now()
		out, errb, code := runAgent(t, cmd)
		t.Logf("gemini -p %q: %v, status %d, stdout %q", prompt, time.Since(t0).Round(time.Millisecond), code, out)
		if code != 0 {
			t.Logf("stderr: %.300s", errb)
		}
		return string(out), code
	}
	start := time.Now()
	out1, c1 := run("list the files here")
	out2, c2 := run("which one is shorter?", "--resume", "latest")
	_, c3 := run("and the longer?", "--resume", "latest")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if c1 != 0 || c2 != 0 || c3 == 0 || !strings.Contains(out1, "Two files") || !strings.Contains(out2, "shorter one") {
		t.Errorf("statuses %d, %d, %d (want 0, 0, not 0); replies %q, %q", c1, c2, c3, out1, out2)
	}
	exchanges := played(t, s)

	tmp := filepath.Join(gemini, "tmp")
	files, _ := filepath.Glob(filepath.Join(tmp, "*", "chats", "session-*"))
	// A resumed chat goes on in its file; 0.61 also starts a file named
	// by the minute of the resume, holding the metadata and the history
	// again but no message (in the same file when the minute is the
	// same). Every file must be of the one session.
	for _, f := range files {
		var head struct{ SessionID string }
		b, _ := os.ReadFile(f)
		line, _, _ := bytes.Cut(b, []byte("\n"))
		if json.Unmarshal(line, &head) != nil || head.SessionID == "" || !strings.Contains(files[0], head.SessionID[:8]) {
			t.Fatalf("chats %v: %s is not of the first session: --resume latest did not go on with it", files, f)
		}
	}
	evs := evimportEvents(t, geminiAgent, home, tmp)

	// the chat keeps nothing of the call that failed: the run ends
	// without a reply
	checkPrompts(t, evs, "ok,ok,incomplete")

	// the tool call the server made, with its result; Gemini CLI names
	// a call by the tool and the id the API gave
	calls, results := kinds(evs, "tool_call"), kinds(evs, "tool_result")
	call := exchanges[1].Tools[0]
	id := call.Name + "__" + call.ID
	if len(calls) != 1 || calls[0].Payload.ID != id || calls[0].Payload.Tool != "run_shell_command" || !jsonEqual(calls[0].Payload.Args, call.Input) {
		t.Errorf("tool calls %+v; want %s %+v", calls, id, call)
	}
	if len(results) != 1 || results[0].Payload.ID != id || results[0].Payload.OK == nil || !*results[0].Payload.OK ||
		!strings.Contains(string(results[0].Payload.Output), `notes.txt\nplan.md\n`) {
		t.Errorf("tool results %+v", results)
	}
	checkGeminiCalls(t, exchanges, kinds(evs, "model_result"))
}

// checkGeminiCalls holds the model calls evimport read to the replies the
// server sent whole, one for one and in order (a chat names no response
// id), each with the server's tokens, the model and a price from the
// table. An error or a cut stream leaves nothing in the chat.
func checkGeminiCalls(t *testing.T, exchanges []Exchange, results []importedEvent) {
	t.Helper()
	var sent []Exchange
	for _, x := range exchanges {
		if x.Status == 200 && x.Complete {
			sent = append(sent, x)
		}
	}
	if len(results) != len(sent) {
		t.Errorf("%d model calls read, %d replies sent whole", len(results), len(sent))
	}
	for i, e := range results {
		if i >= len(sent) {
			break
		}
		p := e.Payload
		geminiAgent.checkTokens(t, strconv.Itoa(i+1), e, sent[i].Usage)
		if string(p.Model) != `"`+geminiModel+`"` || p.CostUSD == nil || p.CostSource != "prices" {
			t.Errorf("call %d: model %s, cost %v from %q", i+1, p.Model, p.CostUSD, p.CostSource)
		}
	}
}
