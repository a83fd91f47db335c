package evimport

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Qwen Code (a fork of Gemini CLI) keeps each session in
// ~/.qwen/projects/<cwd with / made ->/chats/<session id>.jsonl
// ($QWEN_HOME moves ~/.qwen), a record a line: {uuid, parentUuid,
// sessionId, timestamp, type, cwd, version}, with the message as Gemini's
// API holds it (role and parts) for the types user, assistant (with its
// usageMetadata) and tool_result, and a subtype and systemPayload for
// system records. A resumed session (--continue, --resume) goes on in the
// same file. docs/formats.md has the mapping.
//
// The tokens are twice in the log: an assistant record's usageMetadata,
// and the ui_telemetry record qwen-code.api_response written just before
// it, which also names the response (response_id). The telemetry is read
// for the id and for the calls that have no assistant record (a
// subagent's); the tokens are the assistant record's.

type qwenLine struct {
	UUID      string          `json:"uuid"`
	SessionID string          `json:"sessionId" ev:"word"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type" ev:"word"`
	Subtype   string          `json:"subtype" ev:"word"`
	Cwd       string          `json:"cwd" ev:"word"`
	Model     string          `json:"model" ev:"word"`
	Message   *qwenMessage    `json:"message"`
	Usage     *qwenUsage      `json:"usageMetadata"`
	Result    *qwenToolResult `json:"toolCallResult"`
	// Payload is decoded for the subtypes read (qwenPayload), so that a
	// member of another shape in a subtype passed over is no bad line
	Payload json.RawMessage `json:"systemPayload"`
}

type qwenMessage struct {
	Role  string     `json:"role" ev:"word"`
	Parts []qwenPart `json:"parts"`
}

