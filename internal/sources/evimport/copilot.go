package evimport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// GitHub Copilot CLI keeps each session in
// ~/.copilot/session-state/<session id>/events.jsonl ($COPILOT_HOME moves
// ~/.copilot; versions before 0.0.34x wrote session-state/<id>.jsonl, and
// some sessions sit under history-session-state/): one event a line,
// {type, id, timestamp, parentId, agentId, data}, as the SDK declares them
// (session-events.d.ts of @github/copilot-sdk). docs/formats.md has the
// mapping; internal/devtools/e2e/copilot_test.go holds it to the declaration.
//
// What the log says of tokens: since 1.0.10x, a session.usage_record
// before each response's assistant.message (the same apiCallId) with the
// call's whole usage, and session.shutdown's totals are the session's
// since it began, resumes included: the records are the tokens. Before,
// each assistant.message its outputTokens; each session.shutdown, per
// model, the input (cache reads and writes included), output and cache
// counts of the requests since the session was started or resumed; the
// input of a single call was in no persisted event (assistant.usage,
// which has it, is never written to disk).

// copilotLine is one event; its data is decoded for the types read
// (copilotData), so that a member of another shape in a type passed over
// is no bad line.
type copilotLine struct {
	Type      string          `json:"type" ev:"word"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId" ev:"word"`
	Data      json.RawMessage `json:"data"`
}

// copilotData holds the members of the data of every type read.
type copilotData struct {
	SessionID      string          `json:"sessionId"`
	CopilotVersion string          `json:"copilotVersion"`
	SelectedModel  string          `json:"selectedModel" ev:"word"`
	Context        *copilotContext `json:"context"`
	NewModel       string          `json:"newModel" ev:"word"`

	Content          string               `json:"content"`
	Model            string               `json:"model" ev:"word"`
	APICallID        string               `json:"apiCallId"`
	RequestID        string               `json:"requestId"`
	ChunkIndex       int64                `json:"chunkIndex"`
	ChunkCount       int64                `json:"chunkCount"`
	ToolRequests     []copilotToolRequest `json:"toolRequests"`
	OutputTokens     *int64               `json:"outputTokens"`
	ReasoningText    string               `json:"reasoningText"`
	ParentToolCallID string               `json:"parentToolCallId"`

	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName" ev:"word"`
	Arguments  json.RawMessage `json:"arguments"`
	Success    bool            `json:"success"`
	Result     *copilotResult  `json:"result"`
	// Error is an object ({message}) for a tool, a string for a subagent
	Error json.RawMessage `json:"error"`

	AgentName        string `json:"agentName" ev:"word"`
	AgentDescription string `json:"agentDescription"`
	ParentID         string `json:"parentId"`

	Message string `json:"message"` // session.error
	Reason  string `json:"reason"`  // abort

	Trigger             string `json:"trigger"`
	PreCompactionTokens int64  `json:"preCompactionTokens"`
	SummaryContent      string `json:"summaryContent"`

	ModelMetrics map[string]copilotMetric `json:"modelMetrics"`

	Usage *copilotUsage `json:"usage"` // session.usage_record
}

// copilotUsage is a call's usage in a session.usage_record: the input
// counts the cache reads and writes, as evtools does.
type copilotUsage struct {
	Model            string `json:"model" ev:"word"`
	APICallID        string `json:"apiCallId"`
	InputTokens      int64  `json:"inputTokens"`
	OutputTokens     int64  `json:"outputTokens"`
	CacheReadTokens  int64  `json:"cacheReadTokens"`
	CacheWriteTokens int64  `json:"cacheWriteTokens"`
	ReasoningTokens  *int64 `json:"reasoningTokens"`
	ms               int64
}

// usage is the record's usage, for the call of model.
func (u *copilotUsage) usage(model string) usage {
	out := usage{model: cmp.Or(u.Model, model), input: u.InputTokens, cacheRead: u.CacheReadTokens,
		cacheWrite: u.CacheWriteTokens, output: u.OutputTokens, responseID: u.APICallID}
	if u.ReasoningTokens != nil {
		out.reasoning, out.hasReasoning = *u.ReasoningTokens, true
	}
	return out
}

