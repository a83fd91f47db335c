package corpus

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// envEpoch is when generated envelope logs start (Unix milliseconds).
var envEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// Kinds are the event kinds of a multi-agent run log, in the order
// docs/formats.md lists them.
var Kinds = []string{
	"user_message", "run_started", "parent_decision", "agent_spawned", "agent_finished",
	"model_call", "model_result", "tool_call", "tool_result", "guardrail",
	"model_error", "killed", "assistant_message", "run_error", "run_finished",
}

// Envelope writes an envelope log in the multi-agent run-log vocabulary
// (docs/formats.md), at least n bytes, whole runs only,
// determined by seed. Keys come in the order seq, ts, run_id, agent_id,
// kind, payload.
//
// seq counts from 1 over the whole log and ts (Unix seconds) only grows.
// Most runs are clean; some fail (model_error, run_error), some are killed,
// some agents meet a guardrail. Every run ends with exactly one
// run_finished, right after its assistant_message or run_error.
func Envelope(w io.Writer, n int64, seed uint64) error {
	g := &envGen{gen: newGen(w, seed, envEpoch)}
	return g.writeRuns(n, g.run)
}

type envGen struct {
	gen
	seq    int64
	runID  string
	tokens int // tokens spent by the current run
	model  modelRef
}

type modelRef struct{ provider, baseURL, model string }

var models = []modelRef{
	{"deepseek", "https://api.deepseek.com/v1", "deepseek-v4-pro"},
	{"deepseek", "https://api.deepseek.com/v1", "deepseek-v4-flash"},
	{"anthropic", "https://api.anthropic.com", "claude-sonnet-4-6"},
	{"openai", "https://api.openai.com/v1", "gpt-5.1-mini"},
	{"ollama", "http://127.0.0.1:11434/v1", "qwen3-coder:30b"},
}

type specialist struct {
	id, bundle, version string // bundle "" is an invented role: null
	intent              string // the one the parent planned
	tools               []string
	requireTool         string
	readOnly            bool
	intents             []string
}

var specialists = []specialist{
	{"code-reviewer", "code-reviewer", "1.4.2", "", []string{"read_file", "list_dir", "grep"}, "read_file", true,
		[]string{"review the diff of the last commit for bugs and style", "check error handling in internal/server", "review the rename of fetchUser"}},
	{"test-runner", "test-runner", "0.9.0", "", []string{"run_tests", "read_file", "shell"}, "run_tests", true,
		[]string{"run the test suite and report failures", "run the tests of internal/server with -race", "reproduce the failing TestParseHeader"}},
	{"doc-writer", "doc-writer", "2.1.0", "", []string{"read_file", "list_dir", "write_file"}, "", false,
		[]string{"document the cache in docs/cache.md", "update the README for the --json flag", "write the changelog entry"}},
	{"security-auditor", "security-auditor", "1.0.3", "", []string{"read_file", "grep", "shell"}, "grep", true,
		[]string{"look for secrets and unsafe shell calls", "audit the token parsing in pkg/auth"}},
	{"migration-planner", "", "", "", []string{"read_file", "list_dir", "grep"}, "", true,
		[]string{"plan the move of the config loader to koanf", "list what breaks when Go 1.26 becomes the minimum"}},
}

// ts writes the clock as Unix seconds with up to three decimals.
func (g *envGen) ts() { g.fixed(g.ms, 3) }

// ev starts an event line; the payload's fields follow, then end.
func (g *envGen) ev(agent, kind string) {
	g.seq++
	g.tick(1, 40)
	g.raw(`{"seq":`)
	g.int(g.seq)
	g.raw(`,"ts":`)
	g.ts()
	g.raw(`,"run_id":"`)
	g.raw(g.runID)
	g.raw(`","agent_id":`)
	g.str(agent)
	g.raw(`,"kind":"`)
	g.raw(kind)
	g.raw(`","payload":{`)
}

// evStep starts an event of an agent's step: its payload's first member
// is the step.
func (g *envGen) evStep(agent, kind string, step int) {
	g.ev(agent, kind)
	g.raw(`"step":`)
	g.int(int64(step))
}

func (g *envGen) end() {
	g.raw("}}")
	g.endLine()
}

func (g *envGen) strs(xs []string) {
	g.raw("[")
	for i, x := range xs {
		if i > 0 {
			g.raw(",")
		}
		g.str(x)
	}
	g.raw("]")
}

