package ev2otlp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ev2otlp runs the tool in-process on stdin and returns what it wrote
// and its exit status.
func ev2otlp(t testing.TB, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code = Main(args, cli.Stdio{In: stdin, Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The span tree of the multi-agent example: each run a trace whose root is
// the parent's invoke_agent, the parent's model calls under it, each
// agent it spawned an invoke_agent under it with the agent's model and
// tool calls inside, failures as ERROR with error.type, the guardrail,
// the kill and the decision as span events, and the agent the kill left
// skipped as an instant.
func TestMultiagentTree(t *testing.T) {
	out, stderr, code := ev2otlp(t, nil, "../../../examples/events/multiagent.jsonl")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byTrace, order := traces(decodeAll(t, []byte(out)))
	var got strings.Builder
	for _, id := range order {
		got.WriteString(spanTree(byTrace[id], "error.type", "evtools.outcome", "gen_ai.tool.name") + "--\n")
	}
	want := `invoke_agent parent evtools.outcome=ok <evtools.decision>
  chat deepseek-v4-pro
  invoke_agent code-reviewer evtools.outcome=ok
    chat deepseek-v4-pro
    execute_tool grep gen_ai.tool.name=grep
    chat deepseek-v4-pro
    execute_tool read_file gen_ai.tool.name=read_file
    chat deepseek-v4-pro
    execute_tool list_dir gen_ai.tool.name=list_dir
    chat deepseek-v4-pro
  invoke_agent test-runner evtools.outcome=ok <evtools.guardrail>
    chat deepseek-v4-pro
    chat deepseek-v4-pro
    execute_tool run_tests gen_ai.tool.name=run_tests
    chat deepseek-v4-pro
  chat deepseek-v4-pro
--
invoke_agent parent evtools.outcome=ok <evtools.decision>
  chat deepseek-v4-pro
--
invoke_agent parent [Error] error.type=error evtools.outcome=error <evtools.decision> <exception>
  chat deepseek-v4-pro
  invoke_agent doc-writer [Error] error.type=error evtools.outcome=error
    chat deepseek-v4-pro
    execute_tool list_dir gen_ai.tool.name=list_dir
    chat deepseek-v4-pro [Error] error.type=model_error
--
invoke_agent parent [Error] error.type=killed evtools.outcome=killed <evtools.decision> <exception>
  chat deepseek-v4-pro
  invoke_agent security-auditor [Error] error.type=killed evtools.outcome=killed <evtools.kill>
    chat deepseek-v4-pro
    execute_tool grep gen_ai.tool.name=grep
    chat deepseek-v4-pro
    execute_tool read_file gen_ai.tool.name=read_file
    chat deepseek-v4-pro
    execute_tool read_file gen_ai.tool.name=read_file
    chat deepseek-v4-pro
    execute_tool read_file gen_ai.tool.name=read_file
  invoke_agent code-reviewer evtools.outcome=skipped
--
`
	if got.String() != want {
		t.Errorf("span trees:\n%s\nwant:\n%s", got.String(), want)
	}
}

// evimport's output of a Claude Code session whose main agent started two
// subagents with two Task calls of one response: each subagent nests
// under the call that spawned it, the session is the conversation, the
// source the service, the project the workspace; a failed call followed
// by another is a retry on the agent's span.
func TestEvimportSubagents(t *testing.T) {
	out, stderr, code := ev2otlp(t, nil, "testdata/claude.jsonl")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	all := decodeAll(t, []byte(out))
	byTrace, order := traces(all)
	if len(order) != 1 {
		t.Fatalf("%d traces, want 1", len(order))
	}
	got := spanTree(byTrace[order[0]], "error.type", "gen_ai.tool.call.id", "evtools.agent_id")
	want := `invoke_agent main
  chat claude-sonnet-4-5-20250929
  execute_tool Task gen_ai.tool.call.id=toolu_01Task1
    invoke_agent Explore evtools.agent_id=Explore:a1
      chat claude-haiku-4-5-20251001
      execute_tool Grep gen_ai.tool.call.id=toolu_01Grep1
      chat claude-haiku-4-5-20251001
  execute_tool Task gen_ai.tool.call.id=toolu_01Task2
    invoke_agent Explore evtools.agent_id=Explore:b2 <evtools.retry>
      chat claude-haiku-4-5-20251001 [Error] error.type=model_error
      chat claude-haiku-4-5-20251001
  chat claude-sonnet-4-5-20250929
`
	if got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	for _, td := range all {
		eachSpan(td, func(res pcommon.Resource, s ptrace.Span) {
			for k, v := range map[string]string{"service.name": "claude", "service.version": "2.1.40", "evtools.workspace": "/home/lee/src/shop"} {
				if got, _ := res.Attributes().Get(k); got.AsString() != v {
					t.Errorf("span %s: resource %s = %q, want %q", s.Name(), k, got.AsString(), v)
				}
			}
			if s.ParentSpanID().IsEmpty() {
				if got, _ := s.Attributes().Get("gen_ai.conversation.id"); got.AsString() != "9d0c1e7a-5b2f-4c88-a1e3-7f6d2b4c9e10" {
					t.Errorf("root: gen_ai.conversation.id = %q", got.AsString())
				}
			}
		})
	}
}

// A chat span carries what the model call used, as the GenAI conventions
// name it: the first call of the session above.
func TestChatAttributes(t *testing.T) {
	out, _, _ := ev2otlp(t, nil, "testdata/claude.jsonl")
	var chat ptrace.Span
	for _, td := range decodeAll(t, []byte(out)) {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			if s.Name() == "chat claude-sonnet-4-5-20250929" && chat == (ptrace.Span{}) {
				chat = s
			}
		})
	}
	if chat == (ptrace.Span{}) {
		t.Fatal("no chat span")
	}
	if chat.Kind() != ptrace.SpanKindClient {
		t.Errorf("kind %s, want Client", chat.Kind())
	}
	if got, want := chat.EndTimestamp()-chat.StartTimestamp(), pcommon.Timestamp(2_900_000_000); got != want {
		t.Errorf("lasted %d ns, want %d (call to result)", got, want)
	}
	want := map[string]string{
		"gen_ai.operation.name":                 "chat",
		"gen_ai.provider.name":                  "anthropic",
		"gen_ai.request.model":                  "claude-sonnet-4-5-20250929",
		"gen_ai.usage.input_tokens":             "16053",
		"gen_ai.usage.output_tokens":            "120",
		"gen_ai.usage.cache_read.input_tokens":  "14000",
		"gen_ai.usage.cache_write.input_tokens": "2048",
		"gen_ai.response.finish_reasons":        `["tool_use"]`,
		"evtools.cost_usd":                      "0.013695",
	}
	for k, v := range want {
		got, ok := chat.Attributes().Get(k)
		if !ok {
			t.Errorf("no %s, want %q", k, v)
		} else if got.AsString() != v {
			t.Errorf("%s = %q, want %q", k, got.AsString(), v)
		}
	}
	if v, _ := chat.Attributes().Get("gen_ai.usage.input_tokens"); v.Type() != pcommon.ValueTypeInt {
		t.Errorf("input tokens of type %s, want Int", v.Type())
	}
	if _, ok := chat.Attributes().Get("gen_ai.usage.cache_creation.input_tokens"); ok {
		t.Error("gen_ai.usage.cache_creation.input_tokens: renamed gen_ai.usage.cache_write.input_tokens")
	}
}

// invoke_agent spans, the run's and the subagents' (INTERNAL: agents in
// the same log), carry none of what the GenAI conventions took off them:
// the provider, an agent id (now a hosted agent's only: a subagent's
// instance id is evtools.agent_id), a version, cache counts.
func TestInvokeAgentAttributes(t *testing.T) {
	out, _, _ := ev2otlp(t, nil, "testdata/claude.jsonl")
	removed := []string{"gen_ai.provider.name", "gen_ai.agent.id", "gen_ai.agent.version",
		"gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write.input_tokens"}
	agents := 0
	for _, td := range decodeAll(t, []byte(out)) {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			if op, _ := s.Attributes().Get("gen_ai.operation.name"); op.AsString() != "invoke_agent" {
				return
			}
			agents++
			if s.Kind() != ptrace.SpanKindInternal {
				t.Errorf("%s: kind %s, want Internal", s.Name(), s.Kind())
			}
			for _, k := range removed {
				if v, ok := s.Attributes().Get(k); ok {
					t.Errorf("%s: %s = %q, no longer an attribute of an internal invoke_agent span", s.Name(), k, v.AsString())
				}
			}
			if name, _ := s.Attributes().Get("gen_ai.agent.name"); name.AsString() == "" {
				t.Errorf("%s: no gen_ai.agent.name", s.Name())
			}
		})
	}
	if agents != 3 {
		t.Errorf("%d invoke_agent spans, want 3 (the run, two subagents)", agents)
	}
}

