package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Qwen Code run for real (issue 33), as Gemini CLI is (gemini_cli_test.go):
// the pinned version from npm, a scratch HOME whose ~/.qwen/settings.json
// selects the OpenAI-compatible way in, and OPENAI_BASE_URL naming the
// scripted server, which speaks Chat Completions. It needs no login and
// reaches no other host. Its chat keeps tokens, not dollars: evimport
// prices them, so the model is one of its price table's.

const qwenCodeVersion = "0.24.4"

var qwenAgent = &npmAgent{name: "qwen-code", title: "Qwen Code", pkg: "@qwen-code/qwen-code", version: qwenCodeVersion, bin: "qwen"}

// qwenSettings: the API key's way in, no telemetry, no background memory
// extraction (a side request whose timing the script cannot know), and
// one retry of the SDK's, at once.
const qwenSettings = `{"security":{"auth":{"selectedType":"openai"}},"privacy":{"usageStatisticsEnabled":false},` +
	`"telemetry":{"enabled":false},"memory":{"enableManagedAutoMemory":false},` +
	`"model":{"generationConfig":{"maxRetries":1,"retryInitialDelayMs":1}}}`

// TestQwenCode plays three prompts of one Qwen Code session: a tool call
// it runs (run_shell_command ls) and a reply; the session continued
// (--continue), its call answered 500, retried, before the reply; and a
// call that fails for good (a 400, which it does not retry).
func TestQwenCode(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs Qwen Code")
	}
	bin := qwenAgent.program(t)
	home, work := scratchHome(t)

	// main: the agent's own turns (they offer the agent tool)
	main := func(r *Request) bool { return r.HasTool("agent") }
	u := func(in, read, out, reasoning int64) Usage {
		return Usage{Input: in, CacheRead: read, Output: out, Reasoning: reasoning}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1
		{When: main, Reply: Reply{Thinking: "Look first.", Text: "Let me look.", Usage: u(6200, 0, 41, 3),
			Tools: []ToolCall{{Name: "run_shell_command", Input: json.RawMessage(`{"command":"ls"}`)}}}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 14, 0)}},
		// prompt 2, continued: a 500, retried, then the reply
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
		{When: main, Reply: Reply{Text: "plan.md is the shorter one.", Usage: u(6480, 6390, 23, 0)}},
		// prompt 3: a 400 is not retried
		{When: main, Reply: Reply{Status: 400, Error: "Invalid request: context too long"}},
	}})
	defer s.Close()
	if err := os.MkdirAll(filepath.Join(home, ".qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(qwenSettings), 0o644)

	run := func(prompt string, more ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-p", prompt, "--yolo"}, more...)...)
		cmd.Dir = work
		cmd.Env = []string{
			"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash", "TMPDIR=" + filepath.Join(home, "tmp"),
			"OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + s.URL + "/v1", "OPENAI_MODEL=deepseek-chat", "QWEN_CODE_SUPPRESS_YOLO_WARNING=1",
		}
		t0 := time.Now()
		out, errb, code := runAgent(t, cmd)
		t.Logf("qwen -p %q: %v, status %d, stdout %q, stderr %.300q", prompt, time.Since(t0).Round(time.Millisecond), code, out, errb)
		return string(out), code
	}
	start := time.Now()
	out1, c1 := run("list the files here")
	out2, c2 := run("which one is shorter?", "--continue")
	_, c3 := run("and the longer?", "--continue")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if c1 != 0 || c2 != 0 || c3 == 0 || !strings.Contains(out1, "Two files") || !strings.Contains(out2, "shorter one") {
		t.Errorf("statuses %d, %d, %d (want 0, 0, not 0); replies %q, %q", c1, c2, c3, out1, out2)
	}
	exchanges := played(t, s)

	projects := filepath.Join(home, ".qwen", "projects")
	files, _ := filepath.Glob(filepath.Join(projects, "*", "chats", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("chats %v: --continue did not go on with the session", files)
	}
	evs := evimportEvents(t, qwenAgent, home, projects)
	checkPrompts(t, evs, "ok,ok,error")

	calls, results := kinds(evs, "tool_call"), kinds(evs, "tool_result")
	call := exchanges[0].Tools[0]
	if len(calls) != 1 || calls[0].Payload.ID != call.ID || calls[0].Payload.Tool != "run_shell_command" || !jsonEqual(calls[0].Payload.Args, call.Input) {
		t.Errorf("tool calls %+v; want %+v", calls, call)
	}
	if len(results) != 1 || results[0].Payload.ID != call.ID || results[0].Payload.OK == nil || !*results[0].Payload.OK ||
		!strings.Contains(string(results[0].Payload.Output), `notes.txt\nplan.md`) {
		t.Errorf("tool results %+v", results)
	}
	checkQwenCalls(t, exchanges, evs)
}

// checkQwenCalls holds each model call to the reply the server sent under
// its id, and the request that failed for good to a model_error of the
// last run: a retried 500 leaves no record.
func checkQwenCalls(t *testing.T, exchanges []Exchange, evs []importedEvent) {
	t.Helper()
	sent := map[string]Exchange{}
	for _, x := range exchanges {
		if x.Status == 200 && x.Complete {
			sent[x.ID] = x
		}
	}
	for _, e := range kinds(evs, "model_result") {
		p := e.Payload
		x, ok := sent[p.ResponseID]
		if !ok {
			t.Errorf("a model_result of a response the server did not send whole: %v", e.raw["payload"])
			continue
		}
		delete(sent, p.ResponseID)
		qwenAgent.checkTokens(t, p.ResponseID, e, x.Usage)
		if p.CostUSD == nil || p.CostSource != "prices" {
			t.Errorf("%s: cost %v from %q", p.ResponseID, p.CostUSD, p.CostSource)
		}
	}
	if len(sent) != 0 {
		t.Errorf("replies sent with no model_result: %v", sent)
	}
	errs := kinds(evs, "model_error")
	if len(errs) != 1 || !strings.HasSuffix(errs[0].RunID, "/3") || !strings.HasPrefix(errs[0].Payload.Message, "400 ") {
		t.Errorf("model_errors %+v; want the 400 of run 3", errs)
	}
}