type copilotContext struct {
	Cwd string `json:"cwd" ev:"word"`
}

type copilotToolRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name" ev:"word"`
	Arguments  json.RawMessage `json:"arguments"`
}

var copilotLineTable, copilotDataTable = tableFor[copilotLine](), tableFor[copilotData]()

type copilotResult struct {
	Content string `json:"content"`
}

// copilotMetric is a model's usage in a session.shutdown.
type copilotMetric struct {
	Requests struct {
		Count int64 `json:"count"`
		// Cost is the premium requests (the model's multiplier times
		// its requests): a count, not dollars
		Cost float64 `json:"cost"`
	} `json:"requests"`
	Usage struct {
		InputTokens      int64 `json:"inputTokens"`
		OutputTokens     int64 `json:"outputTokens"`
		CacheReadTokens  int64 `json:"cacheReadTokens"`
		CacheWriteTokens int64 `json:"cacheWriteTokens"`
		ReasoningTokens  int64 `json:"reasoningTokens"`
	} `json:"usage"`
}

// copilotRead are the event types converted; copilotKnown adds those
// passed over on purpose: the other types the SDK declares persisted
// (not "ephemeral": true), none of which is a prompt, a call, a tool or
// tokens. The e2e test checks both against session-events.d.ts.
var copilotRead = []string{
	"session.start", "session.resume", "session.model_change", "session.shutdown", "session.error",
	"session.compaction_complete", "session.usage_record", "user.message", "assistant.message", "tool.execution_start",
	"tool.execution_complete", "subagent.started", "subagent.completed", "subagent.failed", "abort",
}

var copilotSkipped = []string{
	"assistant.turn_start", "assistant.turn_end", "assistant.reasoning", "hook.start", "hook.end",
	"system.message", "system.notification", "session.info", "session.warning", "session.truncation",
	"session.usage_checkpoint", "session.context_changed", "session.context_cleared",
	"session.compaction_start", "session.task_complete", "session.completion_receipt",
	"session.handoff", "session.mode_changed", "session.mode_notice_delivered",
	"session.plan_changed", "session.permissions_changed", "session.workspace_file_changed",
	"session.remote_steerable_changed", "session.session_limits_changed",
	"session.autopilot_objective_changed", "session.schedule_created", "session.schedule_cancelled",
	"session.schedule_rearmed", "session.binary_asset", "session.auto_mode_resolved",
	"session.fusion_resolved", "session.fusion_completed", "session.fusion_route_failed",
	"session.canvas.recorded", "session.canvas.removed",
	"assistant.fusion_phase_completed", "assistant.fusion_phase_failed",
	"subagent.configured", "subagent.selected", "subagent.deselected", "skill.invoked",
	"tool.user_requested", "tool_search.activated", "external_tool.requested", "external_tool.completed",
	"permission.requested", "permission.completed", "permission.carriedForward",
	"permission.messageAuthorization", "permission.messageAuthorizationRead",
	"permission.messageAuthorizationDegraded", "permission.assentDetected",
	"permission.contextualAuthorization",
}

var copilotKnown = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range append(append([]string{}, copilotRead...), copilotSkipped...) {
		m[t] = true
	}
	return m
}()

var copilotSource = source{
	name: "copilot", title: "Copilot CLI", longName: "GitHub Copilot CLI", what: "a Copilot CLI session",
	places:     []place{{Var: "COPILOT_HOME", Home: ".copilot", In: []string{"session-state", "history-session-state"}, Whose: "Copilot CLI's folder"}},
	claims:     []claim{{loose, copilotRecord}},
	sessionKey: copilotKey,
	// the files of one session (a copy, the session in both layouts)
	// are read in turn as one log, an event read once by its id
	convertSession: (*converter).copilot,
	known:          copilotKnown,
}