// Tool arguments and results are opt-in (--content), and --redact takes
// the secrets out of them and says so on stderr.
func TestContent(t *testing.T) {
	attrsOf := func(out string, tool string) map[string]string {
		m := map[string]string{}
		for _, td := range decodeAll(t, []byte(out)) {
			eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
				if s.Name() == "execute_tool "+tool {
					s.Attributes().Range(func(k string, v pcommon.Value) bool { m[k] = v.AsString(); return true })
				}
			})
		}
		return m
	}
	out, _, _ := ev2otlp(t, nil, "testdata/claude.jsonl")
	for _, k := range []string{"gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
		if v, ok := attrsOf(out, "Grep")[k]; ok {
			t.Errorf("without --content: %s = %q", k, v)
		}
	}
	out, _, _ = ev2otlp(t, nil, "--content", "testdata/claude.jsonl")
	a := attrsOf(out, "Grep")
	if got := a["gen_ai.tool.call.arguments"]; got != `{"pattern":"func .*Total","token":"ghp_0123456789abcdefghijABCDEFGHIJ012345"}` {
		t.Errorf("--content: arguments %q", got)
	}
	if got := a["gen_ai.tool.call.result"]; got != "cart/total.go:12: func (c *Cart) Total() int" {
		t.Errorf("--content: result %q", got)
	}
	out, stderr, code := ev2otlp(t, nil, "--content", "--redact", "testdata/claude.jsonl")
	if code != 0 {
		t.Fatalf("--redact: exit %d: %s", code, stderr)
	}
	if got := attrsOf(out, "Grep")["gen_ai.tool.call.arguments"]; got != `{"pattern":"func .*Total","token":"[REDACTED:github-token]"}` {
		t.Errorf("--content --redact: arguments %q", got)
	}
	if !strings.Contains(stderr, "ev2otlp: redacted 1 github-token") {
		t.Errorf("--redact: stderr %q", stderr)
	}
}

