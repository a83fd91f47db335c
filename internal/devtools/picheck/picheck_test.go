package picheck

import (
	"strings"
	"testing"
)

// A run as pi writes it: a user message, an assistant message streaming a
// text and a call, the call run, its result, turn_end.
var good = []string{
	`{"id":"1","type":"response","command":"prompt","success":true,"data":{"disposition":"started"}}`,
	`{"type":"agent_start"}`,
	`{"type":"turn_start"}`,
	`{"type":"message_start","message":{"role":"user","content":[]}}`,
	`{"type":"message_end","message":{"role":"user","content":[]}}`,
	`{"type":"message_start","message":{"role":"assistant","content":[]}}`,
	`{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0}}`,
	`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"he"}}`,
	`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"y"}}`,
	`{"type":"message_update","assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"hey"}}`,
	`{"type":"message_update","assistantMessageEvent":{"type":"toolcall_start","contentIndex":1}}`,
	`{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","contentIndex":1}}`,
	`{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"hey"},{"type":"toolCall"}],"stopReason":"toolUse"}}`,
	`{"type":"tool_execution_start","toolCallId":"c1","toolName":"bash"}`,
	`{"type":"tool_execution_update","toolCallId":"c1","toolName":"bash"}`,
	`{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash"}`,
	`{"type":"message_start","message":{"role":"toolResult","toolCallId":"c1"}}`,
	`{"type":"message_end","message":{"role":"toolResult","toolCallId":"c1"}}`,
	`{"type":"turn_end"}`,
	`{"type":"agent_end"}`,
	`{"type":"agent_settled","aborted":false}`,
}

func TestCheckGood(t *testing.T) {
	if err := Check([]byte(strings.Join(good, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
	// Two runs, one call id in each: ids are the run's.
	two := strings.Join(good[1:], "\n") + "\n"
	if err := Check([]byte(two + two)); err != nil {
		t.Fatal(err)
	}
}

// Each fault, made by changing the good run, is found on its line.
func TestCheckFaults(t *testing.T) {
	const (
		update = `{"type":"tool_execution_update","toolCallId":"c1","toolName":"bash"}`
		end    = `{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash"}`
		start  = `{"type":"tool_execution_start","toolCallId":"c1","toolName":""}`
	)
	for _, tc := range []struct {
		name string
		at   int    // the line of good to replace, insert before, or cut at
		line string // "" deletes; with insert, added before
		cut  bool
		ins  bool
		want string
	}{
		// issue 21's three
		{name: "update after agent_settled", at: 21, line: update, ins: true, want: "line 22: tool_execution_update outside a turn"},
		{name: "two ends", at: 16, line: end, ins: true, want: "line 17: tool_execution_end of call \"c1\", which is not running"},
		{name: "started again in the next turn", at: 19, line: `{"type":"turn_start"}` + "\n" + start, ins: true, want: "line 21: call \"c1\" started twice in its run"},

		{name: "not JSON", at: 2, line: `{"type":"turn_start"`, want: "line 3: not one JSON object"},
		{name: "two objects", at: 2, line: `{"type":"turn_start"} {}`, want: "line 3: not one JSON object"},
		{name: "no type", at: 2, line: `{"Type":"turn_start"}`, want: "line 3: no string type"},
		{name: "unknown type", at: 6, line: `{"type":"message_progress"}`, want: "an event pi does not write"},
		{name: "failed response without error", at: 0, line: `{"type":"response","success":false}`, want: "line 1: a failed response without an error"},
		{name: "run in a run", at: 2, line: `{"type":"agent_start"}`, want: "line 3: a run inside a run"},
		{name: "turn outside a run", at: 1, line: "", want: "line 2: a turn outside a run"},
		{name: "turn in a turn", at: 3, line: `{"type":"turn_start"}`, want: "line 4: a turn outside a run or inside a turn"},
		{name: "message outside a turn", at: 2, line: "", want: "line 3: message_start outside a turn"},
		{name: "message in a message", at: 4, line: `{"type":"message_start","message":{"role":"user"}}`, want: "line 5: a message inside a message"},
		{name: "message_end of another role", at: 4, line: `{"type":"message_end","message":{"role":"assistant"}}`, want: "line 5: message_end of a message that did not start"},
		{name: "turn_end in a message", at: 6, line: `{"type":"turn_end"}`, ins: true, want: "line 7: turn_end outside a turn or inside a message"},
		{name: "turn_end before the result", at: 16, line: `{"type":"turn_end"}`, ins: true, want: "line 17: turn_end before a call of the turn (bash) has its toolResult message"},
		{name: "agent_end in a turn", at: 18, line: `{"type":"agent_end"}`, want: "line 19: agent_end outside a run or inside a turn"},
		{name: "something between agent_end and agent_settled", at: 20, line: `{"type":"response","success":true}`, ins: true, want: "line 21: response between agent_end and agent_settled"},
		{name: "agent_settled alone", at: 19, line: "", want: "line 20: agent_settled not right after agent_end"},
		{name: "update outside an assistant message", at: 4, line: `{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0}}`, ins: true, want: "line 5: message_update outside an assistant message"},
		{name: "block at a wrong index", at: 6, line: `{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":1}}`, want: "line 7: text_start at index 1, want 0"},
		{name: "delta of an ended block", at: 10, line: `{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x"}}`, ins: true, want: "line 11: text_delta of block 0, which is not an open text block"},
		{name: "text_end not the deltas", at: 9, line: `{"type":"message_update","assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"he"}}`, want: "line 10: text_end is not the joined deltas"},
		{name: "final text not the deltas", at: 12, line: `{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"heyhey"}]}}`, want: "line 13: the final text of block 0 is not the joined deltas"},
		{name: "block left open", at: 11, line: "", want: "line 12: message_end with block 1 open"},
		{name: "tool event in a message", at: 12, line: update, ins: true, want: "line 13: tool_execution_update inside a message"},
		{name: "update before start", at: 13, line: "", want: "line 14: tool_execution_update of call \"c1\", which is not running"},
		{name: "another tool name", at: 14, line: `{"type":"tool_execution_update","toolCallId":"c1","toolName":"read"}`, want: "names tool \"read\", its start \"bash\""},
		{name: "result message before the end", at: 15, line: "", want: "line 16: a toolResult message for call \"c1\", which has not ended"},
		{name: "result message twice", at: 18, line: `{"type":"message_start","message":{"role":"toolResult","toolCallId":"c1"}}` + "\n" + `{"type":"message_end","message":{"role":"toolResult","toolCallId":"c1"}}`, ins: true, want: "line 19: a toolResult message for call \"c1\", which has not ended or has its message"},
		{name: "cut inside a run", at: 20, cut: true, want: "at the end (20 lines): a run never settled"},
	} {
		lines := append([]string(nil), good...)
		switch {
		case tc.cut:
			lines = lines[:tc.at]
		case tc.ins:
			lines = append(lines[:tc.at], append([]string{tc.line}, lines[tc.at:]...)...)
		case tc.line == "":
			lines = append(lines[:tc.at], lines[tc.at+1:]...)
		default:
			lines[tc.at] = tc.line
		}
		err := Check([]byte(strings.Join(lines, "\n") + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
