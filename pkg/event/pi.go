package event

// The pi mapping: how `zot2gp --format pi` writes zot's events as the
// events of pi's RPC protocol, so that any client of the pi coding agent
// (@earendil-works/pi-coding-agent) can drive zot. glasspane's kinds are
// pi's event names already (message_update, tool_execution_start, ...);
// this table goes one step further and gives pi's payloads too.
//
// pi writes, for one prompt, a response, then agent_start, turn_start, the
// user message (message_start, message_end), the assistant message
// (message_start, message_update per content-block event, message_end),
// then the tool calls it asked for (tool_execution_start,
// tool_execution_update..., tool_execution_end, then a toolResult message
// each), turn_end with that message and those results, more turns, and
// agent_end with the run's messages and agent_settled. zot writes the same
// run in its own order (its turn_end comes before the tools run, its tool
// calls are streamed before the message ends): a zot event's pi events are
// written when zot's stream has said enough for them, in pi's order.
//
// Each row is a zot type of the zot vocabulary (zot.go) and what is done
// with its events; the meaning of each type, and the payload members its
// fields are read from, are the zot vocabulary's.

// PiStep is what is done with one zot event to write pi's events.
type PiStep uint8

// The steps, one per zot type, and PiDrop for types pi has no event for.
const (
	PiDrop          PiStep = iota // pi has no event for it: dropped, and counted
	PiResponse                    // the response to a command, in pi's shape
	PiUserMessage                 // the user's message
	PiTurnStart                   // a turn begins
	PiMessageStart                // the assistant message begins
	PiToolCallStart               // a tool call's block begins in the assistant message
	PiToolCallDelta               // a piece of a tool call's arguments
	PiToolCallEnd                 // a tool call's arguments are complete
	PiUsage                       // the assistant message's usage
	PiMessageEnd                  // the assistant message is complete
	PiToolCall                    // the complete tool call, restated
	PiTurnEnd                     // the turn ends
	PiToolUpdate                  // a running tool's output
	PiToolEnd                     // a tool's result
	PiTextDelta                   // a piece of the assistant's text
	PiError                       // the run failed
	PiRunEnd                      // the run is over
)

// PiRow is one row of the pi mapping.
type PiRow struct {
	Type   string // the zot type
	Step   PiStep
	Writes string // the pi events written, as docs/zot2gp.md shows them
}

// Pi is the pi mapping, one row per zot type, in the order of the zot
// vocabulary. A type not in it is dropped (PiDrop).
var Pi = []PiRow{
	{"response", PiResponse, "`response` for the command: `id`, `command`, `success`; a prompt's `data` `{\"started\":true}` becomes `{\"disposition\":\"started\"}` (`handled` for `started:false`), other commands' `data` is kept as zot gives it, except for the commands pi answers without one (`abort`, the `set_*` commands, `abort_retry`, `abort_bash`); `success:false` has `error`. A successful prompt while a run is still open (its `done` lost) first ends that run"},
	{"user_message", PiUserMessage, "`agent_start` and `turn_start` when no run is open, then `message_start` and `message_end` of a user message (`content` as text blocks, `timestamp`)"},
	{"turn_start", PiTurnStart, "`turn_start`, unless the user message has just opened the turn; `agent_start` first when no run is open"},
	{"assistant_start", PiMessageStart, "`message_start` of an assistant message: no content yet, `stopReason` `pending`, usage zero"},
	{"tool_use_start", PiToolCallStart, "`message_update` `text_end` of the text block before it, if any; `message_update` `toolcall_start` (`contentIndex`, `id`, `toolName`)"},
	{"tool_use_args", PiToolCallDelta, "`message_update` `toolcall_delta` (the piece in `delta`); the pieces are joined"},
	{"tool_use_end", PiToolCallEnd, "`message_update` `toolcall_end` with the `toolCall`, its `arguments` parsed from the joined pieces (`{}` when there were none; `{}` and an `argumentsError` when they are not a JSON object)"},
	{"usage", PiUsage, "nothing of its own: the assistant message's `usage` from here on (`input`, `output`, `cacheRead`, `cacheWrite`, `totalTokens` their sum, `cost.total` from `cost_usd`)"},
	{"assistant_message", PiMessageEnd, "`text_end`/`toolcall_end` of a block still open, then `message_end` with the whole message (its `content` as zot gives it: `text` and `toolCall` blocks; `stopReason` `toolUse` when it calls tools, else `stop`), then `tool_execution_start` of each call"},
	{"tool_call", PiToolCall, "nothing when the call was streamed or is in the message; otherwise its `toolcall_start` and `toolcall_end` (message open) or its `tool_execution_start` (message ended)"},
	{"turn_end", PiTurnEnd, "`message_end` when zot sent no `assistant_message` (the text so far, `stopReason` from `stop`: `end` is `stop`, `tool_use` is `toolUse`); with `stop` `error`, an assistant message with `stopReason` `error` and `errorMessage`; then `turn_end` with the message and the tool results, once every call of the turn has its result"},
	{"tool_progress", PiToolUpdate, "`tool_execution_update` whose `partialResult` holds the call's output so far"},
	{"tool_result", PiToolEnd, "`tool_execution_end` (`result.content`, `isError` from `is_error`); once every call of the turn has its result, a `toolResult` message each (`message_start`, `message_end`) and the held `turn_end`"},
	{"text_delta", PiTextDelta, "`message_update` `text_start` when a text block begins, then `message_update` `text_delta`; the text is kept, so that `text_end` and `message_end` carry it whole"},
	{"error", PiError, "an assistant message with `stopReason` `error` and `errorMessage`, and `turn_end`; nothing when the turn's end already said so"},
	{"done", PiRunEnd, "the open message and turn ended, then `agent_end` with the run's messages (`willRetry` false) and `agent_settled` (`aborted` true after a successful `abort`)"},
}

var piSteps = func() map[string]PiStep {
	m := make(map[string]PiStep, len(Pi))
	for _, r := range Pi {
		m[r.Type] = r.Step
	}
	return m
}()

// PiStepOf returns the step for events of the zot type typ (decoded), or
// PiDrop for a type the mapping does not know.
func PiStepOf(typ []byte) PiStep { return piSteps[string(typ)] }

// Names in zot payloads that the pi mapping compares: the types of the
// content blocks of zot's messages and results, the reasons a turn stops,
// and the command whose success marks a run as aborted.
const (
	ZotBlockText     = "text"
	ZotBlockToolCall = "tool_call"
	ZotCommandAbort  = "abort"
)

// PiNoData are the commands whose response pi writes without data: zot's
// data, if any, is left out of their response. Other commands' data is
// kept as zot gives it (the prompt's aside, which becomes the disposition).
var PiNoData = map[string]bool{
	"abort": true, "set_thinking_level": true, "set_steering_mode": true,
	"set_follow_up_mode": true, "set_auto_compaction": true, "set_auto_retry": true,
	"abort_retry": true, "abort_bash": true, "set_session_name": true,
}

// PiStopReasons gives pi's stopReason for the stop of zot's turn_end. A
// stop not in it is pi's "stop", with zot's word kept in rawStopReason.
var PiStopReasons = map[string]string{
	"end":        "stop",
	"tool_use":   "toolUse",
	"error":      "error",
	"length":     "length",
	"max_tokens": "length",
	"aborted":    "aborted",
}