// Ids come from the log: the same input gives the same bytes, and a run
// read on its own (as a later export of a resumed log would) keeps the
// trace and span ids it had among the others.
func TestDeterministicIDs(t *testing.T) {
	all := readFile(t, "../../../examples/events/multiagent.jsonl")
	first, _, _ := ev2otlp(t, bytes.NewReader(all))
	again, _, _ := ev2otlp(t, bytes.NewReader(all))
	if first != again {
		t.Fatal("two exports of one log differ")
	}
	var one []byte
	for _, line := range bytes.SplitAfter(all, []byte("\n")) {
		if bytes.Contains(line, []byte(`"run_id":"r_0001a5b7"`)) {
			one = append(one, line...)
		}
	}
	alone, _, _ := ev2otlp(t, bytes.NewReader(one))
	spans := 0
	ids := func(out string) map[string]string {
		m := map[string]string{}
		spans = 0
		for _, td := range decodeAll(t, []byte(out)) {
			eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
				m[s.TraceID().String()+"/"+s.SpanID().String()] = s.Name()
				spans++
			})
		}
		return m
	}
	among := ids(first)
	total := spans
	own := ids(alone)
	if len(own) != 6 {
		t.Fatalf("run r_0001a5b7 alone: %d spans, want 6", len(own))
	}
	for id, name := range own {
		if among[id] != name {
			t.Errorf("span %s (%s) of the run alone is not among the spans of the whole log", id, name)
		}
	}
	if len(among) != total {
		t.Errorf("%d distinct ids for %d spans in the whole log", len(among), total)
	}
}

// Ids are written as encoding/hex writes them, every nibble's digit in
// its place.
func TestAppendHex(t *testing.T) {
	for _, id := range [][]byte{
		make([]byte, 8), bytes.Repeat([]byte{0xff}, 16),
		{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef},
		{0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x9a, 0xa9, 0x0f, 0xf0, 0x5c, 0xc5, 0x3a, 0xa3},
	} {
		if got, want := string(appendHex([]byte("x"), id)), "x"+hex.EncodeToString(id); got != want {
			t.Errorf("appendHex(%x) = %s, want %s", id, got, want)
		}
	}
}