// copilotRecord reports whether a record is a Copilot CLI event: a dotted
// type with a data object and an id (no other agent's records have one).
func copilotRecord(p *probe) bool {
	return strings.Contains(p.Type, ".") && p.ID != "" && len(p.Data) > 0 && p.Data[0] == '{'
}

// copilotKey is the session a file's record names (session.start's
// sessionId), as its JSON string; nil for another record.
func copilotKey(data []byte) []byte {
	if t, _ := jsonscan.Lookup(data, "type"); !jsonscan.StringEquals(t, "session.start") {
		return nil
	}
	v, _ := jsonscan.Lookup(data, "data", "sessionId")
	return v
}

// copilotFileSession is the session id a file's name gives: the folder of
// an events.jsonl, the name of a <session id>.jsonl (the older layout).
func copilotFileSession(name string) string {
	if baseName(name) == "events.jsonl" {
		return filepath.Base(filepath.Dir(name))
	}
	return strings.TrimSuffix(baseName(name), ".jsonl")
}

// copilotCall is a model call being read: a response may be written as
// several assistant.message chunks sharing an apiCallId.
type copilotCall struct {
	open     bool
	api      string
	output   int64
	known    bool          // the log gives its output tokens
	record   *copilotUsage // its session.usage_record, where the log has one
	thinking strings.Builder
	model    string
	ms       int64
}

// copilotState is what a session's conversion carries from event to
// event.
type copilotState struct {
	c       *converter
	s       *session
	main    *builder
	byCall  map[string]*subagent // by the id of the call that spawned it
	subs    []*subagent          // in the order met
	agentOf map[string]string    // agentId -> the call that spawned it
	calls   map[*builder]*copilotCall
	model   string           // the session's model, for a message that names none
	known   map[string]int64 // output of the calls since the last shutdown, by model
	told    int              // calls since the last shutdown whose output is told
	untold  int              // calls since the last shutdown with no token count
	file    string
	// the session.usage_records no message has claimed yet, by apiCallId;
	// recorded says the log has such records (its shutdowns then count
	// nothing of their own)
	records  map[string]*copilotUsage
	recorded bool
}

// copilot converts one session's files, the shorter first.
func (c *converter) copilot(files []*logFile) *session {
	sort.SliceStable(files, func(i, j int) bool { return len(files[i].records) < len(files[j].records) })
	s := newSession("copilot", "", "")
	st := &copilotState{c: c, s: s, byCall: map[string]*subagent{}, agentOf: map[string]string{},
		calls: map[*builder]*copilotCall{}, known: map[string]int64{}, records: map[string]*copilotUsage{}, file: files[0].label()}
	st.main = newBuilder(c, s, mainAgent, false)
	st.main.setModel("github-copilot", "")
	eachRecord(c, copilotLineTable, files, func(l *copilotLine) string { return l.ID }, func(d *fields, l *copilotLine) error {
		if !c.known("copilot", l.Type, copilotKnown) || !slices.Contains(copilotRead, l.Type) {
			return nil
		}
		var data copilotData
		if d.enter(l.Data, "data") {
			if copilotDataTable.decode(d, l.Data, &data); d.err == nil {
				data.shape(d, l.Type)
			}
		}
		if d.err == nil {
			st.event(l, &data)
		}
		return d.err
	})
	if s.id == "" {
		s.id = copilotFileSession(files[0].name)
	}
	for b := range st.calls {
		// A call still open is a chunked response whose last chunk has
		// not come (a message of one chunk ends its call): its result,
		// thinking and output tokens may still grow (--follow).
		from := len(b.out)
		st.endCall(b, b.lastMS)
		b.unsettle(from)
	}
	st.unclaimed()
	st.lifetimeEnd()
	return s.end(st.main, st.subs)
}

