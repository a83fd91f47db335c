// Package picheck checks a stream of pi's RPC events (what `zot2gp
// --format pi` writes) against the rules a pi client relies on, line by
// line, as the client reads them. It is the one oracle of the tests that
// drive zot2gp's pi output: the golden and corpus tests, the mutated
// streams, the fuzz target and the end-to-end tests with pi's own client.
//
// The rules, as pi's agent loop writes its events:
//
//   - every line is one JSON object with a string "type" pi writes;
//   - a failed response has a non-empty error;
//   - a run is agent_start ... agent_end, then agent_settled at once; runs
//     do not nest, and every event but a response is inside one;
//   - a turn is turn_start ... turn_end inside a run, turns do not nest,
//     and agent_end comes outside them;
//   - a message is message_start ... message_end (of the same role) inside
//     a turn; messages do not nest, and turn_end comes outside them;
//   - message_update is inside an assistant message: a block starts at the
//     next content index, its deltas and end name a started block of its
//     kind that has not ended, text_end carries the joined deltas, and the
//     message's final text blocks (unless it failed) are the joined deltas;
//   - a tool call is tool_execution_start, updates, tool_execution_end,
//     inside a turn and outside a message, started once in its run, with
//     the same toolName throughout; its toolResult message comes after its
//     end, once; turn_end comes when every call of the turn has its
//     toolResult message.
//   - the stream ends outside a run.
package picheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Stream follows pi's events line by line. Its counts are for the tests
// that know how many runs, turns or failures their input has.
type Stream struct {
	Runs, Settled, Turns, Failures, Calls int

	inRun, ended bool // ended: agent_end came, agent_settled is next
	inTurn       bool
	message      string // the role of the open message
	blocks       []block
	calls        map[string]*call // the run's calls by id
	turnCalls    []*call          // the turn's
}

type block struct {
	kind string // "text", "toolcall", "thinking"
	open bool
	text []byte
}

type call struct {
	name  string
	state int // 1 started, 2 ended, 3 its toolResult message
}

// Check reads a whole output, one event a line, and returns the first
// fault, with its line number, or nil.
func Check(out []byte) error {
	var s Stream
	n := 0
	for l := range bytes.Lines(out) {
		n++
		if err := s.Line(bytes.TrimSuffix(l, []byte("\n"))); err != nil {
			return fmt.Errorf("line %d: %v: %.300s", n, err, l)
		}
	}
	if err := s.End(); err != nil {
		return fmt.Errorf("at the end (%d lines): %v", n, err)
	}
	return nil
}

// Line checks one line, the next of the stream.
func (s *Stream) Line(l []byte) error {
	var e map[string]any
	d := json.NewDecoder(bytes.NewReader(l))
	if err := d.Decode(&e); err != nil || e == nil || d.More() {
		return fmt.Errorf("not one JSON object (%v)", err)
	}
	return s.Event(e)
}

// Event checks one decoded event, the next of the stream.
func (s *Stream) Event(e map[string]any) error {
	typ, ok := e["type"].(string)
	if !ok {
		return fmt.Errorf("no string type")
	}
	if s.ended && typ != "agent_settled" {
		return fmt.Errorf("%s between agent_end and agent_settled", typ)
	}
	switch typ {
	case "response":
		if e["success"] == false {
			if m, _ := e["error"].(string); m == "" {
				return fmt.Errorf("a failed response without an error")
			}
			s.Failures++
		} else if e["success"] != true {
			return fmt.Errorf("a response without success")
		}
		return nil
	case "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end":
		return s.frame(typ)
	}
	if !s.inTurn {
		return fmt.Errorf("%s outside a turn", typ)
	}
	switch typ {
	case "message_start":
		msg, _ := e["message"].(map[string]any)
		return s.messageStart(msg)
	case "message_end":
		msg, _ := e["message"].(map[string]any)
		return s.messageEnd(msg)
	case "message_update":
		ame, _ := e["assistantMessageEvent"].(map[string]any)
		return s.update(ame)
	case "tool_execution_start", "tool_execution_update", "tool_execution_end":
		id, _ := e["toolCallId"].(string)
		name, ok := e["toolName"].(string)
		if !ok {
			return fmt.Errorf("%s without a toolName", typ)
		}
		return s.tool(strings.TrimPrefix(typ, "tool_execution_"), id, name)
	}
	return fmt.Errorf("an event pi does not write: %q", typ)
}

// End checks that the stream may end here.
func (s *Stream) End() error {
	if s.inRun {
		return fmt.Errorf("a run never settled")
	}
	return nil
}

