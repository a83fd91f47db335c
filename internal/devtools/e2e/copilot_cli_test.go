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

// Copilot CLI run for real (issue 33), as Codex is (codex_test.go): the
// pinned version from npm (its native program comes as the platform's
// optional dependency), run offline with a model provider of one's own
// (BYOK): COPILOT_OFFLINE=true, COPILOT_PROVIDER_TYPE=anthropic and
// COPILOT_PROVIDER_BASE_URL naming the scripted server. It then needs no
// GitHub login and reaches no other host. Its log keeps tokens, not
// dollars: evimport prices them.

const copilotVersion = "1.0.102"

var copilotAgent = &npmAgent{name: "copilot", title: "Copilot CLI", pkg: "@github/copilot", version: copilotVersion, bin: "copilot"}

// copilotModel is the model as Copilot CLI names it; evimport prices it
// as claude-sonnet-4-5.
const copilotModel = "claude-sonnet-4.5"

// TestCopilotCLI plays three prompts of one Copilot CLI session: a tool
// call it runs (bash ls) and a reply; the session resumed (--continue),
// its call answered 500, 429 and with a stream cut short, each retried,
// before the reply; and a third prompt, resumed again. Each call's
// tokens are held to the server's, and their sum to the session's own
// modelMetrics.
func TestCopilotCLI(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs Copilot CLI")
	}
	bin := copilotAgent.program(t)
	home, work := scratchHome(t)

	main := func(r *Request) bool { return r.HasTool("bash") }
	u := func(in, read, write, out int64) Usage {
		return Usage{Input: in, CacheRead: read, CacheWrite: write, Output: out}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1
		{When: main, Reply: Reply{Thinking: "Look first.", Text: "Let me look.", Usage: u(6200, 0, 6000, 41),
			Tools: []ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}}}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 0, 14)}},
		// prompt 2, resumed: a 500, a 429, a stream cut short, the reply
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
		{When: main, Reply: Reply{Status: 429, Error: "slow down", RetryAfter: "0"}},
		{When: main, Reply: Reply{Text: "plan.md", Cut: true, Usage: u(6480, 6390, 0, 2)}},
		{When: main, Reply: Reply{Thinking: "The note is shorter.", Text: "notes.txt is the shorter one.", Usage: u(6480, 6390, 0, 23)}},
		// prompt 3, resumed again
		{When: main, Reply: Reply{Text: "plan.md is the longer one.", Usage: u(6530, 6470, 0, 9)}},
	}})
	defer s.Close()

	// the program unpacks itself into its cache folder: kept beside the
	// install, so that it is done once
	cache := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(bin))), "copilot-cache")
	run := func(prompt string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-p", prompt, "--allow-all-tools", "--model", copilotModel}, args...)...)
		cmd.Dir = work
		cmd.Env = []string{
			"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash", "TMPDIR=" + filepath.Join(home, "tmp"),
			"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_BASE_URL=" + s.URL,
			"COPILOT_PROVIDER_API_KEY=test", "COPILOT_AUTO_UPDATE=false", "COPILOT_CACHE_HOME=" + cache,
		}
		t0 := time.Now()
		out, errb, code := runAgent(t, cmd)
		t.Logf("copilot -p %q: %v, status %d, stdout %q", prompt, time.Since(t0).Round(time.Millisecond), code, out)
		if code != 0 {
			t.Logf("stderr: %.300s", errb)
		}
		return string(out), code
	}
	start := time.Now()
	out1, c1 := run("list the files here")
	out2, c2 := run("which one is shorter?", "--continue")
	out3, c3 := run("and the longer?", "--continue")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if c1 != 0 || c2 != 0 || c3 != 0 || !strings.Contains(out1, "Two files") || !strings.Contains(out2, "shorter one") || !strings.Contains(out3, "longer one") {
		t.Errorf("statuses %d, %d, %d; replies %q, %q, %q", c1, c2, c3, out1, out2, out3)
	}
	exchanges := played(t, s)

	files, _ := filepath.Glob(filepath.Join(home, ".copilot", "session-state", "*", "events.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions %v: --continue did not go on with the session", files)
	}
	evs := evimportEvents(t, copilotAgent, home, filepath.Join(home, ".copilot", "session-state"))
	checkPrompts(t, evs, "ok,ok,ok")

	calls, results := kinds(evs, "tool_call"), kinds(evs, "tool_result")
	call := exchanges[0].Tools[0]
	if len(calls) != 1 || calls[0].Payload.ID != call.ID || calls[0].Payload.Tool != "bash" || !jsonEqual(calls[0].Payload.Args, call.Input) {
		t.Errorf("tool calls %+v; want %+v", calls, call)
	}
	if len(results) != 1 || results[0].Payload.ID != call.ID || results[0].Payload.OK == nil || !*results[0].Payload.OK ||
		!strings.HasPrefix(string(results[0].Payload.Output), `"notes.txt\nplan.md\n`) {
		t.Errorf("tool results %+v", results)
	}
	checkCopilotCalls(t, exchanges, kinds(evs, "model_result"), copilotMetrics(t, files[0]))
}

// checkCopilotCalls holds each model call to the reply the server sent
// whole under its id (Copilot CLI's apiCallId is the message id), and
// the calls' sum to the session's last modelMetrics.
func checkCopilotCalls(t *testing.T, exchanges []Exchange, results []importedEvent, metrics Usage) {
	t.Helper()
	sent := map[string]Exchange{}
	for _, x := range exchanges {
		if x.Status == 200 && x.Complete {
			sent[x.ID] = x
		}
	}
	var sum Usage
	for _, e := range results {
		p, u := e.Payload, e.usage()
		sum.Input, sum.CacheRead, sum.CacheWrite, sum.Output = sum.Input+u.Input, sum.CacheRead+u.CacheRead, sum.CacheWrite+u.CacheWrite, sum.Output+u.Output
		x, ok := sent[p.ResponseID]
		if !ok {
			t.Errorf("a model_result of a response the server did not send whole: %v", e.raw["payload"])
			continue
		}
		delete(sent, p.ResponseID)
		copilotAgent.checkTokens(t, p.ResponseID, e, x.Usage)
		if string(p.Model) != `"`+copilotModel+`"` || p.CostUSD == nil || p.CostSource != "prices" {
			t.Errorf("%s: model %s, cost %v from %q", p.ResponseID, p.Model, p.CostUSD, p.CostSource)
		}
	}
	if len(sent) != 0 {
		t.Errorf("replies sent with no model_result: %v", sent)
	}
	if sum != metrics {
		t.Errorf("the calls' tokens add up to %+v; the session's modelMetrics say %+v", sum, metrics)
	}
}

// copilotMetrics is the model's usage in the log's last session.shutdown:
// the session's own account, resumes included.
func copilotMetrics(t *testing.T, file string) Usage {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var u Usage
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Type string
			Data struct {
				ModelMetrics map[string]struct {
					Usage struct{ InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64 }
				}
			}
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Type != "session.shutdown" {
			continue
		}
		m := e.Data.ModelMetrics[copilotModel].Usage
		u = Usage{Input: m.InputTokens, CacheRead: m.CacheReadTokens, CacheWrite: m.CacheWriteTokens, Output: m.OutputTokens}
	}
	return u
}