// A run still open at the end of the input is closed at its last event:
// its root and what it left open get status UNSET and evtools.cut_off.
func TestCutOff(t *testing.T) {
	all := readFile(t, "../../../examples/events/multiagent.jsonl")
	lines := bytes.SplitAfter(all, []byte("\n"))
	// up to the doc-writer's list_dir call of run r_0001a5b7, before its result
	var head []byte
	for _, line := range lines {
		head = append(head, line...)
		if bytes.Contains(line, []byte(`"kind":"tool_call"`)) && bytes.Contains(line, []byte(`"r_0001a5b7"`)) {
			break
		}
	}
	out, stderr, code := ev2otlp(t, bytes.NewReader(head))
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byTrace, order := traces(decodeAll(t, []byte(out)))
	last := byTrace[order[len(order)-1]]
	got := spanTree(last, "evtools.cut_off", "evtools.outcome")
	want := `invoke_agent parent evtools.cut_off=true <evtools.decision>
  chat deepseek-v4-pro
  invoke_agent doc-writer evtools.cut_off=true
    chat deepseek-v4-pro
    execute_tool list_dir evtools.cut_off=true
`
	if got != want {
		t.Errorf("the run cut off:\n%s\nwant:\n%s", got, want)
	}
	var lastEvent struct{ TS json.Number }
	json.Unmarshal(lines[bytes.Count(head, []byte("\n"))-1], &lastEvent)
	for _, s := range last {
		if s.Status().Code() != ptrace.StatusCodeUnset {
			t.Errorf("%s: status %s, want Unset", s.Name(), s.Status().Code())
		}
		f, _ := lastEvent.TS.Float64()
		if s.ParentSpanID().IsEmpty() && int64(s.EndTimestamp()) != int64(math.Round(f*1000))*1e6 {
			t.Errorf("root ends at %s, not at the run's last event (ts %s)", s.EndTimestamp().AsTime(), lastEvent.TS)
		}
	}
}

// The shipped traces (examples/output: the multi-agent example and the
// recorded uname run, made by the commands examples/README.md gives, which
// internal/devtools/e2e runs) are OTLP the Collector reads, span for span what the
// tool writes now.
func TestExampleTraces(t *testing.T) {
	for _, c := range []struct{ golden, input string }{
		{"../../../examples/output/events/multiagent.traces.jsonl", "../../../examples/events/multiagent.jsonl"},
		{"../../../examples/output/zot/uname.traces.jsonl", "../../../examples/output/zot/uname.gp.jsonl"},
	} {
		golden := readFile(t, c.golden)
		if n := len(decodeAll(t, golden)); n != 1 {
			t.Errorf("%s: %d lines, want 1", c.golden, n)
		}
		if out, _, _ := ev2otlp(t, nil, c.input); out != string(golden) {
			t.Errorf("%s is not what ev2otlp %s writes now", c.golden, c.input)
		}
	}
}

