// Package event names the envelope every ev* tool reads and writes
// (DESIGN.md 1.3) and the two kind vocabularies found in it: the glasspane
// kinds zot2gp writes (1.2) and the kinds of a multi-agent run log (seed 002).
package event

// The envelope's keys, in the order the tools write them.
const (
	KeySeq     = "seq"
	KeyTS      = "ts"
	KeyRunID   = "run_id"
	KeyAgentID = "agent_id"
	KeyKind    = "kind"
	KeyPayload = "payload"
)

// Glasspane kinds (DESIGN.md 1.2): what zot2gp writes for the zot types
// glasspane maps.
const (
	MessageUpdate       = "message_update"
	TurnStart           = "turn_start"
	MessageStart        = "message_start"
	ToolExecutionStart  = "tool_execution_start"
	ToolExecutionUpdate = "tool_execution_update"
	MessageEnd          = "message_end"
	TurnEnd             = "turn_end"
	ToolExecutionEnd    = "tool_execution_end"
	Error               = "error"
	AgentEnd            = "agent_end"
)

// Kinds zot2gp passes through from zot because glasspane does not map them.
const (
	Response = "response"
	Usage    = "usage"
	ToolCall = "tool_call" // also a run-log kind
)

// Run-log kinds (seed 002, DESIGN.md 1.3).
const (
	UserMessage      = "user_message"
	RunStarted       = "run_started"
	ParentDecision   = "parent_decision"
	AgentSpawned     = "agent_spawned"
	AgentFinished    = "agent_finished"
	ModelCall        = "model_call"
	ModelResult      = "model_result"
	ToolResult       = "tool_result"
	Guardrail        = "guardrail"
	ModelError       = "model_error"
	Killed           = "killed"
	AssistantMessage = "assistant_message"
	RunError         = "run_error"
	RunFinished      = "run_finished"
)

// GlasspaneKinds lists the 1.2 vocabulary.
var GlasspaneKinds = []string{
	MessageUpdate, TurnStart, MessageStart, ToolExecutionStart, ToolExecutionUpdate,
	MessageEnd, TurnEnd, ToolExecutionEnd, Error, AgentEnd,
}

// RunLogKinds lists the 1.3 vocabulary of seed 002, in the seed's order.
var RunLogKinds = []string{
	UserMessage, RunStarted, ParentDecision, AgentSpawned, AgentFinished,
	ModelCall, ModelResult, ToolCall, ToolResult, Guardrail, ModelError,
	Killed, AssistantMessage, RunError, RunFinished,
}
