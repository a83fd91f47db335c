package event

// The run-log vocabulary: the envelope kinds of a multi-agent run log, in
// the order a run writes them. Every run ends with exactly one
// run_finished, after either assistant_message or run_error.
var RunLog = register(&Vocabulary{
	Name:   "run-log",
	Strict: true,
	Entries: []Entry{
		{Kind: "user_message", Meaning: UserMessage, Members: Members{Body: "text"}},
		{Kind: "run_started", Meaning: RunStart, Members: Members{Model: "model"}},
		{Kind: "parent_decision", Meaning: Decision, Members: Members{Body: "reason", Outcome: "decision"}},
		{Kind: "agent_spawned", Meaning: AgentStart, Members: Members{Name: "role", Model: "model", Body: "intent", Parent: "parent_id"}},
		{Kind: "agent_finished", Meaning: AgentEnd, Members: Members{Outcome: "outcome", Wall: "wall_seconds", Body: "error"}},
		{Kind: "model_call", Meaning: ModelCall, Members: Members{Model: "model", Step: "step"}},
		{Kind: "model_result", Meaning: ModelResult, Members: Members{Model: "model", Step: "step", Latency: "latency_ms", Thinking: "thinking"}},
		{Kind: "tool_call", Meaning: ToolStart, Members: Members{ID: "id", Name: "tool", Args: "args", Step: "step"}},
		{Kind: "tool_result", Meaning: ToolEnd, Members: Members{ID: "id", Name: "tool", OK: "ok", IsError: "is_error", Step: "step", Body: "output|error"}},
		{Kind: "guardrail", Meaning: Guardrail, Members: Members{Name: "tool", Body: "rule", Outcome: "action", Step: "step"}},
		{Kind: "model_error", Meaning: ModelError, Members: Members{Body: "message|error", Model: "model", Step: "step"}},
		{Kind: "killed", Meaning: Kill, Members: Members{Body: "reason", Step: "step"}},
		{Kind: "assistant_message", Meaning: Text, Flags: Final, Members: Members{Body: "text"}},
		{Kind: "run_error", Meaning: Error, Flags: Final, Members: Members{Body: "error", Outcome: "stopped"}},
		{Kind: "run_finished", Meaning: RunEnd, Members: Members{Outcome: "outcome", Wall: "wall_seconds"}},
	},
})
