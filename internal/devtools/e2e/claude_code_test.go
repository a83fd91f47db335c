package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Claude Code run for real (issue 33): the pinned version from npm,
// pointed at a scripted model server (modelserver_test.go) in a scratch
// HOME, plays prompts; then evimport reads the session log it wrote and
// the test holds it to what the server reported: a run per prompt, every
// tool call with its result, each call's tokens those the server sent,
// the cost Claude Code's own. The package is installed with npm once into
// the user's cache folder ($XDG_CACHE_HOME/evtools-agents/claude-code-
// VERSION) and reused; without node or npm, or without the registry the
// first time, the test is skipped, except in CI (CI set), where .ci/run
// installs nodejs and npm.

const claudeCodeVersion = "2.1.328"

var claudeAgent = &npmAgent{
	name: "claude-code", title: "Claude Code", pkg: "@anthropic-ai/claude-code", version: claudeCodeVersion, bin: "claude",
}

// claudeCode returns the claude program of the pinned version, installing
// it the first time (agents_test.go).
func claudeCode(t *testing.T) string {
	t.Helper()
	return claudeAgent.program(t)
}

// claudeRun is one claude -p of a session.
type claudeRun struct {
	SessionID    string  `json:"session_id"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	IsError      bool    `json:"is_error"`
	Result       string  `json:"result"`
}

// claude runs claude -p prompt in work, HOME home, against url; resume,
// when not "", is the session to go on with.
func runClaude(t *testing.T, bin, home, work, url, prompt, resume string, env ...string) claudeRun {
	t.Helper()
	args := []string{"-p", prompt, "--output-format", "json", "--allowedTools", "Bash"}
	if resume != "" {
		args = append(args, "--resume", resume)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	// nothing of the user's environment: no key, no settings, no proxy;
	// the variables that keep Claude Code from calling anything but the
	// server (telemetry, error reports, the updater, the other
	// non-essential traffic)
	cmd.Env = append([]string{
		"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash",
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=test",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !errors.As(err, new(*exec.ExitError)) {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("claude -p %q: no end after 2 minutes; stderr %q", prompt, stderr.String())
	}
	var r claudeRun
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil || r.SessionID == "" {
		t.Fatalf("claude -p %q: %v: stdout %q, stderr %q", prompt, err, stdout.String(), stderr.String())
	}
	return r
}

// importedEvent is what the test reads of evimport's events.
type importedEvent struct {
	RunID   string `json:"run_id"`
	AgentID string `json:"agent_id"`
	Kind    string `json:"kind"`
	Payload struct {
		Text string          `json:"text"`
		ID   string          `json:"id"`
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
		OK   *bool           `json:"ok"`
		// a tool's output (a string) or a call's output tokens
		Output     json.RawMessage `json:"output"`
		Model      json.RawMessage `json:"model"` // run_started's is an object
		Input      int64           `json:"input"`
		CacheRead  int64           `json:"cache_read"`
		CacheWrite int64           `json:"cache_write"`
		Write1h    int64           `json:"cache_write_1h"`
		CostUSD    *float64        `json:"cost_usd"`
		CostSource string          `json:"cost_source"`
		ResponseID string          `json:"response_id"`
		Unpriced   bool            `json:"unpriced"`
		Reasoning  int64           `json:"reasoning"`
		Outcome    string          `json:"outcome"` // run_finished's
		Message    string          `json:"message"` // model_error's
	} `json:"payload"`
	Session string `json:"session"`
	raw     map[string]any
}

// TestClaudeCode plays three prompts of one session against Claude Code:
// a tool call it runs (Bash ls) and a reply; the session resumed, its
// call failing with 500 and 429 before it gets its reply; and a call
// that fails for good (no retries left).
func TestClaudeCode(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs Claude Code")
	}
	bin := claudeCode(t)
	home := t.TempDir()
	work := filepath.Join(home, "work")
	for _, d := range []string{work, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("a note\n"), 0o644)
	os.WriteFile(filepath.Join(work, "plan.md"), []byte("# plan\n"), 0o644)

	// main: the agent's own turns (they offer Bash), not a side request
	main := func(r *Request) bool { return r.HasTool("Bash") }
	u := func(in, read, write, w1h, out int64) Usage {
		return Usage{Input: in, CacheRead: read, CacheWrite: write, CacheWrite1h: w1h, Output: out}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1
		{When: main, Reply: Reply{Text: "Let me look.", Usage: u(6200, 0, 6180, 0, 41),
			Tools: []ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command":"ls","description":"List the files"}`)}}}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 210, 0, 14)}},
		// prompt 2, resumed: a 500, a stream cut short, a 429, then the reply
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
		{When: main, Reply: Reply{Text: "plan.md", Cut: true, Usage: u(6480, 6390, 90, 90, 2)}},
		{When: main, Reply: Reply{Status: 429, Error: "Number of requests has exceeded your rate limit", RetryAfter: "0"}},
		{When: main, Reply: Reply{Thinking: "The note is shorter.", Text: "plan.md is the shorter one.", Usage: u(6480, 6390, 90, 90, 23)}},
		// prompt 3, no retries: the call fails for good
		{When: main, Reply: Reply{Status: 500, Error: "Internal server error"}},
	}})
	defer s.Close()

	start := time.Now()
	r1 := runClaude(t, bin, home, work, s.URL, "list the files here", "")
	r2 := runClaude(t, bin, home, work, s.URL, "which one is shorter?", r1.SessionID)
	r3 := runClaude(t, bin, home, work, s.URL, "and the longer?", r1.SessionID, "CLAUDE_CODE_MAX_RETRIES=0")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if r2.SessionID != r1.SessionID || r3.SessionID != r1.SessionID {
		t.Fatalf("sessions %s, %s, %s: the resumes are not the first's", r1.SessionID, r2.SessionID, r3.SessionID)
	}
	if r1.IsError || r2.IsError || !r3.IsError {
		t.Errorf("is_error %v, %v, %v; want false, false, true (%q)", r1.IsError, r2.IsError, r3.IsError, r3.Result)
	}
	if left := s.Left(); left != 0 {
		t.Fatalf("%d steps of the script not played; exchanges: %+v", left, s.Exchanges())
	}

	projects := filepath.Join(home, ".claude", "projects")
	evs := evimportEvents(t, claudeAgent, home, projects)

	// a run per prompt, in one session
	var prompts []string
	runs := map[string]bool{}
	for _, e := range evs {
		if e.Session != r1.SessionID {
			t.Errorf("an event of session %s", e.Session)
		}
		runs[e.RunID] = true
		if e.Kind == "user_message" {
			prompts = append(prompts, e.RunID+" "+e.Payload.Text)
		}
	}
	id := r1.SessionID
	want := []string{id + "/1 list the files here", id + "/2 which one is shorter?", id + "/3 and the longer?"}
	if strings.Join(prompts, "\n") != strings.Join(want, "\n") || len(runs) != 3 {
		t.Errorf("prompts:\n%s\nwant\n%s", strings.Join(prompts, "\n"), strings.Join(want, "\n"))
	}

	// every tool call the server made, with its result
	scripted := s.Exchanges()
	var calls, results []importedEvent
	for _, e := range evs {
		switch e.Kind {
		case "tool_call":
			calls = append(calls, e)
		case "tool_result":
			results = append(results, e)
		}
	}
	call := scripted[0].Tools[0]
	if len(calls) != 1 || calls[0].Payload.ID != call.ID || calls[0].Payload.Tool != "Bash" || !jsonEqual(calls[0].Payload.Args, call.Input) {
		t.Errorf("tool calls %+v; want %+v", calls, call)
	}
	if len(results) != 1 || results[0].Payload.ID != call.ID || results[0].Payload.OK == nil || !*results[0].Payload.OK ||
		string(results[0].Payload.Output) != `"notes.txt\nplan.md"` {
		t.Errorf("tool results %+v", results)
	}

	// each reply the server sent whole is one model call with its tokens
	sent := map[string]Exchange{}
	for _, x := range scripted {
		if x.Complete {
			sent[x.ID] = x
		}
	}
	var cost float64
	got := 0
	for _, e := range evs {
		if e.Kind != "model_result" {
			continue
		}
		got++
		p := e.Payload
		x, ok := sent[p.ResponseID]
		if !ok {
			t.Errorf("a model_result of a response the server did not send whole: %v", e.raw["payload"])
			continue
		}
		delete(sent, p.ResponseID)
		claudeAgent.checkTokens(t, p.ResponseID, e, x.Usage)
		if string(p.Model) != `"`+x.Request.Model+`"` || p.CostUSD == nil || p.CostSource != "log" {
			t.Errorf("%s: model %s (asked for %q), cost %v from %q", p.ResponseID, p.Model, x.Request.Model, p.CostUSD, p.CostSource)
		} else {
			cost += *p.CostUSD
		}
	}
	if len(sent) != 0 {
		t.Errorf("replies sent with no model_result: %v", sent)
	}
	t.Logf("%d model calls logged, %d requests served (%d scripted)", got, len(s.Exchanges()), len(scripted))

	// the cost: Claude Code's own, as its last -p said and its last
	// cost-state has it (each is the session's so far)
	logTotal := lastCostState(t, projects, id)
	if math.Abs(cost-r3.TotalCostUSD) > 1e-6 || math.Abs(logTotal-r3.TotalCostUSD) > 1e-9 {
		t.Errorf("cost: evimport %.9f, claude -p %.9f, cost-state %.9f", cost, r3.TotalCostUSD, logTotal)
	}

	// the call that failed for good ends its run with an error
	var stops []string
	for _, e := range evs {
		if e.Kind == "run_error" || e.Kind == "model_error" {
			stops = append(stops, e.RunID+" "+e.Kind)
		}
	}
	if want := id + "/3 model_error," + id + "/3 run_error"; strings.Join(stops, ",") != want {
		t.Errorf("errors %v; want %s", stops, want)
	}
}

// lastCostState is the totalCostUSD of the last cost-state record of the
// session's log.
func lastCostState(t *testing.T, projects, session string) float64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(projects, "*", session+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	total := math.NaN()
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r struct {
			Type         string
			TotalCostUSD float64 `json:"totalCostUSD"`
		}
		if json.Unmarshal(line, &r) == nil && r.Type == "cost-state" {
			total = r.TotalCostUSD
		}
	}
	return total
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}