// frame follows the runs and the turns inside them.
func (s *Stream) frame(typ string) error {
	switch typ {
	case "agent_start":
		if s.inRun {
			return fmt.Errorf("a run inside a run")
		}
		s.inRun, s.Runs = true, s.Runs+1
		s.calls = map[string]*call{}
	case "agent_end":
		if !s.inRun || s.inTurn {
			return fmt.Errorf("agent_end outside a run or inside a turn")
		}
		s.ended = true
	case "agent_settled":
		if !s.ended {
			return fmt.Errorf("agent_settled not right after agent_end")
		}
		s.inRun, s.ended, s.Settled = false, false, s.Settled+1
	case "turn_start":
		if !s.inRun || s.inTurn {
			return fmt.Errorf("a turn outside a run or inside a turn")
		}
		s.inTurn, s.Turns, s.turnCalls = true, s.Turns+1, s.turnCalls[:0]
	case "turn_end":
		if !s.inTurn || s.message != "" {
			return fmt.Errorf("turn_end outside a turn or inside a message")
		}
		for _, c := range s.turnCalls {
			if c.state != 3 {
				return fmt.Errorf("turn_end before a call of the turn (%s) has its toolResult message", c.name)
			}
		}
		s.inTurn = false
	}
	return nil
}

func (s *Stream) messageStart(msg map[string]any) error {
	if s.message != "" {
		return fmt.Errorf("a message inside a message")
	}
	role, _ := msg["role"].(string)
	if role == "" {
		return fmt.Errorf("a message without a role")
	}
	s.message, s.blocks = role, s.blocks[:0]
	if role == "toolResult" {
		id, _ := msg["toolCallId"].(string)
		c := s.calls[id]
		if c == nil || c.state != 2 {
			return fmt.Errorf("a toolResult message for call %q, which has not ended or has its message", id)
		}
		c.state = 3
	}
	return nil
}

func (s *Stream) update(ame map[string]any) error {
	if s.message != "assistant" {
		return fmt.Errorf("message_update outside an assistant message")
	}
	typ, _ := ame["type"].(string)
	idx, ok := ame["contentIndex"].(float64)
	if !ok || idx != float64(int(idx)) || idx < 0 {
		return fmt.Errorf("%s without a contentIndex", typ)
	}
	i := int(idx)
	kind, step, _ := strings.Cut(typ, "_")
	if kind != "text" && kind != "toolcall" && kind != "thinking" {
		return fmt.Errorf("an assistant event pi does not write: %q", typ)
	}
	if step == "start" {
		if i != len(s.blocks) {
			return fmt.Errorf("%s at index %d, want %d", typ, i, len(s.blocks))
		}
		s.blocks = append(s.blocks, block{kind: kind, open: true})
		return nil
	}
	if i >= len(s.blocks) || s.blocks[i].kind != kind || !s.blocks[i].open {
		return fmt.Errorf("%s of block %d, which is not an open %s block", typ, i, kind)
	}
	b := &s.blocks[i]
	switch step {
	case "delta":
		d, ok := ame["delta"].(string)
		if !ok {
			return fmt.Errorf("%s without a delta", typ)
		}
		b.text = append(b.text, d...)
	case "end":
		b.open = false
		if c, ok := ame["content"].(string); kind != "toolcall" && (!ok || c != string(b.text)) {
			return fmt.Errorf("%s is not the joined deltas", typ)
		}
	default:
		return fmt.Errorf("an assistant event pi does not write: %q", typ)
	}
	return nil
}

func (s *Stream) messageEnd(msg map[string]any) error {
	if s.message == "" || s.message != msg["role"] {
		return fmt.Errorf("message_end of a message that did not start")
	}
	s.message = ""
	if msg["role"] != "assistant" {
		return nil
	}
	if r := msg["stopReason"]; r == "error" || r == "aborted" {
		return nil // a failed stream may stop anywhere
	}
	content, _ := msg["content"].([]any)
	for i, b := range s.blocks {
		if b.open {
			return fmt.Errorf("message_end with block %d open", i)
		}
		if b.kind != "text" || i >= len(content) {
			continue
		}
		if c, _ := content[i].(map[string]any); c["text"] != string(b.text) {
			return fmt.Errorf("the final text of block %d is not the joined deltas", i)
		}
	}
	return nil
}

// tool follows a call from its start to its end (its toolResult message
// is messageStart's).
func (s *Stream) tool(step, id, name string) error {
	if s.message != "" {
		return fmt.Errorf("tool_execution_%s inside a message", step)
	}
	c := s.calls[id]
	if step == "start" {
		if c != nil {
			return fmt.Errorf("call %q started twice in its run", id)
		}
		c = &call{name: name, state: 1}
		s.calls[id] = c
		s.turnCalls = append(s.turnCalls, c)
		s.Calls++
		return nil
	}
	switch {
	case c == nil || c.state != 1:
		return fmt.Errorf("tool_execution_%s of call %q, which is not running", step, id)
	case name != c.name:
		return fmt.Errorf("tool_execution_%s of call %q names tool %q, its start %q", step, id, name, c.name)
	}
	if step == "end" {
		c.state = 2
	}
	return nil
}
