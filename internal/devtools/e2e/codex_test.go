package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Codex CLI run for real (issue 33), as Claude Code is
// (claude_code_test.go): the pinned version from npm (its native program
// comes as the platform's optional dependency), a scratch CODEX_HOME
// whose config.toml names a model provider of the test's own speaking
// the Responses API at the scripted server. Codex needs no login for
// such a provider (its env_key names the variable of the key), and
// reaches no other host. Its rollout keeps tokens, not cost: evimport
// prices them.

const codexVersion = "0.171.0"

var codexAgent = &npmAgent{name: "codex", title: "Codex", pkg: "@openai/codex", version: codexVersion, bin: "codex"}

// codexModel is a model of evimport's price table, so that every call is
// priced.
const codexModel = "gpt-5.1-codex"

// TestCodex plays three prompts of one Codex session: a tool call Codex
// runs (exec_command ls) and a reply; the session resumed (exec resume
// --last), its call answered 500, then with a stream cut short, before
// the reply; and a call that fails for good (no retries left).
func TestCodex(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs Codex")
	}
	bin := codexAgent.program(t)
	home, work := scratchHome(t)

	// main: Codex's own turns (they offer exec_command)
	main := func(r *Request) bool { return r.HasTool("exec_command") }
	u := func(in, read, out, reasoning int64) Usage {
		return Usage{Input: in, CacheRead: read, Output: out, Reasoning: reasoning}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1
		{When: main, Reply: Reply{Thinking: "Look first.", Text: "Let me look.", Usage: u(6200, 0, 41, 12),
			Tools: []ToolCall{{Name: "exec_command", Input: json.RawMessage(`{"cmd":"ls"}`)}}}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 14, 0)}},
		// prompt 2, resumed: a 500, a stream cut short, then the reply
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
		{When: main, Reply: Reply{Text: "plan.md", Cut: true, Usage: u(6480, 6390, 2, 0)}},
		{When: main, Reply: Reply{Thinking: "The note is shorter.", Text: "plan.md is the shorter one.", Usage: u(6480, 6390, 23, 5)}},
		// prompt 3, no retries: the call fails for good
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
	}})
	defer s.Close()

	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	// retries at once (request_max_retries: an HTTP error's;
	// stream_max_retries: a stream's cut short); no update check, no
	// analytics
	config := fmt.Sprintf(`model = %q
model_provider = "evt"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.evt]
name = "evt"
base_url = "%s/v1"
env_key = "EVT_API_KEY"
wire_api = "responses"
request_max_retries = 2
stream_max_retries = 2
stream_idle_timeout_ms = 20000
`, codexModel, s.URL)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644)

	codex := func(prompt string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append(append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}, args...), prompt)...)
		cmd.Dir = work
		// nothing of the user's environment
		cmd.Env = []string{
			"HOME=" + home, "CODEX_HOME=" + codexHome, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash",
			"TMPDIR=" + filepath.Join(home, "tmp"), "EVT_API_KEY=test",
		}
		t0 := time.Now()
		out, errb, code := runAgent(t, cmd)
		t.Logf("codex exec %q: %v, status %d, stdout %q", prompt, time.Since(t0).Round(time.Millisecond), code, out)
		if code != 0 {
			t.Logf("stderr: %s", errb)
		}
		return string(out), code
	}
	start := time.Now()
	out1, c1 := codex("list the files here")
	out2, c2 := codex("which one is shorter?", "resume", "--last")
	_, c3 := codex("and the longer?", "resume", "--last",
		"-c", "model_providers.evt.request_max_retries=0", "-c", "model_providers.evt.stream_max_retries=0")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if c1 != 0 || c2 != 0 || c3 == 0 || !strings.Contains(out1, "Two files") || !strings.Contains(out2, "shorter one") {
		t.Errorf("statuses %d, %d, %d (want 0, 0, not 0); replies %q, %q", c1, c2, c3, out1, out2)
	}
	exchanges := played(t, s)

	sessions := filepath.Join(codexHome, "sessions")
	files, _ := filepath.Glob(filepath.Join(sessions, "*", "*", "*", "rollout-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("rollouts %v: resume --last did not go on with the session", files)
	}
	evs := evimportEvents(t, codexAgent, home, sessions)

	checkPrompts(t, evs, "ok,ok,error")

	// the tool call the server made, with its result (Codex's output
	// holds the command's between lines of its own)
	calls, results := kinds(evs, "tool_call"), kinds(evs, "tool_result")
	call := exchanges[0].Tools[0]
	if len(calls) != 1 || calls[0].Payload.ID != call.ID || calls[0].Payload.Tool != "exec_command" || !jsonEqual(calls[0].Payload.Args, call.Input) {
		t.Errorf("tool calls %+v; want %+v", calls, call)
	}
	if len(results) != 1 || results[0].Payload.ID != call.ID || results[0].Payload.OK == nil || !*results[0].Payload.OK ||
		!strings.Contains(string(results[0].Payload.Output), `Output:\nnotes.txt\nplan.md\n`) {
		t.Errorf("tool results %+v", results)
	}

	// each reply the server sent whole is one model call with its tokens
	// and its id; Codex keeps nothing of an error's or a cut stream's
	sent := map[string]Exchange{}
	for _, x := range exchanges {
		if x.Status == 200 && x.Complete {
			sent[x.ID] = x
		}
	}
	results = kinds(evs, "model_result")
	for _, e := range results {
		p := e.Payload
		x, ok := sent[p.ResponseID]
		if !ok {
			t.Errorf("a model_result of a response the server did not send whole: %v", e.raw["payload"])
			continue
		}
		delete(sent, p.ResponseID)
		codexAgent.checkTokens(t, p.ResponseID, e, x.Usage)
		if string(p.Model) != `"`+codexModel+`"` || p.CostUSD == nil || p.CostSource != "prices" {
			t.Errorf("%s: model %s, cost %v from %q", p.ResponseID, p.Model, p.CostUSD, p.CostSource)
		}
	}
	if len(sent) != 0 {
		t.Errorf("replies sent with no model_result: %v", sent)
	}

	// the call that failed for good ends its run with an error
	var stops []string
	for _, e := range kinds(evs, "model_error", "run_error") {
		stops = append(stops, strings.TrimPrefix(e.RunID, e.Session)+" "+e.Kind)
	}
	if got := strings.Join(stops, ","); got != "/3 model_error,/3 run_error" {
		t.Errorf("errors %s; want /3 model_error,/3 run_error", got)
	}
	t.Logf("%d model calls logged, %d requests served", len(results), len(exchanges))
}