// Runs whose lines interleave each get their own spans, and a run id met
// again after its run ended begins a run of its own, with a root of its
// own: the run an event joins is never one that has ended, however the
// converter finds it.
func TestRunsInterleavedAndAgain(t *testing.T) {
	in := `{"seq":1,"ts":100,"run_id":"r_a","agent_id":"parent","kind":"run_started","payload":{"model":"m1"}}
{"seq":1,"ts":100.5,"run_id":"r_b","agent_id":"parent","kind":"run_started","payload":{"model":"m2"}}
{"seq":2,"ts":101,"run_id":"r_a","agent_id":"parent","kind":"model_call","payload":{"step":1}}
{"seq":2,"ts":101.5,"run_id":"r_b","agent_id":"parent","kind":"model_call","payload":{"step":1}}
{"seq":3,"ts":102,"run_id":"r_a","agent_id":"parent","kind":"model_result","payload":{"step":1,"prompt_tokens":10,"completion_tokens":1}}
{"seq":4,"ts":103,"run_id":"r_a","agent_id":"parent","kind":"run_finished","payload":{"outcome":"ok"}}
{"seq":5,"ts":103.2,"run_id":"r_a","agent_id":"parent","kind":"model_call","payload":{"step":1,"model":"m3"}}
{"seq":3,"ts":103.5,"run_id":"r_b","agent_id":"parent","kind":"model_result","payload":{"step":1,"prompt_tokens":20,"completion_tokens":2}}
{"seq":4,"ts":105,"run_id":"r_b","agent_id":"parent","kind":"run_finished","payload":{"outcome":"ok"}}
`
	out, stderr, code := ev2otlp(t, strings.NewReader(in))
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []string
	for _, td := range decodeAll(t, []byte(out)) {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			attr := func(k string) string {
				if v, ok := s.Attributes().Get(k); ok {
					return v.AsString()
				}
				return ""
			}
			got = append(got, fmt.Sprintf("%s [%s] in=%s cut=%s", s.Name(), attr("evtools.run_id"), attr("gen_ai.usage.input_tokens"), attr("evtools.cut_off")))
		})
	}
	want := []string{
		"chat m1 [] in=10 cut=",
		"invoke_agent parent [r_a] in= cut=",
		"chat m2 [] in=20 cut=",
		"invoke_agent parent [r_b] in= cut=",
		"chat m3 [] in= cut=true",
		"invoke_agent parent [r_a] in= cut=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("spans:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A call whose log kept no usage ("no_usage":true) has no token
// attributes on its chat span: zeros would tell a backend it was free.
func TestNoUsageHasNoTokens(t *testing.T) {
	const in = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"","kind":"model_call","payload":{"step":1,"model":"gpt-5-codex"}}
{"seq":3,"ts":1780000002,"run_id":"r1","agent_id":"","kind":"model_result","payload":{"step":1,"model":"gpt-5-codex","no_usage":true}}
{"seq":4,"ts":1780000003,"run_id":"r1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"}}
`
	out, _, _ := ev2otlp(t, strings.NewReader(in))
	chats := 0
	for _, td := range decodeAll(t, []byte(out)) {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			if !strings.HasPrefix(s.Name(), "chat") {
				return
			}
			chats++
			for _, k := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
				if v, ok := s.Attributes().Get(k); ok {
					t.Errorf("%s = %s on a call without usage", k, v.AsString())
				}
			}
		})
	}
	if chats != 1 {
		t.Errorf("%d chat spans, want 1", chats)
	}
}

// A session's totals without a call of their own (evimport's Copilot CLI
// "usage_of":"session" results) are no chat span, which a backend would
// count as a model call: they are an event of the agent's span.
func TestSessionUsageIsNoChatSpan(t *testing.T) {
	const in = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"main","kind":"model_call","payload":{"step":1,"model":"claude-sonnet-4.6"}}
{"seq":3,"ts":1780000002,"run_id":"r1","agent_id":"main","kind":"model_result","payload":{"step":1,"model":"claude-sonnet-4.6","output":80}}
{"seq":4,"ts":1780000003,"run_id":"r1","agent_id":"main","kind":"model_result","payload":{"step":1,"model":"claude-sonnet-4.6","input":48000,"output":0,"usage_of":"session"}}
{"seq":5,"ts":1780000004,"run_id":"r1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"}}
`
	out, _, _ := ev2otlp(t, strings.NewReader(in))
	chats, usage := 0, 0
	for _, td := range decodeAll(t, []byte(out)) {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			if strings.HasPrefix(s.Name(), "chat") {
				chats++
			}
			for i := 0; i < s.Events().Len(); i++ {
				e := s.Events().At(i)
				if e.Name() != "evtools.session_usage" {
					continue
				}
				usage++
				if v, _ := e.Attributes().Get("gen_ai.usage.input_tokens"); v.Int() != 48000 {
					t.Errorf("session usage input tokens %d, want 48000", v.Int())
				}
			}
		})
	}
	if chats != 1 || usage != 1 {
		t.Errorf("%d chat spans and %d session usage events, want 1 and 1", chats, usage)
	}
}

// An error that comes after its call's result (pi writes an aborted
// call's result, then its error) fails no second chat span: ev2otlp
// shows as many model calls as evsum counts, and the error as an
// exception of the agent's span.
func TestLateModelErrorIsNoChatSpan(t *testing.T) {
	const in = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"main","kind":"model_call","payload":{"step":1,"model":"gpt-5.1-codex"}}
{"seq":3,"ts":1780000001,"run_id":"r1","agent_id":"main","kind":"model_result","payload":{"step":1,"model":"gpt-5.1-codex","input":0,"output":0}}
{"seq":4,"ts":1780000001,"run_id":"r1","agent_id":"main","kind":"model_error","payload":{"step":1,"message":"Request was aborted"}}
{"seq":5,"ts":1780000002,"run_id":"r1","agent_id":"","kind":"run_finished","payload":{"outcome":"error"}}
`
	out, _, _ := ev2otlp(t, strings.NewReader(in))
	chats, errs := 0, 0
	for _, td := range decodeAll(t, []byte(out)) {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			if strings.HasPrefix(s.Name(), "chat") {
				chats++
			}
			for i := 0; i < s.Events().Len(); i++ {
				e := s.Events().At(i)
				if m, _ := e.Attributes().Get("exception.message"); e.Name() == "exception" && m.AsString() == "Request was aborted" {
					errs++
				}
			}
		})
	}
	if chats != 1 || errs != 1 {
		t.Errorf("%d chat spans and %d exception events, want 1 and 1", chats, errs)
	}
}
