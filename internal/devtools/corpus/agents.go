package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Session logs of other agents (docs/evimport.md): a home folder laid out
// as Claude Code, Codex, pi, Gemini CLI and opencode lay out theirs, for evimport's
// benchmarks against ccusage, which reads the same folders. Each agent's
// sessions are written with the duplicates of its own format, the ones
// evimport's rules are for: Claude's responses as one line per content
// block with the usage so far, its subagents' replays in progress lines;
// Codex's repeated token counts, forks that copy their parent's history
// and spawned agents; pi's trees; Gemini's messages written again as they
// grow and its rewinds.

// AgentKinds are the agents Agents can write the logs of, by the names
// of evimport's table of sources, in its order. This package cannot read
// the table (evimport's tests import it: a cycle), so evimport's
// TestCorpusKinds holds the two together; a source with no generator
// yet (Copilot CLI) is left out.
var AgentKinds = []string{"claude", "codex", "pi", "gemini", "opencode"}

// agentEpoch: the sessions spread over the 60 days after it.
var agentEpoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC).UnixMilli()

// Agents writes at least n bytes of kind's session logs under home (as
// the agent lays them out under a user's home folder). The same kind, n
// and seed always give the same files.
func Agents(home, kind string, n int64, seed uint64) error {
	return agents(home, kind, seed, func(g *agentGen) bool { return g.written < n })
}

// AgentSessions writes sessions of kind's session logs under home (a
// session and its subagents', as Agents writes them): a store of a known
// number of sessions, as opencode's benchmark reads.
func AgentSessions(home, kind string, sessions int, seed uint64) error {
	return agents(home, kind, seed, func(g *agentGen) bool { return g.sessions < sessions })
}

func agents(home, kind string, seed uint64, more func(*agentGen) bool) error {
	w := map[string]func(*agentGen){"claude": (*agentGen).claude, "codex": (*agentGen).codex, "pi": (*agentGen).pi, "gemini": (*agentGen).gemini, "opencode": (*agentGen).opencode}[kind]
	if w == nil {
		return fmt.Errorf("no agent %q (one of %s)", kind, strings.Join(AgentKinds, ", "))
	}
	g := &agentGen{home: home, clock: clock{r: rng{s: seed}}}
	for more(g) && g.err == nil {
		g.ms = agentEpoch + int64(g.sessions%60)*86_400_000 + int64(g.r.intn(10*3600_000))
		w(g)
		g.sessions++
	}
	g.opencodeClose()
	return g.err
}

type agentGen struct {
	clock
	home     string
	written  int64
	sessions int
	err      error
	oc       *opencodeStore // opencode's database, once opened
}

// file is one log being written.
type file struct {
	out
	f *os.File
}

