// Package zot describes zot's RPC events (DESIGN.md 1.1) and glasspane's
// classification of them (DESIGN.md 1.2), as data: the type names, the
// mapping table from zot type to glasspane kind, the types glasspane does
// not map, and which events belong to the session rather than an agent.
//
// It also reads what zot2gp needs from one event line (Scan) without
// decoding it: the raw values of the top-level type, time, success and
// command members.
package zot

import "github.com/evtools/evtools/pkg/event"

// The zot event types, in the order a run produces them (DESIGN.md 1.1).
const (
	Response         = "response"
	UserMessage      = "user_message"
	TurnStart        = "turn_start"
	AssistantStart   = "assistant_start"
	ToolUseStart     = "tool_use_start"
	ToolUseArgs      = "tool_use_args"
	ToolUseEnd       = "tool_use_end"
	Usage            = "usage"
	AssistantMessage = "assistant_message"
	ToolCall         = "tool_call"
	TurnEnd          = "turn_end"
	ToolProgress     = "tool_progress"
	ToolResult       = "tool_result"
	TextDelta        = "text_delta"
	Error            = "error"
	Done             = "done"
)

// CommandPrompt is the command of the request that starts a run; zot acks
// it with a response whose command is "prompt".
const CommandPrompt = "prompt"

// Types lists every zot event type of DESIGN.md 1.1, in run order.
var Types = []string{
	Response, UserMessage, TurnStart, AssistantStart, ToolUseStart, ToolUseArgs,
	ToolUseEnd, Usage, AssistantMessage, ToolCall, TurnEnd, ToolProgress,
	ToolResult, TextDelta, Error, Done,
}

// Glasspane is glasspane's mapping (DESIGN.md 1.2): the glasspane kind of
// every zot type it classifies. A response is never in it: a failed one is
// FailedResponseKind (see Kind); the types in Unmapped are not in it.
var Glasspane = map[string]string{
	UserMessage:      event.MessageUpdate,
	TurnStart:        event.TurnStart,
	AssistantStart:   event.MessageStart,
	ToolUseStart:     event.ToolExecutionStart,
	ToolUseArgs:      event.ToolExecutionUpdate,
	ToolUseEnd:       event.ToolExecutionUpdate,
	AssistantMessage: event.MessageEnd,
	TurnEnd:          event.TurnEnd,
	ToolProgress:     event.ToolExecutionUpdate,
	ToolResult:       event.ToolExecutionEnd,
	TextDelta:        event.MessageUpdate,
	Error:            event.Error,
	Done:             event.AgentEnd,
}

// FailedResponseKind is the kind of a response with success:false: a
// command that failed is an error to glasspane.
const FailedResponseKind = event.Error

// Unmapped lists the zot types glasspane does not map: a successful
// response (no state change), usage, and tool_call (tool_use_start already
// starts the execution). They keep their zot type as their kind.
var Unmapped = []string{Response, Usage, ToolCall}

// sessionLevel holds the types that belong to the session, not to an agent:
// their envelope agent_id is empty.
var sessionLevel = map[string]bool{Response: true, UserMessage: true, Done: true}

// IsSessionLevel reports whether events of type typ belong to the session
// rather than to the agent (the envelope's agent_id is then empty).
func IsSessionLevel(typ string) bool { return sessionLevel[typ] }

// Kind returns the envelope kind of a zot event of type typ: glasspane's
// kind when it maps the type, else typ itself (so the stream stays
// lossless, and types zot adds later pass through). failed says the event
// is a response with success:false, which is an error. mapped reports
// whether glasspane classifies the event at all; --ui keeps only those.
func Kind(typ string, failed bool) (kind string, mapped bool) {
	if typ == Response && failed {
		return FailedResponseKind, true
	}
	if k, ok := Glasspane[typ]; ok {
		return k, true
	}
	return typ, false
}
