package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pi run for real (issue 33), as Claude Code is (claude_code_test.go):
// the pinned version from npm, a scratch HOME whose models.json names a
// provider of the test's own, speaking Anthropic's Messages API at the
// scripted server (pi's simplest custom provider: the server speaks it
// already), with prices, so that pi computes each call's usage.cost.

const piAgentVersion = "0.73.1"

var piAgent = &npmAgent{
	name: "pi", title: "pi", pkg: "@mariozechner/pi-coding-agent", version: piAgentVersion, bin: "pi",
}

// piPrices are the prices (USD per million tokens) models.json gives the
// test's model: pi's usage.cost is computed from them.
const piPrices = `{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75}`

// TestPiAgent plays three prompts of one pi session: a tool call pi runs
// (bash ls) and a reply; the session continued (-c), its call answered
// 500, then with a stream cut short, before the reply; and a call that
// fails for good (500, 429, 500: the retries run out).
func TestPiAgent(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs pi")
	}
	bin := piAgent.program(t)
	home, work := scratchHome(t)

	// main: pi's own turns (they offer bash); pi makes no side request
	// (no title, no quota check), so every request is the script's
	main := func(r *Request) bool { return r.HasTool("bash") }
	u := func(in, read, write, out int64) Usage {
		return Usage{Input: in, CacheRead: read, CacheWrite: write, Output: out}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1
		{When: main, Reply: Reply{Text: "Let me look.", Usage: u(6200, 0, 6180, 41),
			Tools: []ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}}}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 210, 14)}},
		// prompt 2, continued: a 500, a stream cut short, then the reply
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
		{When: main, Reply: Reply{Text: "plan.md", Cut: true, Usage: u(6480, 6390, 90, 2)}},
		{When: main, Reply: Reply{Thinking: "The note is shorter.", Text: "plan.md is the shorter one.", Usage: u(6480, 6390, 90, 23)}},
		// prompt 3: the retries (2) run out
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
		{When: main, Reply: Reply{Status: 429, Error: "Number of requests has exceeded your rate limit", RetryAfter: "0"}},
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
	}})
	defer s.Close()

	agent := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	models := `{"providers":{"evt":{"baseUrl":"` + s.URL + `","api":"anthropic-messages","apiKey":"test",` +
		`"models":[{"id":"claude-test-1","reasoning":true,"cost":` + piPrices + `}]}}}`
	// pi retries a failed call itself (2s, 4s, 8s by default): at once
	// here, twice; the SDK's own retries are off, so that each attempt
	// is pi's and in its log
	settings := `{"retry":{"enabled":true,"maxRetries":2,"baseDelayMs":1,"provider":{"maxRetries":0}}}`
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644)
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o644)

	pi := func(prompt string, more ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, append(append([]string{"-p", "--provider", "evt", "--model", "claude-test-1"}, more...), prompt)...)
		cmd.Dir = work
		// nothing of the user's environment; PI_OFFLINE: no update
		// check, no telemetry
		cmd.Env = []string{
			"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash",
			"TMPDIR=" + filepath.Join(home, "tmp"), "PI_OFFLINE=1",
		}
		t0 := time.Now()
		out, errb, code := runAgent(t, cmd)
		t.Logf("pi -p %q: %v, status %d, stdout %q, stderr %q", prompt, time.Since(t0).Round(time.Millisecond), code, out, errb)
		return string(out), code
	}
	start := time.Now()
	out1, c1 := pi("list the files here")
	out2, c2 := pi("which one is shorter?", "-c")
	_, c3 := pi("and the longer?", "-c")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if c1 != 0 || c2 != 0 || c3 == 0 || !strings.Contains(out1, "Two files") || !strings.Contains(out2, "shorter one") {
		t.Errorf("statuses %d, %d, %d (want 0, 0, not 0); replies %q, %q", c1, c2, c3, out1, out2)
	}
	exchanges := played(t, s)

	sessions := filepath.Join(agent, "sessions")
	files, _ := filepath.Glob(filepath.Join(sessions, "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v: -c did not continue the session", files)
	}
	own := piOwnCosts(t, files[0])
	evs := evimportEvents(t, piAgent, home, sessions)

	checkPrompts(t, evs, "ok,ok,error")

	// the tool call the server made, with its result
	calls, results := kinds(evs, "tool_call"), kinds(evs, "tool_result")
	call := exchanges[0].Tools[0]
	if len(calls) != 1 || calls[0].Payload.ID != call.ID || calls[0].Payload.Tool != "bash" || !jsonEqual(calls[0].Payload.Args, call.Input) {
		t.Errorf("tool calls %+v; want %+v", calls, call)
	}
	if len(results) != 1 || results[0].Payload.ID != call.ID || results[0].Payload.OK == nil || !*results[0].Payload.OK ||
		string(results[0].Payload.Output) != `"notes.txt\nplan.md\n"` {
		t.Errorf("tool results %+v", results)
	}

	// pi writes every attempt, so each request is one model call, in
	// order: an error's has no tokens and a model_error; a reply's has
	// the server's tokens, a cut stream's those of its message_start (the
	// output so far: at most 1), which is all pi got
	results = kinds(evs, "model_result")
	errs := kinds(evs, "model_error")
	if len(results) != len(exchanges) {
		t.Fatalf("%d model calls for %d requests", len(results), len(exchanges))
	}
	var cost, ownTotal float64
	nerr := 0
	for i, x := range exchanges {
		p := results[i].Payload
		w := x.Usage
		if !x.Complete {
			w.Output = min(w.Output, 1)
		}
		if p.ResponseID != x.ID {
			t.Errorf("request %d (status %d): response id %q; the server sent %q", i, x.Status, p.ResponseID, x.ID)
		}
		piAgent.checkTokens(t, fmt.Sprintf("%d (status %d, %s)", i, x.Status, x.ID), results[i], w)
		if x.Status != 200 || !x.Complete {
			if nerr >= len(errs) || errs[nerr].RunID != results[i].RunID {
				t.Errorf("request %d (status %d): no model_error in its run", i, x.Status)
			} else if x.Status != 200 && !strings.HasPrefix(errs[nerr].Payload.Message, fmt.Sprint(x.Status)) {
				t.Errorf("request %d: model_error %q", i, errs[nerr].Payload.Message)
			}
			nerr++
		}
		// the cost is pi's own, call by call
		c, ok := own[x.ID]
		if x.ID == "" {
			c, ok = 0, true
		}
		if !ok || p.CostUSD == nil || p.CostSource != "log" || math.Abs(*p.CostUSD-c) > 1e-12 {
			t.Errorf("request %d: cost %v from %q; pi's own %v", i, p.CostUSD, p.CostSource, c)
		} else {
			cost += *p.CostUSD
			ownTotal += c
		}
	}
	if nerr != len(errs) {
		t.Errorf("%d model_errors for %d failed requests", len(errs), nerr)
	}
	t.Logf("%d model calls, cost %.7f (pi's %.7f)", len(results), cost, ownTotal)
}

// piOwnCosts is the usage.cost.total of each assistant message of a pi
// session file, by its responseId.
func piOwnCosts(t *testing.T, file string) map[string]float64 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	costs := map[string]float64{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r struct {
			Message struct {
				Role       string
				ResponseID string `json:"responseId"`
				Usage      struct{ Cost struct{ Total float64 } }
			}
		}
		if json.Unmarshal(line, &r) == nil && r.Message.Role == "assistant" && r.Message.ResponseID != "" {
			costs[r.Message.ResponseID] = r.Message.Usage.Cost.Total
		}
	}
	if len(costs) == 0 {
		t.Fatalf("%s: no assistant message with a responseId", file)
	}
	return costs
}