func (g *agentGen) create(rel string) *file {
	path := filepath.Join(g.home, filepath.FromSlash(rel))
	if g.err == nil {
		g.err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	f := &file{}
	if g.err == nil {
		f.f, g.err = os.Create(path)
	}
	if f.f != nil {
		f.out = newOut(f.f)
	} else {
		f.out = newOut(discard{})
	}
	return f
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (g *agentGen) close(f *file) {
	f.flush()
	g.written += f.written
	if g.err == nil {
		g.err = f.err
	}
	if f.f != nil {
		if err := f.f.Close(); g.err == nil {
			g.err = err
		}
	}
}

// uuid is a random version-4 UUID.
func (g *agentGen) uuid() string {
	a, b := g.r.next(), g.r.next()
	s := fmt.Sprintf("%016x%016x", a, b)
	return s[0:8] + "-" + s[8:12] + "-4" + s[13:16] + "-8" + s[17:20] + "-" + s[20:32]
}

func (g *agentGen) hex(n int) string { return fmt.Sprintf("%016x", g.r.next())[:n] }

// rfc3339 is ms as the agents write their times.
func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

// The plan of a session, whatever agent writes it: prompts, and for each
// the model's steps, each with its thinking, its text and its tool calls.

type call struct {
	tool    string // shell, read, grep, edit, task
	arg     string // the command, path or pattern
	output  string
	failed  bool
	subSpan int // a task's subagent: its number of steps
}

type step struct {
	thinking, text               string
	calls                        []call
	input, cacheRead, cacheWrite int64
	output                       int64
}

// cost is the step's cost in USD at Claude Sonnet's prices, the cost the
// agents that log one (pi, opencode) write.
func (s step) cost() float64 {
	return float64(s.input)*3e-6 + float64(s.output)*15e-6 + float64(s.cacheRead)*0.3e-6 + float64(s.cacheWrite)*3.75e-6
}

type turn struct {
	prompt string
	steps  []step
}

var projects = []string{"shop", "api", "cli", "game", "colibri", "docs-site", "infra"}

var agentModels = map[string][]string{
	"claude": {"claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"},
	"codex":  {"gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-mini"},
	"pi":     {"claude-sonnet-4-5", "gpt-5.1-codex", "gemini-2.5-pro"},
	"gemini": {"gemini-2.5-pro", "gemini-2.5-flash"},
}

func (g *agentGen) toolCall() call {
	c := call{}
	switch n := g.r.intn(10); {
	case n < 4:
		c.tool, c.arg = "shell", pick(&g.r, bashCommands)
		var sb strings.Builder
		lines(&g.r, &sb, outputLines, g.r.between(1, 40))
		c.output, c.failed = sb.String(), g.r.oneIn(8)
	case n < 7:
		c.tool, c.arg = "read", pick(&g.r, goPaths)
		var sb strings.Builder
		if g.r.oneIn(20) {
			numbered(&g.r, &sb, 1, g.r.between(400, 1500)) // a whole large file
		} else {
			numbered(&g.r, &sb, g.r.between(1, 300), g.r.between(20, 160))
		}
		c.output = sb.String()
	case n < 9:
		c.tool, c.arg = "grep", pick(&g.r, grepPatterns)
		var sb strings.Builder
		grepLines(&g.r, &sb, g.r.between(1, 12))
		c.output = sb.String()
	default:
		c.tool, c.arg = "edit", pick(&g.r, goPaths)
		c.output = "The file " + c.arg + " has been updated."
		c.failed = g.r.oneIn(10)
	}
	return c
}

// plan makes a session of 3 to 30 prompts; context grows as it goes, as
// the cache-read counts of a real session do.
func (g *agentGen) plan(tasks bool) []turn {
	turns := make([]turn, g.r.between(3, 30))
	context := int64(g.r.between(9000, 16000))
	for i := range turns {
		t := &turns[i]
		t.prompt = pick(&g.r, prompts)
		t.steps = make([]step, g.r.between(1, 7))
		for j := range t.steps {
			s := &t.steps[j]
			if g.r.percent(60) {
				s.thinking = sentenceText(&g.r, g.r.between(1, 3))
			}
			last := j == len(t.steps)-1
			if last || g.r.oneIn(3) {
				s.text = sentenceText(&g.r, g.r.between(1, 6))
			}
			if !last {
				for k := g.r.between(1, 3); k > 0; k-- {
					c := g.toolCall()
					if tasks && g.r.oneIn(12) {
						c = call{tool: "task", arg: pick(&g.r, prompts), subSpan: g.r.between(1, 5)}
						c.output = sentenceText(&g.r, 2)
					}
					s.calls = append(s.calls, c)
				}
			}
			s.cacheWrite = int64(g.r.between(0, 3000))
			s.cacheRead = context
			s.input = int64(g.r.between(1, 40))
			s.output = int64(g.r.between(20, 900))
			context += s.cacheWrite + s.output + int64(g.r.between(200, 4000))
		}
		if context > 180_000 {
			context = int64(g.r.between(20000, 40000)) // compacted
		}
	}
	return turns
}

// subPlan is the steps of a subagent: tool calls, then a reply.
func (g *agentGen) subPlan(n int) []step {
	steps := make([]step, n)
	for i := range steps {
		s := &steps[i]
		if i == n-1 {
			s.text = sentenceText(&g.r, g.r.between(1, 3))
		} else {
			s.calls = []call{g.toolCall()}
		}
		s.input, s.cacheRead, s.cacheWrite = 3, int64(g.r.between(4000, 12000)), int64(g.r.between(0, 2000))
		s.output = int64(g.r.between(20, 400))
	}
	return steps
}

// --- Claude Code --------------------------------------------------------------

var claudeTools = map[string]string{"shell": "Bash", "read": "Read", "grep": "Grep", "edit": "Edit", "task": "Task"}

// claudeLog writes the lines of one Claude Code file: each line has the
// session's common members, then its own.
type claudeLog struct {
	g       *agentGen
	f       *file
	session string
	cwd     string
	agent   string // a subagent's id, "" for the main thread
	parent  string
}

func (l *claudeLog) begin(typ string, ms int64) string {
	u := l.g.uuid()
	o := &l.f.out
	o.raw(`{"parentUuid":`)
	o.strOrNull(l.parent)
	o.raw(`,"isSidechain":`)
	o.raw(strconv.FormatBool(l.agent != ""))
	o.raw(`,"userType":"external","cwd":`)
	o.str(l.cwd)
	o.raw(`,"sessionId":"` + l.session + `","version":"2.1.40","gitBranch":"main"`)
	if l.agent != "" {
		o.raw(`,"agentId":"` + l.agent + `"`)
	}
	o.raw(`,"type":"` + typ + `","uuid":"` + u + `","timestamp":"` + rfc3339(ms) + `"`)
	l.parent = u
	return u
}

func (l *claudeLog) end() { l.f.raw("}"); l.f.endLine() }

func (l *claudeLog) prompt(ms int64, text string) {
	l.begin("user", ms)
	l.f.raw(`,"message":{"role":"user","content":`)
	l.f.str(text)
	l.f.raw("}")
	l.end()
}

// message writes an assistant message with one content block (block, raw
// JSON) and the usage so far: Claude Code writes a response as one line
// per block, each with the output counted until then.
func (l *claudeLog) message(o *out, model, id, block, stop string, s step, output int64) {
	o.raw(`{"model":"` + model + `","id":"` + id + `","type":"message","role":"assistant","content":[` + block + `],"stop_reason":`)
	o.strOrNull(stop)
	o.raw(`,"stop_sequence":null,"usage":{"input_tokens":`)
	o.int(s.input)
	o.intAt("cache_creation_input_tokens", s.cacheWrite)
	o.intAt("cache_read_input_tokens", s.cacheRead)
	o.raw(`,"cache_creation":{"ephemeral_5m_input_tokens":`)
	o.int(s.cacheWrite)
	o.raw(`,"ephemeral_1h_input_tokens":0},"output_tokens":`)
	o.int(output)
	o.raw(`,"service_tier":"standard"}}`)
}

// blocks are a step's content blocks as JSON, and the ids of its calls.
func (l *claudeLog) blocks(s step) (blocks, ids []string) {
	if s.thinking != "" {
		blocks = append(blocks, `{"type":"thinking","thinking":`+quote(s.thinking)+`,"signature":"`+l.g.hex(16)+`"}`)
	}
	if s.text != "" {
		blocks = append(blocks, `{"type":"text","text":`+quote(s.text)+`}`)
	}
	for _, c := range s.calls {
		id := "toolu_01" + l.g.hex(16)
		ids = append(ids, id)
		var in string
		switch c.tool {
		case "shell":
			in = `{"command":` + quote(c.arg) + `,"description":"Run the command"}`
		case "read":
			in = `{"file_path":` + quote("/home/ana/src/"+c.arg) + `}`
		case "grep":
			in = `{"pattern":` + quote(c.arg) + `,"output_mode":"content"}`
		case "edit":
			in = `{"file_path":` + quote("/home/ana/src/"+c.arg) + `,"old_string":` + quote(pick(&l.g.r, codeLines)) + `,"new_string":` + quote(pick(&l.g.r, codeLines)) + `}`
		case "task":
			in = `{"description":"Look into it","prompt":` + quote(c.arg) + `,"subagent_type":"Explore"}`
		}
		blocks = append(blocks, `{"type":"tool_use","id":"`+id+`","name":"`+claudeTools[c.tool]+`","input":`+in+`}`)
	}
	return blocks, ids
}

func quote(s string) string { var o out; o.str(s); return string(o.b) }

// response writes one API response, a line per block; the model's
// message lines are also handed to replay (a subagent's, replayed in its
// parent's progress lines).
func (l *claudeLog) response(model string, s step, replay func(ms int64, req, msg string)) []string {
	blocks, ids := l.blocks(s)
	msgID, req := "msg_01"+l.g.hex(16), "req_011"+l.g.hex(16)
	ms := l.g.tick(1500, 20000)
	for i, b := range blocks {
		stop, sofar := "", int64(i+1)*3
		if i == len(blocks)-1 {
			stop, sofar = "end_turn", s.output
			if len(s.calls) > 0 {
				stop = "tool_use"
			}
		}
		l.begin("assistant", ms)
		l.f.raw(`,"requestId":"` + req + `","message":`)
		l.message(&l.f.out, model, msgID, b, stop, s, sofar)
		l.end()
		if replay != nil {
			var m out
			l.message(&m, model, msgID, b, stop, s, sofar)
			replay(ms, req, string(m.b))
		}
		ms += int64(l.g.r.between(5, 300))
	}
	l.g.ms = ms
	return ids
}

// result writes a tool's result line, with the toolUseResult Claude Code
// keeps beside it (for a read, the file's content again).
func (l *claudeLog) result(id string, c call, agent string) {
	l.begin("user", l.g.tick(50, 4000))
	l.f.raw(`,"message":{"role":"user","content":[{"tool_use_id":"` + id + `","type":"tool_result","content":`)
	l.f.str(c.output)
	l.f.raw(`,"is_error":` + strconv.FormatBool(c.failed) + `}]},"toolUseResult":`)
	switch c.tool {
	case "read":
		l.f.raw(`{"type":"text","file":{"filePath":`)
		l.f.str("/home/ana/src/" + c.arg)
		l.f.raw(`,"content":`)
		l.f.str(c.output)
		l.f.raw(`,"numLines":` + strconv.Itoa(strings.Count(c.output, "\n")) + `}}`)
	case "task":
		l.f.raw(`{"status":"completed","agentId":"` + agent + `","totalDurationMs":` + strconv.Itoa(l.g.r.between(2000, 90000)) + `}`)
	default:
		l.f.raw(`{"stdout":`)
		l.f.str(c.output)
		l.f.raw(`,"stderr":"","interrupted":false}`)
	}
	l.end()
}

func (g *agentGen) claude() {
	proj := pick(&g.r, projects)
	session := g.uuid()
	dir := ".claude/projects/-home-ana-src-" + proj + "/"
	main := &claudeLog{g: g, f: g.create(dir + session + ".jsonl"), session: session, cwd: "/home/ana/src/" + proj}
	models := agentModels["claude"]
	model := models[g.r.intn(2)]
	for _, t := range g.plan(true) {
		main.prompt(g.tick(20000, 600000), t.prompt)
		for _, s := range t.steps {
			ids := main.response(model, s, nil)
			for i, c := range s.calls {
				agent := ""
				if c.tool == "task" {
					agent = g.hex(7)
					g.claudeAgent(main, dir+session+"/subagents/agent-"+agent+".jsonl", agent, ids[i], c, models[2])
				}
				main.result(ids[i], c, agent)
			}
		}
	}
	g.close(main.f)
}

// claudeAgent writes a subagent's own file, and its responses replayed in
// progress lines of its parent's.
func (g *agentGen) claudeAgent(main *claudeLog, name, agent, callID string, c call, model string) {
	sub := &claudeLog{g: g, f: g.create(name), session: main.session, cwd: main.cwd, agent: agent}
	sub.prompt(g.tick(100, 900), c.arg)
	replay := func(ms int64, req, msg string) {
		main.begin("progress", ms)
		main.f.raw(`,"parentToolUseID":"` + callID + `","toolUseID":"agent_msg_` + g.hex(12) + `","data":{"type":"agent_progress","agentId":"` + agent + `","message":{"type":"assistant","requestId":"` + req + `","timestamp":"` + rfc3339(ms) + `","message":` + msg + `}}`)
		main.end()
	}
	for _, s := range g.subPlan(c.subSpan) {
		ids := sub.response(model, s, replay)
		for i, c := range s.calls {
			sub.result(ids[i], c, "")
		}
	}
	g.close(sub.f)
}

// --- Codex -----------------------------------------------------------------

// codexLog writes one rollout's records.
type codexLog struct {
	g *agentGen
	f *file
	// history is the records of the session so far, copied by a fork
	history []string
}

func (l *codexLog) rec(ms int64, typ, payload string) {
	line := `{"timestamp":"` + rfc3339(ms) + `","type":"` + typ + `","payload":` + payload + `}`
	l.f.line(line)
	l.history = append(l.history, payload)
}

func codexTokens(in, cached, out, reasoning int64) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`, in, cached, out, reasoning, in+out)
}

// codexRollout starts the rollout of session id, in a file named by the
// time it starts, with its session_meta record.
func (g *agentGen) codexRollout(id, cwd, extra, source string) *codexLog {
	t := time.UnixMilli(g.ms).UTC()
	l := &codexLog{g: g, f: g.create(".codex/sessions/" + t.Format("2006/01/02") + "/rollout-" + t.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl")}
	l.rec(g.ms, "session_meta", `{"id":"`+id+`","timestamp":"`+rfc3339(g.ms)+`"`+extra+`,"cwd":"`+cwd+`","originator":"codex_cli_rs","cli_version":"0.130.0","source":`+source+`,"model_provider":"openai"}`)
	return l
}

func (g *agentGen) codex() {
	id := "019c" + g.uuid()[4:]
	cwd := "/home/ana/src/" + pick(&g.r, projects)
	l := g.codexRollout(id, cwd, "", `"cli"`)
	l.rec(g.tick(10, 100), "response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>`+cwd+`</cwd>\n</environment_context>"}]}`)
	model := pick(&g.r, agentModels["codex"][:2])
	var total [4]int64
	turns := g.plan(true)
	forkAt := -1
	if len(turns) > 4 && g.r.oneIn(4) {
		forkAt = len(turns) / 2
	}
	for i, t := range turns {
		if i == forkAt {
			g.codexFork(l, id, cwd, model, total, turns[i:])
			break
		}
		g.codexTurn(l, model, t, &total, cwd, id)
	}
	g.close(l.f)
}