// qwenPart is a part of a message, as Gemini's API has them: a text (a
// thought when Thought is set), a function call, or a function's response.
type qwenPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name" ev:"word"`
		Args json.RawMessage `json:"args" ev:"object"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string `json:"id"`
		Response struct {
			Output string `json:"output"`
			Error  string `json:"error"`
		} `json:"response"`
	} `json:"functionResponse"`
}

// qwenUsage is Gemini's usageMetadata as Qwen Code fills it from an
// OpenAI-compatible response: candidatesTokenCount is the whole
// completion, thoughts included (the total says so), not Gemini's
// candidates without them.
type qwenUsage struct {
	Prompt     int64 `json:"promptTokenCount"`
	Candidates int64 `json:"candidatesTokenCount"`
	Thoughts   int64 `json:"thoughtsTokenCount"`
	Cached     int64 `json:"cachedContentTokenCount"`
	Total      int64 `json:"totalTokenCount"`
}

type qwenToolResult struct {
	CallID string `json:"callId"`
	Status string `json:"status" ev:"word"`
}

// qwenPayload holds the members of the systemPayload of the subtypes
// read: ui_telemetry's event, chat_compression's counts.
type qwenPayload struct {
	Event *qwenUIEvent `json:"uiEvent"`
	Info  *struct {
		Original int64 `json:"originalTokenCount"`
	} `json:"info"`
}

// qwenUIEvent is a telemetry event Qwen Code keeps in the chat; the
// api_response and api_error ones are read.
type qwenUIEvent struct {
	Name         string `json:"event.name" ev:"word"`
	ResponseID   string `json:"response_id"`
	Model        string `json:"model" ev:"word"`
	Input        int64  `json:"input_token_count"`
	Output       int64  `json:"output_token_count"`
	Cached       int64  `json:"cached_content_token_count"`
	Thoughts     int64  `json:"thoughts_token_count"`
	ErrorMessage string `json:"error_message"`
	SubagentID   string `json:"subagent_id"`
	SubagentType string `json:"subagent_type" ev:"word"`
}

var qwenLineTable, qwenPayloadTable = tableFor[qwenLine](), tableFor[qwenPayload]()

// usage maps the counts: input holds the cached part, as evtools'; the
// output holds the thoughts unless the total counts them apart (as
// Gemini's own API does).
func (u *qwenUsage) usage() usage {
	out := u.Candidates
	if u.Thoughts > 0 && u.Total == u.Prompt+u.Candidates+u.Thoughts {
		out += u.Thoughts
	}
	return usage{input: u.Prompt, cacheRead: u.Cached, output: out, reasoning: u.Thoughts, hasReasoning: true}
}

// qwenKnown are the record types read or passed over on purpose, a
// system record's as "system SUBTYPE": those Qwen Code 0.24's chat
// recording writes. Of the telemetry, api_response and api_error are
// read, the other events (tool_call, ...) passed over.
var qwenKnown = func() map[string]bool {
	m := map[string]bool{"user": true, "assistant": true, "tool_result": true}
	for _, t := range []string{
		"ui_telemetry", "chat_compression", "attribution_snapshot", "at_command", "background_task_completed",
		"branch_checkpoint", "custom_title", "file_history_snapshot", "goal_runtime", "goal_state",
		"goal_turn_end", "mid_turn_user_message", "omni_recall", "parent_session", "realtime_message",
		"rewind", "session_artifact_event", "session_artifact_snapshot", "session_model", "session_source",
		"session_sources_snapshot", "slash_command", "turn_result", "user_text_elements",
		"agent_bootstrap", "agent_launch_prompt", "agent_retry", "agent_session_ready",
	} {
		m["system "+t] = true
	}
	return m
}()

var qwenSource = source{
	name: "qwen", title: "Qwen Code", what: "a Qwen Code session",
	places:     []place{{Var: "QWEN_HOME", Home: ".qwen", In: []string{"projects"}, Whose: "Qwen Code's folder"}},
	claims:     []claim{{marked, qwenRecord}},
	sessionKey: qwenKey,
	// the files of one session (a copy) are read in turn as one log, a
	// record read once by its uuid
	convertSession: (*converter).qwen,
	known:          qwenKnown,
}

// qwenRecord reports whether a record is Qwen Code's: Claude Code's have
// a sessionId and a uuid too, but a message of content, not parts, and no
// tool_result type or systemPayload.
func qwenRecord(p *probe) bool {
	if p.SessionID == "" || p.UUID == "" {
		return false
	}
	if _, ok := jsonscan.Lookup(p.Message, "parts"); ok && len(p.Message) > 0 && p.Message[0] == '{' {
		return true
	}
	_, payload := jsonscan.Lookup(p.data, "systemPayload")
	return p.Type == "tool_result" || p.Type == "system" && payload
}

// qwenKey is the session a record names, as its JSON string.
func qwenKey(data []byte) []byte {
	v, _ := jsonscan.Lookup(data, "sessionId")
	return v
}

// qwenState is what a session's conversion carries from record to
// record.
type qwenState struct {
	c        *converter
	s        *session
	main     *builder
	response *qwenUIEvent         // the last api_response of the main thread, not yet claimed
	byID     map[string]*subagent // a subagent's calls, by its id
	subs     []*subagent          // in the order met
}

// qwen converts one session's files.
func (c *converter) qwen(files []*logFile) *session {
	s := newSession("qwen", "", "")
	st := &qwenState{c: c, s: s, main: newBuilder(c, s, mainAgent, false), byID: map[string]*subagent{}}
	eachRecord(c, qwenLineTable, files, func(l *qwenLine) string { return l.UUID }, func(d *fields, l *qwenLine) error {
		typ := l.Type
		if typ == "system" {
			typ += " " + l.Subtype
		}
		if !c.known("qwen", typ, qwenKnown) {
			return nil
		}
		if s.id == "" {
			s.id, s.project = l.SessionID, l.Cwd
		}
		var p qwenPayload
		telemetry := typ == "system ui_telemetry" || typ == "system chat_compression"
		if telemetry && d.enter(l.Payload, "systemPayload") {
			qwenPayloadTable.decode(d, l.Payload, &p)
		}
		if d.err == nil {
			st.record(l, &p)
		}
		return d.err
	})
	if s.id == "" {
		s.id = strings.TrimSuffix(baseName(files[0].name), ".jsonl")
	}
	return s.end(st.main, st.subs)
}

// record converts one record.
func (st *qwenState) record(l *qwenLine, p *qwenPayload) {
	b, ms := st.main, parseTime(l.Timestamp)
	switch l.Type {
	case "user":
		b.prompt(ms, qwenText(l.Message))
	case "assistant":
		st.assistant(ms, l)
	case "tool_result":
		ok := l.Result == nil || l.Result.Status == "success"
		for _, part := range qwenParts(l.Message) {
			if r := part.FunctionResponse; r != nil {
				b.toolResult(ms, r.ID, ok && r.Response.Error == "", cmp.Or(r.Response.Output, r.Response.Error))
			}
		}
	case "system":
		switch {
		case p.Info != nil:
			b.compaction(ms, "", p.Info.Original, "")
		case p.Event != nil:
			st.telemetry(ms, p.Event)
		}
	}
}

// assistant is a response of the model: its text, thoughts and calls,
// the tokens of its usageMetadata (else its telemetry's), the id its
// telemetry gives.
func (st *qwenState) assistant(ms int64, l *qwenLine) {
	b := st.main
	b.setModel("", l.Model)
	b.modelCall(ms)
	var thinking []string
	for _, part := range qwenParts(l.Message) {
		switch {
		case part.FunctionCall != nil:
			b.toolCall(ms, part.FunctionCall.ID, part.FunctionCall.Name, part.FunctionCall.Args)
		case part.Thought:
			thinking = append(thinking, part.Text)
		default:
			b.text(ms, part.Text)
		}
	}
	var u usage
	switch e := st.response; {
	case l.Usage != nil:
		u = l.Usage.usage()
	case e != nil:
		u = e.usage()
	default:
		u.unknown = true
	}
	if st.response != nil {
		u.responseID = st.response.ResponseID
		st.response = nil
	}
	u.thinking = strings.Join(thinking, "\n")
	b.modelResult(ms, u)
}

// telemetry reads an API response or error: the main thread's response
// names the assistant record that follows; a subagent's is a call of its
// own thread, the only record of it in the chat.
func (st *qwenState) telemetry(ms int64, e *qwenUIEvent) {
	switch e.Name {
	case "qwen-code.api_response":
		if e.SubagentID == "" {
			st.response = e
			return
		}
		sb := st.byID[e.SubagentID]
		if sb == nil {
			sb = &subagent{role: cmp.Or(e.SubagentType, "subagent")}
			sb.b = newBuilder(st.c, st.s, sb.role+":"+e.SubagentID, true)
			st.byID[e.SubagentID] = sb
			st.subs = append(st.subs, sb)
		}
		b := sb.b
		b.setModel("", e.Model)
		b.modelCall(ms)
		u := e.usage()
		u.responseID = e.ResponseID
		b.modelResult(ms, u)
	case "qwen-code.api_error":
		if e.SubagentID == "" {
			st.main.setModel("", e.Model)
			st.main.modelError(ms, e.ErrorMessage, "error")
		}
	}
}

// usage maps a telemetry event's counts, as qwenUsage's: the output holds
// the thoughts.
func (e *qwenUIEvent) usage() usage {
	return usage{input: e.Input, cacheRead: e.Cached, output: e.Output, reasoning: e.Thoughts, hasReasoning: true}
}

func qwenParts(m *qwenMessage) []qwenPart {
	if m == nil {
		return nil
	}
	return m.Parts
}

// qwenText is a message's text parts, thoughts left out.
func qwenText(m *qwenMessage) string {
	var texts []string
	for _, part := range qwenParts(m) {
		if part.Text != "" && !part.Thought {
			texts = append(texts, part.Text)
		}
	}
	return strings.Join(texts, "\n")
}
