package event

// The zot vocabulary: zot's RPC events as zot writes them, bare objects
// keyed by "type", in the order a run produces them; and, per type,
// glasspane's classification of it, which zot2gp writes as the envelope's
// kind. A type glasspane does not classify keeps its own name as the kind.
var Zot = register(&Vocabulary{
	Name:       "zot",
	Raw:        true,
	FailedType: "response",
	FailedKind: "error",
	Entries: []Entry{
		// A command's acknowledgement; the prompt's starts a run.
		{Kind: "response", Meaning: Ack, Session: true, Members: Members{OK: "success", Body: "error"}},
		{Kind: "user_message", Meaning: UserMessage, Glasspane: "message_update", Session: true, Members: Members{Body: "content"}},
		{Kind: "turn_start", Meaning: ModelCall, Flags: Turn, Glasspane: "turn_start", Members: Members{Step: "step"}},
		{Kind: "assistant_start", Glasspane: "message_start"},
		{Kind: "tool_use_start", Meaning: ToolStart, Glasspane: "tool_execution_start", Members: Members{ID: "id", Name: "name"}},
		{Kind: "tool_use_args", Meaning: ToolUpdate, Flags: Delta, Glasspane: "tool_execution_update", Members: Members{ID: "id", Args: "delta"}},
		{Kind: "tool_use_end", Meaning: ToolUpdate, Glasspane: "tool_execution_update", Members: Members{ID: "id"}},
		{Kind: "usage", Meaning: ModelResult},
		{Kind: "assistant_message", Meaning: Text, Glasspane: "message_end", Members: Members{Body: "content"}},
		// The complete call, after tool_use_start began it: glasspane
		// skips it.
		{Kind: "tool_call", Meaning: ToolStart, Flags: Restated, Members: Members{ID: "id", Name: "name", Args: "args"}},
		{Kind: "turn_end", Meaning: ModelEnd, Flags: Turn, Glasspane: "turn_end", Members: Members{Stop: "stop", Body: "error"}},
		{Kind: "tool_progress", Meaning: ToolUpdate, Flags: Delta, Glasspane: "tool_execution_update", Members: Members{ID: "id", Body: "text"}},
		{Kind: "tool_result", Meaning: ToolEnd, Glasspane: "tool_execution_end", Members: Members{ID: "id", IsError: "is_error", Body: "content"}},
		{Kind: "text_delta", Meaning: Text, Flags: Delta, Glasspane: "message_update", Members: Members{Body: "delta"}},
		{Kind: "error", Meaning: Error, Glasspane: "error", Members: Members{Body: "message"}},
		// The session ends.
		{Kind: "done", Meaning: RunEnd, Glasspane: "agent_end", Session: true},
	},
})