// codexTurn writes one prompt and the work on it, with a token count
// after each response (and now and then the same count again).
func (g *agentGen) codexTurn(l *codexLog, model string, t turn, total *[4]int64, cwd, id string) {
	turnID := g.hex(8)
	l.rec(g.tick(20000, 600000), "event_msg", `{"type":"task_started","turn_id":"`+turnID+`","model_context_window":258400}`)
	l.rec(g.tick(1, 20), "response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":`+quote(t.prompt)+`}]}`)
	l.rec(g.tick(1, 20), "event_msg", `{"type":"user_message","message":`+quote(t.prompt)+`,"images":[]}`)
	l.rec(g.tick(1, 20), "turn_context", `{"turn_id":"`+turnID+`","cwd":"`+cwd+`","approval_policy":"on-request","model":"`+model+`","effort":"medium"}`)
	l.rec(g.tick(100, 900), "event_msg", `{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":12.0,"window_minutes":300}}}`)
	for _, s := range t.steps {
		if s.thinking != "" {
			l.rec(g.tick(1000, 9000), "response_item", `{"type":"reasoning","summary":[{"type":"summary_text","text":`+quote(s.thinking)+`}],"content":null,"encrypted_content":"gAAAAB`+g.hex(16)+`"}`)
		}
		if s.text != "" {
			l.rec(g.tick(500, 9000), "response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":`+quote(s.text)+`}]}`)
		}
		var ids []string
		for _, c := range s.calls {
			callID := "call_" + g.hex(16)
			ids = append(ids, callID)
			switch c.tool {
			case "edit":
				l.rec(g.tick(200, 4000), "response_item", `{"type":"custom_tool_call","status":"completed","call_id":"`+callID+`","name":"apply_patch","input":`+quote("*** Begin Patch\n*** Update File: "+c.arg+"\n@@\n-"+pick(&g.r, codeLines)+"\n+"+pick(&g.r, codeLines)+"\n*** End Patch")+`}`)
			case "task":
				l.rec(g.tick(200, 4000), "response_item", `{"type":"function_call","name":"spawn_agent","arguments":`+quote(`{"agent_type":"explorer","message":`+quote(c.arg)+`}`)+`,"call_id":"`+callID+`"}`)
			default:
				l.rec(g.tick(200, 4000), "response_item", `{"type":"function_call","name":"shell","arguments":`+quote(`{"command":["bash","-lc",`+quote(c.arg)+`],"workdir":"`+cwd+`"}`)+`,"call_id":"`+callID+`"}`)
			}
		}
		in := s.input + s.cacheRead + s.cacheWrite
		reasoning := s.output / 3
		total[0] += in
		total[1] += s.cacheRead
		total[2] += s.output
		total[3] += reasoning
		count := `{"type":"token_count","info":{"total_token_usage":` + codexTokens(total[0], total[1], total[2], total[3]) + `,"last_token_usage":` + codexTokens(in, s.cacheRead, s.output, reasoning) + `,"model_context_window":258400},"rate_limits":{"primary":{"used_percent":14.0,"window_minutes":300}}}`
		l.rec(g.tick(5, 50), "event_msg", count)
		if g.r.oneIn(3) {
			l.rec(g.tick(5, 50), "event_msg", count) // the same totals again: a rate-limit update
		}
		for i, c := range s.calls {
			ms := g.tick(50, 4000)
			if c.tool == "task" {
				child := g.codexChild(id, cwd, model, c)
				l.rec(g.tick(50, 400), "response_item", `{"type":"function_call_output","call_id":"`+ids[i]+`","output":`+quote(`{"agent_id":"`+child+`","status":"completed"}`)+`}`)
				continue
			}
			code := 0
			if c.failed {
				code = 1
			}
			l.rec(ms, "event_msg", `{"type":"exec_command_end","call_id":"`+ids[i]+`","exit_code":`+strconv.Itoa(code)+`,"aggregated_output":`+quote(c.output)+`}`)
			out := fmt.Sprintf("Exit code: %d\nWall time: 0.%d seconds\nProcess exited with code %d\nOutput:\n%s", code, g.r.between(1, 9), code, c.output)
			typ := "function_call_output"
			if c.tool == "edit" {
				typ = "custom_tool_call_output"
			}
			l.rec(g.tick(1, 20), "response_item", `{"type":"`+typ+`","call_id":"`+ids[i]+`","output":`+quote(out)+`}`)
		}
	}
	l.rec(g.tick(10, 200), "event_msg", `{"type":"task_complete","turn_id":"`+turnID+`"}`)
}

// codexChild writes a spawned agent's rollout and returns its id.
func (g *agentGen) codexChild(parent, cwd, model string, c call) string {
	id := "019c" + g.uuid()[4:]
	start := g.ms
	l := g.codexRollout(id, cwd, "", `{"subagent":{"thread_spawn":{"parent_thread_id":"`+parent+`","depth":1,"agent_role":"explorer"}}}`)
	var total [4]int64
	g.codexTurn(l, agentModels["codex"][2], turn{prompt: c.arg, steps: g.subPlan(c.subSpan)}, &total, cwd, id)
	g.close(l.f)
	g.ms = max(g.ms, start+1000)
	return id
}

// codexFork writes a fork of the session: its own rollout, which starts
// with a copy of the parent's history (and token counts), then goes on.
func (g *agentGen) codexFork(parent *codexLog, parentID, cwd, model string, total [4]int64, rest []turn) {
	id := "019c" + g.uuid()[4:]
	g.tick(60000, 3600000)
	l := g.codexRollout(id, cwd, `,"forked_from_id":"`+parentID+`"`, `"cli"`)
	for _, p := range parent.history {
		l.rec(g.ms, typeOf(p), p)
	}
	for _, t := range rest {
		g.codexTurn(l, model, t, &total, cwd, id)
	}
	g.close(l.f)
}

// typeOf is the record type of a payload a rollout wrote.
func typeOf(payload string) string {
	switch {
	case strings.HasPrefix(payload, `{"id":`):
		return "session_meta"
	case strings.HasPrefix(payload, `{"turn_id":`):
		return "turn_context"
	case strings.HasPrefix(payload, `{"type":"message"`), strings.HasPrefix(payload, `{"type":"reasoning"`),
		strings.HasPrefix(payload, `{"type":"function_call`), strings.HasPrefix(payload, `{"type":"custom_tool_call`):
		return "response_item"
	}
	return "event_msg"
}

// --- pi ----------------------------------------------------------------------

func (g *agentGen) pi() {
	proj := pick(&g.r, projects)
	id := g.uuid()
	t := time.UnixMilli(g.ms).UTC()
	f := g.create(".pi/agent/sessions/--home-ana-src-" + proj + "--/" + t.Format("2006-01-02T15-04-05-000Z") + "_" + id + ".jsonl")
	parent := ""
	rec := func(ms int64, typ, rest string) string {
		eid := g.hex(8)
		f.raw(`{"type":"` + typ + `","id":"` + eid + `","parentId":`)
		f.strOrNull(parent)
		f.raw(`,"timestamp":"` + rfc3339(ms) + `"` + rest + "}")
		f.endLine()
		parent = eid
		return eid
	}
	f.raw(`{"type":"session","version":3,"id":"` + id + `","timestamp":"` + rfc3339(g.ms) + `","cwd":"/home/ana/src/` + proj + `"}`)
	f.endLine()
	model := pick(&g.r, agentModels["pi"])
	provider := map[string]string{"claude-sonnet-4-5": "anthropic", "gpt-5.1-codex": "openai", "gemini-2.5-pro": "google"}[model]
	rec(g.tick(5, 50), "model_change", `,"provider":"`+provider+`","modelId":"`+model+`"`)
	rec(g.tick(5, 50), "thinking_level_change", `,"thinkingLevel":"medium"`)
	var prompts []string // the parents of the prompts: a branch goes back to one
	for _, t := range g.plan(false) {
		if len(prompts) > 1 && g.r.oneIn(6) {
			parent = prompts[g.r.intn(len(prompts))] // back to an earlier point: a new branch
		}
		prompts = append(prompts, parent)
		ms := g.tick(20000, 600000)
		rec(ms, "message", `,"message":{"role":"user","content":[{"type":"text","text":`+quote(t.prompt)+`}],"timestamp":`+strconv.FormatInt(ms, 10)+`}`)
		for _, s := range t.steps {
			var content []string
			if s.thinking != "" {
				content = append(content, `{"type":"thinking","thinking":`+quote(s.thinking)+`}`)
			}
			if s.text != "" {
				content = append(content, `{"type":"text","text":`+quote(s.text)+`}`)
			}
			var ids []string
			for _, c := range s.calls {
				cid := "toolu_01" + g.hex(16)
				ids = append(ids, cid)
				content = append(content, `{"type":"toolCall","id":"`+cid+`","name":"`+map[string]string{"shell": "bash", "read": "read", "grep": "grep", "edit": "edit"}[c.tool]+`","arguments":{"command":`+quote(c.arg)+`}}`)
			}
			stop := "stop"
			if len(s.calls) > 0 {
				stop = "toolUse"
			}
			cost := s.cost()
			ms := g.tick(1500, 20000)
			rec(ms, "message", `,"message":{"role":"assistant","content":[`+strings.Join(content, ",")+`],"api":"anthropic-messages","provider":"`+provider+`","model":"`+model+`",`+
				fmt.Sprintf(`"usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":%d,"totalTokens":%d,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%.6f}}`, s.input, s.output, s.cacheRead, s.cacheWrite, s.input+s.output+s.cacheRead+s.cacheWrite, cost)+
				`,"stopReason":"`+stop+`","timestamp":`+strconv.FormatInt(ms, 10)+`}`)
			for i, c := range s.calls {
				ms := g.tick(50, 4000)
				rec(ms, "message", `,"message":{"role":"toolResult","toolCallId":"`+ids[i]+`","toolName":"bash","content":[{"type":"text","text":`+quote(c.output)+`}],"isError":`+strconv.FormatBool(c.failed)+`,"timestamp":`+strconv.FormatInt(ms, 10)+`}`)
			}
		}
		if g.r.oneIn(15) {
			rec(g.tick(1000, 5000), "compaction", `,"summary":`+quote(sentenceText(&g.r, 4))+`,"firstKeptEntryId":"`+parent+`","tokensBefore":`+strconv.Itoa(g.r.between(80000, 180000)))
		}
	}
	g.close(f)
}

// --- Gemini CLI -----------------------------------------------------------------

func (g *agentGen) gemini() {
	proj := pick(&g.r, projects)
	id := g.uuid()
	t := time.UnixMilli(g.ms).UTC()
	f := g.create(".gemini/tmp/" + proj + "/chats/session-" + t.Format("2006-01-02T15-04") + "-" + id[:8] + ".jsonl")
	line := f.line
	line(`{"sessionId":"` + id + `","projectHash":"` + g.hex(16) + g.hex(16) + `","startTime":"` + rfc3339(g.ms) + `","lastUpdated":"` + rfc3339(g.ms) + `","kind":"main"}`)
	model := pick(&g.r, agentModels["gemini"])
	n := 0
	for _, t := range g.plan(false) {
		n++
		uid := fmt.Sprintf("u-%s-%d", id[:8], n)
		line(`{"id":"` + uid + `","timestamp":"` + rfc3339(g.tick(20000, 600000)) + `","type":"user","content":[{"text":` + quote(t.prompt) + `}]}`)
		for j, s := range t.steps {
			mid := fmt.Sprintf("m-%s-%d-%d", id[:8], n, j)
			ms := g.tick(1500, 20000)
			var thoughts string
			if s.thinking != "" {
				thoughts = `{"subject":"Thinking","description":` + quote(s.thinking) + `,"timestamp":"` + rfc3339(ms) + `"}`
			}
			// first written as it starts, then again, whole, with the same id
			line(`{"id":"` + mid + `","timestamp":"` + rfc3339(ms) + `","type":"gemini","content":"","model":"` + model + `","thoughts":[` + thoughts + `]}`)
			var calls []string
			for _, c := range s.calls {
				status, out := "success", quote(c.output)
				resp := `{"output":` + out + `}`
				if c.failed {
					status, resp = "error", `{"error":`+out+`}`
				}
				name := map[string]string{"shell": "run_shell_command", "read": "read_file", "grep": "search_file_content", "edit": "replace"}[c.tool]
				cid := fmt.Sprintf("%s-%d-%s", name, ms, g.hex(4))
				calls = append(calls, `{"id":"`+cid+`","name":"`+name+`","args":{"command":`+quote(c.arg)+`},"status":"`+status+`","timestamp":"`+rfc3339(ms)+`","result":[{"functionResponse":{"id":"`+cid+`","name":"`+name+`","response":`+resp+`}}]}`)
			}
			in := s.input + s.cacheRead + s.cacheWrite
			thinkTok := s.output / 4
			line(`{"id":"` + mid + `","timestamp":"` + rfc3339(g.tick(100, 3000)) + `","type":"gemini","content":` + quote(s.text) + `,"model":"` + model + `","thoughts":[` + thoughts + `],"toolCalls":[` + strings.Join(calls, ",") +
				fmt.Sprintf(`],"tokens":{"input":%d,"output":%d,"cached":%d,"thoughts":%d,"tool":0,"total":%d}}`, in, s.output, s.cacheRead, thinkTok, in+s.output+thinkTok))
		}
		line(`{"$set":{"lastUpdated":"` + rfc3339(g.ms) + `"}}`)
		if g.r.oneIn(10) {
			line(`{"$rewindTo":"` + uid + `"}`) // the user went back: this prompt and its answers are gone
		}
	}
	g.close(f)
}
