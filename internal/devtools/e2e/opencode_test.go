package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// opencode run for real (issue 33), as Claude Code is
// (claude_code_test.go): the pinned version from npm (its native program
// comes as the platform's optional dependency), a scratch HOME whose
// opencode.json names a provider of the test's own through
// @ai-sdk/openai-compatible (bundled in the program: nothing is
// installed beside it) at the scripted server's Chat Completions.
// OPENCODE_DISABLE_MODELS_FETCH keeps it from fetching the model list,
// the others from updating itself and installing plugins. Its store is
// a SQLite database holding each message's tokens and cost: the cost is
// opencode's own, from the model's price in the config.

const opencodeVersion = "1.18.33"

var opencodeAgent = &npmAgent{name: "opencode", title: "opencode", pkg: "opencode-ai", version: opencodeVersion, bin: "opencode"}

// TestOpencode plays three prompts of one opencode session: a tool call
// opencode runs (bash ls) and a reply; the session continued
// (--continue) with a task call whose subagent runs a tool of its own;
// and a call the server fails (400, which opencode does not retry).
func TestOpencode(t *testing.T) {
	t.Parallel() // the agents wait (start, retries) more than they work
	if testing.Short() {
		t.Skip("runs opencode")
	}
	bin := opencodeAgent.program(t)
	home, work := scratchHome(t)

	// main: the build agent's turns (they offer task); sub: a subagent's
	// (no task); a title request offers no tool and gets Other's reply
	main := func(r *Request) bool { return r.HasTool("task") }
	sub := func(r *Request) bool { return r.HasTool("bash") && !r.HasTool("task") }
	u := func(in, read, out, reasoning int64) Usage {
		return Usage{Input: in, CacheRead: read, Output: out, Reasoning: reasoning}
	}
	call := func(name, args string) []ToolCall {
		return []ToolCall{{Name: name, Input: json.RawMessage(args)}}
	}
	s := startModelServer(Script{Steps: []Step{
		// prompt 1
		{When: main, Reply: Reply{Thinking: "Look first.", Text: "Let me look.", Usage: u(6200, 0, 41, 12),
			Tools: call("bash", `{"command":"ls","description":"List the files"}`)}},
		{When: main, Reply: Reply{Text: "Two files: notes.txt and plan.md.", Usage: u(6390, 6180, 14, 0)}},
		// prompt 2: a subagent compares them
		{When: main, Reply: Reply{Text: "Let me ask a helper.", Usage: u(6480, 6390, 30, 0),
			Tools: call("task", `{"description":"compare the files","prompt":"which file is shorter?","subagent_type":"general"}`)}},
		{When: sub, Reply: Reply{Usage: u(3100, 0, 25, 0), Tools: call("bash", `{"command":"wc -c notes.txt plan.md","description":"Count bytes"}`)}},
		{When: sub, Reply: Reply{Text: "plan.md is shorter.", Usage: u(3200, 3100, 6, 0)}},
		{When: main, Reply: Reply{Text: "plan.md is the shorter one.", Usage: u(6600, 6480, 9, 0)}},
		// prompt 3: the call fails
		{When: main, Reply: Reply{Status: 400, Error: "the scripted failure"}},
	}, Other: func(*Request) Reply {
		return Reply{Text: "Files here", Usage: u(120, 0, 3, 0)}
	}})
	defer s.Close()

	config := map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "evt/evt-model", "small_model": "evt/evt-model",
		"provider": map[string]any{"evt": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "evt",
			"options": map[string]any{"baseURL": s.URL + "/v1", "apiKey": "evt-key"},
			"models": map[string]any{"evt-model": map[string]any{"name": "evt-model",
				"cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}},
		}},
	}
	b, _ := json.Marshal(config)
	dir := filepath.Join(home, ".config", "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	opencode := func(prompt string, more ...string) (string, int) {
		t.Helper()
		// the prompt's words as arguments of their own: opencode quotes
		// an argument holding a space
		cmd := exec.Command(bin, append(append([]string{"run", "--format", "json"}, more...), strings.Fields(prompt)...)...)
		cmd.Dir = work
		cmd.Env = []string{
			"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "SHELL=/bin/bash",
			"TMPDIR=" + filepath.Join(home, "tmp"), "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		}
		t0 := time.Now()
		out, errb, code := runAgent(t, cmd)
		t.Logf("opencode run %q: %v, status %d, stdout %.2000q, stderr %.2000q", prompt, time.Since(t0).Round(time.Millisecond), code, out, errb)
		return string(out), code
	}
	start := time.Now()
	out1, _ := opencode("list the files here")
	out2, _ := opencode("which one is shorter?", "--continue")
	out3, _ := opencode("and the longer?", "--continue")
	t.Logf("three prompts in %v", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(out1, "Two files") || !strings.Contains(out2, "shorter one") || !strings.Contains(out3, "scripted failure") {
		t.Errorf("replies %q, %q, %q", out1, out2, out3)
	}
	if left := s.Left(); left != 0 {
		t.Fatalf("%d steps of the script not played; exchanges: %+v", left, s.Exchanges())
	}
	for _, x := range s.Exchanges() {
		if x.Step < 0 && len(x.Request.Tools) > 0 {
			t.Errorf("a request the script did not expect: %.300s", x.Request.Body)
		}
	}

	db := filepath.Join(home, ".local", "share", "opencode", "opencode.db")
	evs := evimportEvents(t, opencodeAgent, home, db)
	checkPrompts(t, evs, "ok,ok,error")
	checkOpencodeTools(t, evs, s.Scripted())
	checkOpencodeCalls(t, evs, s.Exchanges(), opencodeOwnCosts(t, db))
}

// checkOpencodeTools holds the tool calls and results to the script's:
// each call the server made, with its result, the subagent's under its
// own agent_id, spawned by the task call.
func checkOpencodeTools(t *testing.T, evs []importedEvent, scripted []Exchange) {
	t.Helper()
	var want []string
	for _, x := range scripted {
		for _, c := range x.Tools {
			want = append(want, c.ID+" "+c.Name)
		}
	}
	var calls, results []string
	agents := map[string]string{}
	for _, e := range kinds(evs, "tool_call", "tool_result", "agent_spawned") {
		switch e.Kind {
		case "tool_call":
			calls = append(calls, e.Payload.ID+" "+e.Payload.Tool)
			agents[e.Payload.ID] = e.AgentID
		case "tool_result":
			if e.Payload.OK != nil && *e.Payload.OK {
				results = append(results, e.Payload.ID+" "+e.Payload.Tool)
			}
		case "agent_spawned":
			agents["spawned"] = e.AgentID
		}
	}
	slices.Sort(want)
	slices.Sort(calls)
	slices.Sort(results)
	if !slices.Equal(calls, want) || !slices.Equal(results, want) {
		t.Errorf("tool calls %v, results %v; the server made %v", calls, results, want)
	}
	sub := scripted[3].Tools[0].ID
	if agents[sub] == "main" || agents[sub] != agents["spawned"] || agents[scripted[2].Tools[0].ID] != "main" {
		t.Errorf("agents of the calls %v: the subagent's call %s is not its own", agents, sub)
	}
}

// checkOpencodeCalls holds the model calls to the server's: a call per
// request answered, its tokens those the server sent (opencode's input
// leaves the cache out and its output the reasoning: evimport puts them
// back), its cost opencode's own; the failed request a model_error.
func checkOpencodeCalls(t *testing.T, evs []importedEvent, exchanges []Exchange, own []float64) {
	t.Helper()
	var want, got []string
	for _, x := range exchanges {
		if x.Status == 200 && x.Complete && len(x.Request.Tools) > 0 {
			w := x.Usage
			want = append(want, fmt.Sprintf("in %d read %d out %d reasoning %d", w.Input, w.CacheRead, w.Output, w.Reasoning))
		}
	}
	var cost float64
	for _, e := range kinds(evs, "model_result") {
		p := e.Payload
		var out int64
		json.Unmarshal(p.Output, &out)
		got = append(got, fmt.Sprintf("in %d read %d out %d reasoning %d", p.Input, p.CacheRead, out, p.Reasoning))
		if p.CostUSD == nil || p.CostSource != "log" {
			t.Errorf("model_result %+v: cost not from the log", p)
		} else {
			cost += *p.CostUSD
		}
	}
	// opencode's calls name no response: the tokens read are held to
	// the server's as two sets, what is in one only being the drift
	if read, sent := without(got, want), without(want, got); len(read)+len(sent) > 0 {
		opencodeAgent.drift(t, "model calls' tokens read, not sent: %s; sent, not read: %s", strings.Join(read, ", "), strings.Join(sent, ", "))
	}
	var ownTotal float64
	for _, c := range own {
		ownTotal += c
	}
	if math.Abs(cost-ownTotal) > 1e-9 || ownTotal == 0 {
		t.Errorf("cost %.9f; opencode's own %.9f", cost, ownTotal)
	}
	errs := kinds(evs, "model_error")
	if len(errs) != 1 || !strings.Contains(errs[0].Payload.Message, "scripted failure") || !strings.HasSuffix(errs[0].RunID, "/3") {
		t.Errorf("model errors %+v", errs)
	}
	t.Logf("%d model calls, cost %.7f (opencode's %.7f)", len(got), cost, ownTotal)
}

// opencodeOwnCosts is the cost of each assistant message with tokens in
// opencode's database (a title's request writes none).
func opencodeOwnCosts(t *testing.T, db string) []float64 {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rows, err := h.Query(`SELECT json_extract(data, '$.cost') FROM message WHERE json_extract(data, '$.role') = 'assistant' AND json_extract(data, '$.tokens.total') > 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var costs []float64
	for rows.Next() {
		var c float64
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		costs = append(costs, c)
	}
	return costs
}

// without is a with each of b's taken out once, in a's order: what a
// holds more than b.
func without(a, b []string) []string {
	left := slices.Clone(b)
	var out []string
	for _, s := range a {
		if i := slices.Index(left, s); i >= 0 {
			left = slices.Delete(left, i, i+1)
		} else {
			out = append(out, s)
		}
	}
	return out
}