// shape checks the error of an event of type typ, which the decoder
// leaves as it is: a failed tool's {message}, a failed subagent's text.
// One of the wrong type is noted to d, as a member the decoder reads is:
// not a failure told as nothing.
func (m *copilotData) shape(d *fields, typ string) {
	switch typ {
	case "tool.execution_complete":
		d.in(m.Error, "error", func(k, v []byte) {
			if string(k) == "message" {
				d.checkStr(v, "message")
			}
		})
	case "subagent.failed":
		d.checkStr(m.Error, "error")
	}
}

// thread is the builder of the agent an event is of: a subagent's (its
// agentId, or the deprecated parentToolCallId, naming it), else main.
func (st *copilotState) thread(l *copilotLine, data *copilotData, ms int64) *builder {
	call := data.ParentToolCallID
	if call != "" && l.AgentID != "" {
		st.agentOf[l.AgentID] = call
	}
	if call == "" && l.AgentID != "" {
		call = st.agentOf[l.AgentID]
		if call == "" {
			call = "agent " + l.AgentID // no call known to have spawned it
		}
	}
	if call == "" {
		return st.main
	}
	return st.sub(call, ms).b
}

// sub is the subagent of key (the id of the call that spawned it, or
// "agent ID" for one no known call spawned), begun at ms if new.
func (st *copilotState) sub(key string, ms int64) *subagent {
	sb := st.byCall[key]
	if sb == nil {
		sb = &subagent{anchor: key, role: "subagent", firstMS: ms}
		id := key
		if rest, ok := strings.CutPrefix(key, "agent "); ok {
			sb.anchor, id = "", rest
		}
		sb.b = newBuilder(st.c, st.s, "subagent:"+id, true)
		sb.b.setModel("github-copilot", st.model)
		st.byCall[key] = sb
		st.subs = append(st.subs, sb)
	}
	return sb
}

// event reads one line: what it says of the session or of a subagent's
// life, else what an agent (main or a subagent) did.
func (st *copilotState) event(l *copilotLine, data *copilotData) {
	ms := parseTime(l.Timestamp)
	if !st.sessionEvent(l, data, ms) {
		st.agentEvent(st.thread(l, data, ms), l.Type, data, ms)
	}
}

// sessionEvent reads a line about the session or a subagent's life, and
// says whether it was one.
func (st *copilotState) sessionEvent(l *copilotLine, data *copilotData, ms int64) bool {
	switch l.Type {
	case "session.start", "session.resume":
		if data.SessionID != "" && st.s.id == "" {
			st.s.id = data.SessionID
		}
		if data.Context != nil && st.s.project == "" {
			st.s.project = data.Context.Cwd
		}
		if data.CopilotVersion != "" {
			st.main.version = data.CopilotVersion
		}
		st.setModel(data.SelectedModel)
	case "session.model_change":
		st.setModel(data.NewModel)
	case "session.shutdown":
		for b := range st.calls {
			st.endCall(b, ms)
		}
		st.unclaimed()
		if !st.recorded {
			st.shutdown(ms, data.ModelMetrics)
		}
	case "session.usage_record":
		if u := data.Usage; u != nil {
			u.ms, st.recorded = ms, true
			st.records[u.APICallID] = u
		}
	case "abort":
		st.main.interrupted(ms, "aborted: "+cmp.Or(data.Reason, "by the user"))
	case "subagent.started":
		st.subagentStarted(l, data, ms)
	case "subagent.completed", "subagent.failed":
		st.subagentEnded(l, data, ms)
	default:
		return false
	}
	return true
}

// subagentStarted names the subagent a call spawned, and the agent id
// its lines will carry.
func (st *copilotState) subagentStarted(l *copilotLine, data *copilotData, ms int64) {
	sb := st.sub(data.ToolCallID, ms)
	sb.role, sb.about = cmp.Or(data.AgentName, sb.role), oneLine(data.AgentDescription, 200)
	sb.b.agent = sb.role + ":" + data.ToolCallID
	sb.b.setModel("", data.Model)
	if l.AgentID != "" && l.AgentID != data.ParentID {
		st.agentOf[l.AgentID] = data.ToolCallID
	}
}

