package zot2gp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/corpus"
	"github.com/evtools/evtools/internal/zot2gp"
)

// --format pi on a live pipe: each zot event's pi events come out before
// zot2gp waits for the next one; the ones pi writes later (turn_end, held
// for the tool results) come out with the event that allows them.
func TestPiLivePipeFlush(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- zot2gp.Main([]string{"--format", "pi"}, cli.Stdio{In: inR, Out: outW, Err: io.Discard})
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	events := []struct {
		in   string
		want []string // the pi events it gives, by type (and assistant event)
	}{
		{`{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`, []string{"response"}},
		{`{"content":[{"text":"hi","type":"text"}],"type":"user_message"}`, []string{"agent_start", "turn_start", "message_start", "message_end"}},
		{`{"step":1,"type":"turn_start"}`, nil},
		{`{"type":"assistant_start"}`, []string{"message_start"}},
		{`{"delta":"Let me look.","type":"text_delta"}`, []string{"text_start", "text_delta"}},
		{`{"id":"c1","name":"bash","type":"tool_use_start"}`, []string{"text_end", "toolcall_start"}},
		{`{"delta":"{\"command\":\"ls\"}","id":"c1","type":"tool_use_args"}`, []string{"toolcall_delta"}},
		{`{"id":"c1","type":"tool_use_end"}`, []string{"toolcall_end"}},
		{`{"cache_read":0,"cost_usd":0.001,"input":10,"output":5,"type":"usage"}`, nil},
		{`{"content":[{"text":"Let me look.","type":"text"},{"args":{"command":"ls"},"id":"c1","name":"bash","type":"tool_call"}],"type":"assistant_message"}`, []string{"message_end", "tool_execution_start"}},
		{`{"args":{"command":"ls"},"id":"c1","name":"bash","type":"tool_call"}`, nil},
		{`{"stop":"tool_use","type":"turn_end"}`, nil},
		{`{"id":"c1","text":"a\n","type":"tool_progress"}`, []string{"tool_execution_update"}},
		{`{"content":[{"text":"a\n","type":"text"}],"id":"c1","is_error":false,"type":"tool_result"}`, []string{"tool_execution_end", "message_start", "message_end", "turn_end"}},
		{`{"step":2,"type":"turn_start"}`, []string{"turn_start"}},
		{`{"stop":"end","type":"turn_end"}`, []string{"message_start", "message_end", "turn_end"}},
		{`{"type":"done"}`, []string{"agent_end", "agent_settled"}},
	}
	for i, ev := range events {
		if _, err := io.WriteString(inW, ev.in+"\n"); err != nil {
			t.Fatal(err)
		}
		for _, want := range ev.want {
			got := make(chan string, 1)
			go func() { l, _ := lines.ReadString('\n'); got <- l }()
			select {
			case l := <-got:
				var e struct {
					Type  string
					Event struct{ Type string } `json:"assistantMessageEvent"`
				}
				if err := json.Unmarshal([]byte(l), &e); err != nil {
					t.Fatalf("event %d: %v: %q", i+1, err, l)
				}
				if e.Type != want && e.Event.Type != want {
					t.Fatalf("event %d: got %q, want %s", i+1, l, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("event %d: %s did not come out while zot2gp waits for the next event", i+1, want)
			}
		}
	}
	inW.Close()
	if rest, _ := io.ReadAll(lines); len(rest) != 0 {
		t.Errorf("after the last event: %q", rest)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestPiCorpus checks a generated zot stream's pi events as a pi client reads
// them: every line a JSON object; one run per prompt zot started, each
// from agent_start to agent_end and agent_settled; turns and messages
// balanced; each text block's text_end, and its message's final text, the
// joined deltas; each tool call started, ended and given its toolResult
// message once; a failed prompt a failed response with zot's error.
func TestPiCorpus(t *testing.T) {
	var in bytes.Buffer
	if err := corpus.Zot(&in, 2<<20, 7); err != nil {
		t.Fatal(err)
	}
	prompts, failed := strings.Count(in.String(), `"data":{"started":true}`), strings.Count(in.String(), `"command":"prompt","error":`)
	var out, errs bytes.Buffer
	if code := zot2gp.Main([]string{"--format", "pi"}, cli.Stdio{In: &in, Out: &out, Err: &errs}); code != 0 || errs.Len() != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	st := piStream{calls: map[string]int{}}
	for n, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if why := st.event(e); why != "" {
			t.Fatalf("line %d: %s: %s", n+1, why, l)
		}
	}
	if st.runs != prompts || st.settled != st.runs || st.failures != failed || st.inRun {
		t.Errorf("%d runs, %d settled, %d failed responses; the corpus has %d prompts started, %d refused", st.runs, st.settled, st.failures, prompts, failed)
	}
	for id, s := range st.calls {
		if s != 3 {
			t.Errorf("call %s: state %d at the end, want its toolResult message", id, s)
		}
	}
	t.Logf("%d runs, %d turns, %d tool calls, %d pi lines from %d zot bytes", st.runs, st.turns, len(st.calls), strings.Count(out.String(), "\n"), 2<<20)
}

// piStream follows pi's events line by line, and says what is wrong
// with one that does not fit where it comes.
type piStream struct {
	runs, settled, turns, failures int
	inRun, inTurn                  bool
	message                        string // the role of the open message
	blocks                         []*strings.Builder
	calls                          map[string]int // id -> 1 started, 2 ended, 3 its message
}

func (s *piStream) event(e map[string]any) string {
	switch e["type"] {
	case "response":
		if e["success"] == false {
			if e["error"] == "" {
				return "a failed response without error"
			}
			s.failures++
		}
	case "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end":
		return s.frame(e["type"].(string))
	case "message_start", "message_end":
		msg, _ := e["message"].(map[string]any)
		if e["type"] == "message_start" {
			return s.messageStart(msg)
		}
		return s.messageEnd(msg)
	case "message_update":
		ame, _ := e["assistantMessageEvent"].(map[string]any)
		return s.update(ame)
	case "tool_execution_start", "tool_execution_end":
		return s.tool(e["type"] == "tool_execution_start", e["toolCallId"].(string))
	}
	return ""
}

// frame follows the runs and the turns inside them.
func (s *piStream) frame(typ string) string {
	switch typ {
	case "agent_start":
		if s.inRun {
			return "a run inside a run"
		}
		s.inRun, s.runs = true, s.runs+1
	case "agent_end":
		if !s.inRun || s.inTurn {
			return "agent_end outside a run or inside a turn"
		}
	case "agent_settled":
		s.inRun, s.settled = false, s.settled+1
	case "turn_start":
		if !s.inRun || s.inTurn {
			return "a turn outside a run or inside a turn"
		}
		s.inTurn, s.turns = true, s.turns+1
	case "turn_end":
		if !s.inTurn || s.message != "" {
			return "turn_end outside a turn or inside a message"
		}
		s.inTurn = false
	}
	return ""
}

func (s *piStream) messageStart(msg map[string]any) string {
	if !s.inTurn || s.message != "" {
		return "a message outside a turn or inside a message"
	}
	s.message, s.blocks = msg["role"].(string), nil
	if id, ok := msg["toolCallId"].(string); ok {
		if s.calls[id] != 2 {
			return "a toolResult message for a call not ended, or twice"
		}
		s.calls[id] = 3
	}
	return ""
}

func (s *piStream) update(ame map[string]any) string {
	i := int(ame["contentIndex"].(float64))
	switch ame["type"] {
	case "text_start", "toolcall_start":
		if i != len(s.blocks) {
			return "a block starts at a wrong index"
		}
		s.blocks = append(s.blocks, &strings.Builder{})
	case "text_delta":
		s.blocks[i].WriteString(ame["delta"].(string))
	case "text_end":
		if ame["content"] != s.blocks[i].String() {
			return "text_end is not the joined deltas"
		}
	}
	return ""
}

func (s *piStream) messageEnd(msg map[string]any) string {
	if s.message != msg["role"] {
		return "message_end of another message"
	}
	s.message = ""
	if msg["role"] != "assistant" || msg["stopReason"] == "error" {
		return ""
	}
	for i, c := range msg["content"].([]any) {
		b := c.(map[string]any)
		if b["type"] == "text" && i < len(s.blocks) && b["text"] != s.blocks[i].String() {
			return "the final text is not the joined deltas"
		}
	}
	return ""
}

// tool follows a call from its start to its end (its toolResult message
// is messageStart's).
func (s *piStream) tool(start bool, id string) string {
	switch {
	case start && s.calls[id] != 0:
		return "a call started twice"
	case start:
		s.calls[id] = 1
	case s.calls[id] != 1:
		return "a call ended that did not start, or twice"
	default:
		s.calls[id] = 2
	}
	return ""
}

// `zot2gp --format pi big.jsonl | head -1` ends quietly too: no report of
// dropped events, no closing of the open run.
func TestPiClosedStdoutQuiet(t *testing.T) {
	input := `{"type":"compaction"}` + "\n" + strings.Repeat(`{"delta":"x","type":"text_delta"}`+"\n", 100000)
	r, w := io.Pipe()
	go func() {
		bufio.NewReader(r).ReadString('\n')
		r.Close()
	}()
	var stderr bytes.Buffer
	code := zot2gp.Main([]string{"--format", "pi"}, cli.Stdio{In: strings.NewReader(input), Out: w, Err: &stderr})
	if code != 0 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
}

// BenchmarkZot2gpPi is --format pi on the generated zot stream.
func BenchmarkZot2gpPi(b *testing.B) { benchMain(b, "--ts=stable", "--format=pi") }
