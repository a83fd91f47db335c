package event

// The glasspane vocabulary: the kinds zot2gp writes into the envelope. Each
// is glasspane's classification of a zot event, and the payload is that zot
// event exactly as zot wrote it ("type" included), so the fields are read
// with zot's member names. Kinds glasspane does not classify (response,
// usage, tool_call) keep their zot type as their kind.
var Glasspane = register(&Vocabulary{
	Name: "glasspane",
	Entries: []Entry{
		// message_update carries both the user's message and the reply's
		// text deltas: the payload's type tells them apart.
		{Kind: "message_update", Type: "user_message", Meaning: UserMessage, Members: Members{Body: "content"}},
		{Kind: "message_update", Type: "text_delta", Meaning: Text, Flags: Delta, Members: Members{Body: "delta"}},
		{Kind: "message_update"},
		{Kind: "turn_start", Meaning: ModelCall, Flags: Turn, Members: Members{Step: "step"}},
		{Kind: "message_start"},
		{Kind: "tool_execution_start", Meaning: ToolStart, Members: Members{ID: "id", Name: "name|tool"}},
		{Kind: "tool_execution_update", Type: "tool_use_args", Meaning: ToolUpdate, Flags: Delta, Members: Members{ID: "id", Args: "delta"}},
		{Kind: "tool_execution_update", Type: "tool_progress", Meaning: ToolUpdate, Flags: Delta, Members: Members{ID: "id", Body: "text"}},
		{Kind: "tool_execution_update", Meaning: ToolUpdate, Members: Members{ID: "id"}},
		{Kind: "message_end", Meaning: Text, Members: Members{Body: "content"}},
		{Kind: "turn_end", Meaning: ModelEnd, Flags: Turn, Members: Members{Stop: "stop", Body: "error"}},
		{Kind: "tool_execution_end", Meaning: ToolEnd, Members: Members{ID: "id", Name: "name|tool", IsError: "is_error", Body: "content"}},
		{Kind: "error", Meaning: Error, Members: Members{Body: "message|error"}},
		{Kind: "agent_end", Meaning: RunEnd},

		// Passed through from zot.
		{Kind: "response", Meaning: Ack, Members: Members{OK: "success", Body: "error"}},
		{Kind: "usage", Meaning: ModelResult},
		// The complete call, after tool_use_start (tool_execution_start)
		// has begun it: zot's calls have an id, a run log's have none.
		{Kind: "tool_call", Needs: ID, Meaning: ToolStart, Flags: Restated, Members: Members{ID: "id", Name: "name|tool", Args: "args"}},
	},
})