// subagentEnded ends a subagent's last model call, and says why it
// failed if it did.
func (st *copilotState) subagentEnded(l *copilotLine, data *copilotData, ms int64) {
	sb := st.sub(data.ToolCallID, ms)
	st.endCall(sb.b, ms)
	sb.b.lastMS = max(sb.b.lastMS, ms)
	if l.Type == "subagent.failed" {
		var why string
		if len(data.Error) > 0 && data.Error[0] == '"' {
			why = unquote(data.Error)
		}
		sb.b.lastError = cmp.Or(why, "failed")
	}
}

// agentEvent reads a line of what the agent of b did.
func (st *copilotState) agentEvent(b *builder, typ string, data *copilotData, ms int64) {
	switch typ {
	case "user.message":
		st.endCall(b, ms)
		b.prompt(ms, data.Content)
	case "assistant.message":
		st.message(b, ms, data)
	case "tool.execution_start":
		if _, ok := b.tools[data.ToolCallID]; !ok {
			// a call no response asked for (one the user asked for)
			b.toolCall(ms, data.ToolCallID, data.ToolName, copilotArgs(data.Arguments))
		}
	case "tool.execution_complete":
		out := ""
		if data.Result != nil {
			out = data.Result.Content
		}
		if !data.Success {
			out, _ = errorMessage(data.Error, out)
		}
		b.toolResult(ms, data.ToolCallID, data.Success, out)
	case "session.error":
		st.endCall(b, ms)
		b.modelError(ms, data.Message, "error")
	case "session.compaction_complete":
		if data.Success {
			b.compaction(ms, data.Trigger, data.PreCompactionTokens, data.SummaryContent)
		}
	}
}

// setModel is the session's model, for the messages that name none.
func (st *copilotState) setModel(m string) {
	if m != "" {
		st.model = m
		st.main.setModel("", m)
	}
}

// message is an assistant.message: a model call, or a chunk of one.
func (st *copilotState) message(b *builder, ms int64, m *copilotData) {
	call := st.calls[b]
	if call == nil {
		call = &copilotCall{}
		st.calls[b] = call
	}
	chunked := m.ChunkCount > 1 && m.APICallID != ""
	if !(chunked && call.open && call.api == m.APICallID) {
		st.endCall(b, ms)
		b.setModel("", cmp.Or(m.Model, st.model))
		b.modelCall(ms)
		call.open, call.api, call.output, call.known, call.model = true, cmp.Or(m.APICallID, m.RequestID), 0, false, b.model
		call.record = st.records[m.APICallID]
		delete(st.records, m.APICallID)
		call.thinking.Reset()
	}
	call.ms = ms
	b.text(ms, m.Content)
	for _, tr := range m.ToolRequests {
		b.toolCall(ms, tr.ToolCallID, tr.Name, copilotArgs(tr.Arguments))
	}
	if m.OutputTokens != nil {
		// the API response's count: each chunk of one may repeat it
		call.output, call.known = max(call.output, *m.OutputTokens), true
	}
	if m.ReasoningText != "" {
		if call.thinking.Len() > 0 {
			call.thinking.WriteByte('\n')
		}
		call.thinking.WriteString(m.ReasoningText)
	}
	if !chunked || m.ChunkIndex >= m.ChunkCount-1 {
		st.endCall(b, ms)
	}
}

// endCall writes the model_result of b's call being read, if one is:
// its output tokens where the log gives them (the input of a call is in
// no persisted event; session.shutdown's totals come at the end), else
// no_usage, as for Codex without token counts.
func (st *copilotState) endCall(b *builder, ms int64) {
	call := st.calls[b]
	if call == nil || !call.open {
		return
	}
	call.open = false
	if call.record != nil {
		u := call.record.usage(call.model)
		u.thinking = call.thinking.String()
		b.modelResult(call.ms, u)
		return
	}
	if !call.known {
		// no token count: not 0, which a sum would take as free
		st.untold++
		b.modelResult(call.ms, usage{model: call.model, unknown: true, thinking: call.thinking.String(), responseID: call.api})
		return
	}
	st.known[call.model] += call.output
	st.told++
	b.modelResult(call.ms, usage{model: call.model, output: call.output, thinking: call.thinking.String(), responseID: call.api})
}