// strOrNullAt is strOrNull for a member after an object's first.
func (g *envGen) strOrNullAt(name, s string) { g.key(name); g.strOrNull(s) }

// seconds writes a duration in milliseconds as seconds with two decimals.
func (g *envGen) seconds(ms int64) { g.fixed(ms/10, 2) }

func (g *envGen) newRunID() {
	var b [10]byte
	b[0], b[1] = 'r', '_'
	v := g.r.next()
	for i := 2; i < 10; i++ {
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	g.runID = string(b[:])
}

// fate is how a run or an agent ends.
type fate int

const (
	fateOK fate = iota
	fateError
	fateKilled
	fateMaxSteps
	fateRefused
)

func (g *envGen) run() {
	r := &g.r
	g.newRunID()
	g.tokens = 0
	g.tick(30_000, 1_800_000)
	start := g.ms
	g.model = pick(r, models)
	f := fateOK
	switch x := r.intn(100); {
	case x < 7:
		f = fateError
	case x < 12:
		f = fateKilled
	case x < 14:
		f = fateMaxSteps
	}

	g.ev("", "user_message")
	g.raw(`"text":`)
	g.str(pick(r, prompts))
	g.end()

	if r.percent(25) {
		g.agentRun(start, f)
		return
	}
	g.ev("", "run_started")
	g.raw(`"mode":"parent","workspace":"/home/sam/src/colibri","version":"0.9.3",`)
	g.modelObject()
	g.raw(`,"specialists":["code-reviewer","test-runner","doc-writer","security-auditor"],"dynamic_roles":true,"read_only":`)
	g.bool(r.oneIn(5))
	g.end()

	g.modelCall("parent", 1, "decide")
	if f == fateError && r.oneIn(3) {
		g.modelError("parent", 1)
		g.runEnd(start, "error", "error")
		return
	}
	g.modelResult("parent", 1, "final")

	switch x := r.intn(100); {
	case x < 10 && f == fateOK:
		g.decision("chat", nil)
		g.assistant("parent", "parent", 1)
		g.runEnd(start, "ok", "")
		return
	case x < 15 && f == fateOK:
		g.decision("clarify", nil)
		g.assistant("parent", "clarify", 1)
		g.runEnd(start, "ok", "")
		return
	}
	plan := make([]specialist, 0, 3)
	for k := r.between(1, 3); k > 0; k-- {
		s := pick(r, specialists)
		dup := false
		for _, p := range plan {
			dup = dup || p.id == s.id
		}
		if !dup {
			s.intent = pick(r, s.intents)
			plan = append(plan, s)
		}
	}
	g.decision("agents", plan)
	victim := r.intn(len(plan)) // the agent that fails or is killed, if one does
	for i, s := range plan {
		af := fateOK
		if i == victim {
			af = f
		}
		if af == fateOK && s.requireTool != "" && r.oneIn(8) {
			af = fateRefused
		}
		outcome := g.agent(s, plan[:i], af)
		switch outcome {
		case "error":
			g.runEnd(start, "error", "error")
			return
		case "killed":
			for _, rest := range plan[i+1:] {
				g.ev(rest.id, "agent_finished")
				g.raw(`"outcome":"skipped","answer":null,"error":null,"tokens":0,"wall_seconds":0.0`)
				g.end()
			}
			g.runEnd(start, "killed", "killed")
			return
		case "max_steps":
			g.runEnd(start, "max_steps", "max_steps")
			return
		}
	}
	g.modelCall("parent", 2, "synthesize")
	g.modelResult("parent", 2, "final")
	g.assistant("parent", "synth", r.between(3, 14))
	g.runEnd(start, "ok", "")
}

// agentRun is a run in agent mode: one bundle, no parent.
func (g *envGen) agentRun(start int64, f fate) {
	r := &g.r
	s := pick(r, specialists[:4])
	g.ev("", "run_started")
	g.raw(`"mode":"agent","workspace":"/home/sam/src/colibri","bundle":`)
	g.str(s.bundle)
	g.strAt("version", s.version)
	g.raw(",")
	g.modelObject()
	g.end()
	outcome := g.loop(s, f, g.ms)
	switch outcome {
	case "ok", "refused":
		g.assistant(s.id, "agent", r.between(1, 6))
		g.runEnd(start, "ok", "")
	default:
		g.runEnd(start, outcome, outcome)
	}
}

func (g *envGen) modelObject() {
	g.raw(`"model":{"provider":`)
	g.str(g.model.provider)
	g.strAt("base_url", g.model.baseURL)
	g.strAt("model", g.model.model)
	if g.r.oneIn(4) {
		g.raw(`,"source":"env","reason":"EVRUN_MODEL is set"}`)
	} else {
		g.raw(`,"source":"config","reason":"workspace .agents/config.toml"}`)
	}
}

func (g *envGen) decision(kind string, plan []specialist) {
	r := &g.r
	g.ev("parent", "parent_decision")
	g.word("decision", kind)
	g.raw(`,"reason":`)
	switch kind {
	case "chat":
		g.str("a question about the code that needs no tools")
		g.strAt("reply", pick(r, sentences))
		g.raw(`,"agents":[]`)
	case "clarify":
		g.str("the request names no branch and two match")
		g.raw(`,"reply":"Which branch do you mean, main or release/0.9?","agents":[]`)
	default:
		g.str(pick(r, []string{
			"needs a review and a test run before answering",
			"touches code and docs; split by specialty",
			"a change request: review, then document",
		}))
		g.raw(`,"reply":null,"agents":[`)
		for i, s := range plan {
			if i > 0 {
				g.raw(",")
			}
			g.raw(`{"id":`)
			g.str(s.id)
			g.strAt("role", s.id)
			g.strOrNullAt("bundle", s.bundle)
			g.strAt("intent", s.intent)
			g.raw(`,"depends_on":`)
			g.dependsOn(plan[:i])
			g.raw("}")
		}
		g.raw("]")
	}
	g.end()
}

// dependsOn makes an agent depend on the one planned just before it, which
// is how reviews then docs are usually chained.
func (g *envGen) dependsOn(before []specialist) {
	if len(before) == 0 {
		g.raw("[]")
		return
	}
	g.raw(`[`)
	g.str(before[len(before)-1].id)
	g.raw(`]`)
}

// agent spawns one agent of a parent run, runs it and reports how it
// ended.
func (g *envGen) agent(s specialist, before []specialist, f fate) string {
	g.ev(s.id, "agent_spawned")
	g.raw(`"parent_id":"parent","role":`)
	g.str(s.id)
	g.strOrNullAt("bundle", s.bundle)
	g.strOrNullAt("version", s.version)
	g.strAt("intent", s.intent)
	g.raw(`,"depends_on":`)
	g.dependsOn(before)
	g.raw(`,"tools":`)
	g.strs(s.tools)
	g.strOrNullAt("require_tool", s.requireTool)
	g.strAt("model", g.model.model)
	g.raw(`,"budget":{"max_steps":12,"max_tokens":60000,"wall_seconds":600},"config":{"temperature":0.2,"max_output_tokens":4096},"read_only":`)
	g.bool(s.readOnly)
	g.end()
	return g.loop(s, f, g.ms)
}

// loop is an agent's steps: model calls and tool calls until an answer,
// an error, a kill or the step budget. It ends with agent_finished and
// returns its outcome.
func (g *envGen) loop(s specialist, f fate, start int64) string {
	r := &g.r
	tokens := 0
	steps := r.between(1, 6)
	if f == fateMaxSteps {
		steps = 12
	}
	stopAt := r.between(1, steps)
	step := 0
	guard := s.requireTool != "" && (f == fateRefused || f == fateOK && r.oneIn(6))
	usedRequired := false
	outcome, answer, errText := "ok", "", ""
	for {
		step++
		if guard && step == 1 {
			// the model answered without the tool it must use
			g.modelCall(s.id, step, "act")
			tokens += g.modelResult(s.id, step, "final")
			g.guardrail(s, step, "reprompt")
			if f == fateRefused {
				step++
				g.modelCall(s.id, step, "act")
				tokens += g.modelResult(s.id, step, "final")
				g.guardrail(s, step, "refused")
				outcome, errText = "refused", "answered without calling "+s.requireTool+" twice"
				break
			}
			continue
		}
		if (f == fateError || f == fateKilled) && step == stopAt {
			if f == fateError {
				g.modelCall(s.id, step, "act")
				g.modelError(s.id, step)
				outcome, errText = "error", "model call failed"
			} else {
				g.killed(s.id, step)
				outcome, errText = "killed", "killed"
			}
			break
		}
		if step > steps && f == fateMaxSteps {
			outcome, errText = "max_steps", "step budget of 12 exhausted"
			break
		}
		g.modelCall(s.id, step, "act")
		if step > steps {
			tokens += g.modelResult(s.id, step, "final")
			answer = sentenceText(r, r.between(1, 4))
			break
		}
		tokens += g.modelResult(s.id, step, "tool_call")
		tool := s.tools[r.intn(len(s.tools))]
		if !usedRequired && s.requireTool != "" {
			tool, usedRequired = s.requireTool, true
		}
		g.toolCall(s.id, step, tool)
	}
	g.ev(s.id, "agent_finished")
	g.raw(`"outcome":`)
	g.str(outcome)
	g.strOrNullAt("answer", answer)
	g.strOrNullAt("error", errText)
	g.intAt("tokens", int64(tokens))
	g.raw(`,"wall_seconds":`)
	g.seconds(g.ms - start)
	g.end()
	return outcome
}

func (g *envGen) modelCall(agent string, step int, purpose string) {
	g.evStep(agent, "model_call", step)
	g.strAt("provider", g.model.provider)
	g.strAt("model", g.model.model)
	g.raw(`,"purpose":"`)
	g.raw(purpose)
	g.raw(`"`)
	g.end()
}

// modelResult reports a model response and returns its tokens.
func (g *envGen) modelResult(agent string, step int, decision string) int {
	r := &g.r
	latency := r.between(350, 9000)
	g.ms += int64(latency)
	prompt := r.between(900, 24000)
	completion := r.between(12, 1400)
	g.evStep(agent, "model_result", step)
	g.raw(`,"decision_kind":"`)
	g.raw(decision)
	g.raw(`","tokens":`)
	g.int(int64(prompt + completion))
	g.intAt("prompt_tokens", int64(prompt))
	g.intAt("completion_tokens", int64(completion))
	g.raw(`,"cost_usd":`)
	g.fixed(int64(prompt*27+completion*110), 8)
	g.intAt("latency_ms", int64(latency))
	g.strAt("provider", g.model.provider)
	g.strAt("model", g.model.model)
	g.raw(`,"shimmed":`)
	g.bool(g.model.provider == "ollama")
	g.end()
	g.tokens += prompt + completion
	return prompt + completion
}

func (g *envGen) toolCall(agent string, step int, tool string) {
	r := &g.r
	g.evStep(agent, "tool_call", step)
	g.strAt("tool", tool)
	g.raw(`,"args":{`)
	switch tool {
	case "read_file":
		g.raw(`"path":`)
		g.str(pick(r, goPaths))
	case "list_dir":
		g.raw(`"root":`)
		g.str(pick(r, []string{".", "internal", "internal/server", "pkg/auth", "docs"}))
	case "grep":
		g.raw(`"pattern":`)
		g.str(pick(r, grepPatterns))
		g.strAt("root", pick(r, []string{".", "internal", "pkg"}))
	case "run_tests":
		g.raw(`"argv":`)
		g.strs(pick(r, [][]string{
			{"go", "test", "./..."},
			{"go", "test", "-race", "./internal/server/..."},
			{"go", "test", "-run", "TestParseHeader", "-v", "./internal/server"},
		}))
	case "shell":
		g.raw(`"command":`)
		g.str(pick(r, bashCommands))
	case "write_file":
		g.raw(`"path":`)
		g.str(pick(r, []string{"docs/cache.md", "README.md", "CHANGELOG.md"}))
		g.intAt("bytes", int64(r.between(200, 6000)))
	}
	g.raw("}")
	g.end()

	g.tick(5, 20_000)
	ok := !r.oneIn(10)
	g.evStep(agent, "tool_result", step)
	g.strAt("tool", tool)
	g.raw(`,"ok":`)
	g.bool(ok)
	if !ok {
		g.raw(`,"error":`)
		g.str(pick(r, []string{
			"open internal/server/parse.go: no such file or directory",
			"command exited with status 1",
			"path escapes the workspace: ../../etc/passwd",
			"write refused: agent is read-only",
		}))
	} else if r.percent(30) {
		// an excerpt of the output; sometimes several KB of it
		var sb strings.Builder
		if r.oneIn(6) {
			numbered(r, &sb, 1, r.between(40, 120))
		} else {
			lines(r, &sb, outputLines, r.between(1, 8))
		}
		g.strAt("output", sb.String())
	}
	g.end()
}

func (g *envGen) guardrail(s specialist, step int, action string) {
	g.evStep(s.id, "guardrail", step)
	g.raw(`,"rule":"require_tool","tool":`)
	g.str(s.requireTool)
	g.raw(`,"action":"`)
	g.raw(action)
	g.raw(`","skipped_answer":`)
	g.str(pick(&g.r, []string{
		"The tests should pass; the change is small.",
		"Looks fine to me, no issues found.",
		"I believe there are no secrets in the repository.",
	}))
	g.end()
}

var modelErrors = [][3]string{
	{"http_429", "Rate limit reached for requests", "wait a minute or lower the number of parallel agents"},
	{"http_401", "Authentication Fails, Your api key: ****abcd is invalid", "check DEEPSEEK_API_KEY"},
	{"timeout", "no response within 120 s", "the provider may be overloaded; retry"},
	{"bad_response", "expected a JSON object, got \"I'm sorry, I can't…\"", "the model ignored the tool schema; try a larger model"},
	{"http_500", "internal server error", ""},
}

func (g *envGen) modelError(agent string, step int) {
	e := pick(&g.r, modelErrors)
	g.tick(100, 120_000)
	g.evStep(agent, "model_error", step)
	g.strAt("error", e[0])
	g.strAt("message", e[1])
	g.strOrNullAt("hint", e[2])
	g.strAt("provider", g.model.provider)
	g.strAt("model", g.model.model)
	g.end()
}

func (g *envGen) killed(agent string, step int) {
	g.evStep(agent, "killed", step)
	g.raw(`,"reason":`)
	g.str(pick(&g.r, []string{
		"kill requested by user",
		"token budget exceeded (61 204 > 60 000)",
		"loop detected: read_file internal/server/handler.go repeated 3 times",
	}))
	g.end()
}

func (g *envGen) assistant(agent, source string, sentencesN int) {
	r := &g.r
	g.ev(agent, "assistant_message")
	g.raw(`"text":`)
	g.str(sentenceText(r, sentencesN))
	g.raw(`,"output":`)
	if source == "agent" && r.oneIn(3) {
		// the bundle sets a response_schema
		g.raw(`{"verdict":`)
		g.str(pick(r, []string{"approve", "request_changes"}))
		g.raw(`,"issues":[{"file":`)
		g.str(pick(r, goPaths))
		g.intAt("line", int64(r.between(1, 400)))
		g.raw(`,"severity":"minor","note":`)
		g.str(pick(r, sentences))
		g.raw(`}]}`)
	} else {
		g.raw("null")
	}
	g.raw(`,"source":"`)
	g.raw(source)
	g.raw(`"`)
	g.end()
}

// runEnd writes run_error (when stopped is set) and the run's one
// run_finished.
func (g *envGen) runEnd(start int64, outcome, stopped string) {
	if stopped != "" {
		g.ev("", "run_error")
		g.word("stopped", stopped)
		g.raw(`,"error":`)
		switch stopped {
		case "killed":
			g.raw(`"the run was killed","hint":null`)
		case "max_steps":
			g.raw(`"an agent used its 12 steps without an answer","hint":"raise budget.max_steps or narrow the request"`)
		default:
			g.raw(`"model call failed","hint":"see the model_error event before this one"`)
		}
		g.end()
	}
	g.ev("", "run_finished")
	g.raw(`"outcome":`)
	g.str(outcome)
	g.intAt("tokens", int64(g.tokens))
	g.raw(`,"wall_seconds":`)
	g.seconds(g.ms - start)
	g.end()
}

// HugeRun is a run's events (a model result, a tool call, its end) with
// a run_id of about n bytes, s repeated, and that id: the tests of how
// much memory a huge value costs, and of values written in pieces.
func HugeRun(s string, n int) (id string, lines [][]byte) {
	id = strings.Repeat(s, n/len(s))
	for i, ev := range []string{
		`"kind":"model_result","payload":{"tokens":5,"cost_usd":0.1}`,
		`"kind":"tool_call","payload":{"tool":"bash"}`,
		`"kind":"run_finished","payload":{"outcome":"ok","wall_seconds":1}`,
	} {
		lines = append(lines, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"%s","agent_id":"a",%s}`, i+1, 1793520000+i, id, ev))
	}
	return id, lines
}