// shutdown writes, for each model, a model_result of what the session's
// shutdown counts beyond the calls' own output: its input (cache reads
// and writes included), cache reads and writes, and the output the
// messages did not tell, so that the session's totals per model are the
// log's own. It is priced without long-context tiers: it is no one call.
// requests and premium_requests are the shutdown's counts.
func (st *copilotState) shutdown(ms int64, metrics map[string]copilotMetric) {
	b := st.main
	for _, m := range slices.Sorted(maps.Keys(metrics)) {
		mm := metrics[m]
		u := usage{provider: "github-copilot", model: m, input: mm.Usage.InputTokens, cacheRead: mm.Usage.CacheReadTokens,
			cacheWrite: mm.Usage.CacheWriteTokens, output: max(mm.Usage.OutputTokens-st.known[m], 0), untiered: true}
		if mm.Usage.ReasoningTokens > 0 {
			u.reasoning, u.hasReasoning = mm.Usage.ReasoningTokens, true
		}
		b.ensureStarted(ms)
		p := st.c.resultPayload(b.step, u)
		o := st.c.obj(0).num("requests", mm.Requests.Count)
		o.key("premium_requests")
		o.b = appendNumber(o.b, mm.Requests.Cost)
		extra := o.str("usage_of", "session").done()
		p = append(append(p[:len(p)-1], ','), extra[1:]...)
		b.emit(ms, mainAgent, "model_result", p)
	}
	st.known, st.told, st.untold = map[string]int64{}, 0, 0
}

// unclaimed writes, as calls of their own, the usage records no
// assistant.message claimed (a response with nothing to say): their
// tokens were used all the same.
func (st *copilotState) unclaimed() {
	// in the log's order, whatever the map's
	left := slices.Collect(maps.Values(st.records))
	sort.Slice(left, func(i, j int) bool {
		return left[i].ms < left[j].ms || left[i].ms == left[j].ms && left[i].APICallID < left[j].APICallID
	})
	for _, u := range left {
		st.main.setModel("", cmp.Or(u.Model, st.model))
		st.main.modelCall(u.ms)
		st.main.modelResult(u.ms, u.usage(st.model))
	}
	clear(st.records)
}

// lifetimeEnd notes the calls after the last shutdown (or of a log with
// none: a session running, ended by a crash, or of a version before 1.0),
// whose input the log does not give.
func (st *copilotState) lifetimeEnd() {
	if st.untold > 0 {
		st.c.noUsage[st.file] += st.untold
	}
	if st.told > 0 {
		st.c.copilotUntold[st.file] += st.told
	}
}

// copilotArgs are a tool call's arguments as an object: a string (a
// custom tool's input) is {"input": ...}.
func copilotArgs(raw json.RawMessage) []byte {
	switch {
	case len(raw) == 0 || raw[0] == 'n':
		return []byte("{}")
	case raw[0] == '{':
		return raw
	}
	return append(append([]byte(`{"input":`), raw...), '}')
}

// appendNumber appends f as JSON writes a number.
func appendNumber(b []byte, f float64) []byte {
	v, _ := json.Marshal(f)
	return append(b, v...)
}

// copilotReport names the Copilot CLI files with calls after their last
// session.shutdown whose output only the log gives (those with no count
// at all are no_usage, said with the others).
func copilotReport(say func(key, line string), untold map[string]int) {
	for _, f := range slices.Sorted(maps.Keys(untold)) {
		say("copilot "+f, fmt.Sprintf("%s: %s: no session.shutdown after %d Copilot CLI model %s (a session running, ended by a crash, or of a version before 1.0): their input tokens are not in the log and not counted, only their output\n",
			name, f, untold[f], plural(untold[f], "call", "calls")))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
