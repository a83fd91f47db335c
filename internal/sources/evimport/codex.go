package evimport

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// OpenAI Codex's rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl,
// one {"timestamp","type","payload"} record a line. docs/formats.md has
// the mapping.

var codexSource = source{
	name: "codex", title: "Codex", longName: "OpenAI Codex", what: "a Codex rollout",
	places: []place{{Var: "CODEX_HOME", Home: ".codex", In: []string{"sessions"}, Whose: "Codex's folder"}},
	claims: []claim{{marked, func(p *probe) bool {
		return p.Payload != nil && (p.Type == "session_meta" || p.Type == "response_item" || p.Type == "event_msg" || p.Type == "turn_context")
	}}},
	keys:    codexKeys,
	keyed:   func(f *logFile) bool { return f.keys != nil },
	session: codexSession,
	convert: (*converter).codexAll,
	known:   codexKnown,
}

// codexKeys notes a rollout's id, or its parent's for a spawned agent's
// (then f.parent), from its session_meta.
func codexKeys(f *logFile) {
	for _, r := range f.records {
		var l codexLine
		cf := &codexFile{}
		if typ, _ := jsonscan.Lookup(r.data, "type"); !jsonscan.StringEquals(typ, "session_meta") {
			continue
		}
		// read as the conversion reads it (codexDecode): a session_meta
		// line holds the whole of the agent's instructions, which
		// encoding/json took long to read
		var d fields
		if codexLineTable.decode(&d, r.data, &l); d.err != nil || len(l.Payload) == 0 || l.Payload[0] != '{' && l.Payload[0] != 'n' {
			continue
		}
		if codexPayloadTable.decode(&d, l.Payload, &cf.meta); d.err != nil {
			continue
		}
		if parent, _ := cf.parentThread(); parent != "" {
			f.keys, f.parent = []string{parent, cf.meta.ID}, true
		} else {
			f.keys = []string{cf.meta.ID}
		}
		return
	}
}

// codexSession is the session a rollout is followed under: its
// parent's for a spawned agent's.
func codexSession(f *logFile) (string, bool) {
	if len(f.records) > 0 {
		var l codexLine
		cf := &codexFile{}
		if json.Unmarshal(f.records[0].data, &l) == nil && l.Type == "session_meta" && json.Unmarshal(l.Payload, &cf.meta) == nil {
			if parent, _ := cf.parentThread(); parent != "" {
				return parent, true
			}
			return cf.meta.ID, true
		}
	}
	return "", false
}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type" ev:"word"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload holds the members of every payload type evimport reads.
type codexPayload struct {
	Type string `json:"type" ev:"word"`
	// session_meta
	ID            string          `json:"id"`
	Timestamp     string          `json:"timestamp"`
	Cwd           string          `json:"cwd" ev:"word"`
	CLIVersion    string          `json:"cli_version"`
	ModelProvider string          `json:"model_provider"`
	ForkedFromID  string          `json:"forked_from_id"`
	Source        json.RawMessage `json:"source"`
	// turn_context (and task_started: its turn_id, a copy: the line is
	// not kept for 40 bytes)
	Model  string          `json:"model" ev:"word"`
	TurnID json.RawMessage `json:"turn_id" ev:"copy"`
	// event_msg
	Message string          `json:"message"`
	Info    *codexTokenInfo `json:"info"`
	Reason  string          `json:"reason"`
	// response_item
	Role      string          `json:"role" ev:"word"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output" ev:"plain=outputCanonical"`
	Action    json.RawMessage `json:"action"`
	Status    json.RawMessage `json:"status"` // web_search_call's, read only there
	// token_usage_record (Codex 0.171): a response's id and usage, and
	// the thread's total after it
	ResponseID  string       `json:"response_id"`
	Usage       *codexTokens `json:"usage"`
	ThreadUsage *codexTokens `json:"thread_token_usage"`
	// event_msg item_completed: the item, read only for a prompt
	Item json.RawMessage `json:"item"`
	// event_msg task_complete: the error a turn ended on (Codex 0.171
	// writes no event_msg error), {"message", "codex_error_info"}
	Error json.RawMessage `json:"error"`
	// outputCanonical: Output is a string spelled as jsontext writes its
	// text, as the line's check found it
	outputCanonical bool
}

type codexTokenInfo struct {
	Total *codexTokens `json:"total_token_usage"`
	Last  *codexTokens `json:"last_token_usage"`
}

type codexTokens struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

// A line's payload is read from what its check found (fields.walk),
// when d has just read the line.
var codexLineTable, codexPayloadTable = tableFor[codexLine](), tableFor[codexPayload]()

// codexKnown are the record and payload types read or deliberately
// passed over.
var codexKnown = map[string]bool{
	"session_meta": true, "turn_context": true, "compacted": true,
	"event_msg user_message": true, "event_msg agent_message": true, "event_msg agent_reasoning": true,
	"event_msg token_count": true, "event_msg task_started": true, "event_msg task_complete": true,
	"event_msg turn_aborted": true, "event_msg error": true, "event_msg context_compacted": true,
	"event_msg agent_reasoning_raw_content": true, "event_msg exec_command_end": true, "event_msg patch_apply_end": true,
	"event_msg mcp_tool_call_end": true, "event_msg web_search_end": true, "event_msg entered_review_mode": true,
	"event_msg exited_review_mode": true, "event_msg item_completed": true, "event_msg thread_settings_applied": true,
	"event_msg warning": true, "event_msg stream_error": true, "event_msg view_image_tool_call": true,
	"response_item message": true, "response_item reasoning": true, "response_item function_call": true,
	"response_item function_call_output": true, "response_item custom_tool_call": true,
	"response_item custom_tool_call_output": true, "response_item local_shell_call": true,
	"response_item web_search_call": true, "response_item ghost_snapshot": true,
	// Codex 0.171 (internal/devtools/e2e/codex_test.go): token_usage_record is
	// read; world_state (the instructions, tools and settings a turn
	// was given) is passed over
	"token_usage_record": true, "world_state": true,
}

// codexFile is one rollout, decoded.
type codexFile struct {
	meta  codexPayload // the first session_meta
	name  string       // of its file, as its lines are reported
	lines []codexRec
	index int // of its file among the inputs

	parent, role string // parentThread's, once asked
	asked        bool
}

type codexRec struct {
	typ  string // "event_msg token_count"
	ms   int64
	line int // in its file: a web search without an id is named by it
	p    codexPayload
}

// parentThread is the id of the session a spawned agent's rollout
// belongs to ("" for a session of its own), and the agent's role.
func (f *codexFile) parentThread() (parent, role string) {
	if !f.asked {
		// three JSON documents to read: read once, asked for several times
		f.parent, f.role = f.readParent()
		f.asked = true
	}
	return f.parent, f.role
}

// readParent reads the session_meta's source, a checked JSON value, as
// encoding/json read it into {"subagent": {kind: {"parent_thread_id",
// "agent_role"}}} (or a subagent that is a word: "review", "compact"),
// but for keys, matched as they are spelled (as the tables do):
// by jsonscan, since encoding/json took a fifth of a spawned rollout's
// reading.
func (f *codexFile) readParent() (parent, role string) {
	if len(f.meta.Source) == 0 || f.meta.Source[0] != '{' {
		return "", ""
	}
	sub, ok := jsonscan.Lookup(f.meta.Source, "subagent")
	if !ok {
		return "", ""
	}
	role = "subagent"
	switch sub[0] {
	case '{':
		kinds := map[string][]byte{} // the last of a kind, as a map decodes
		jsonscan.Each(sub, func(k, v []byte) bool {
			kinds[string(unescapedKey(k))] = v
			return true
		})
		for _, kind := range slices.Sorted(maps.Keys(kinds)) { // one, but in a fixed order
			role = kind
			if p, r, ok := spawnOf(kinds[kind]); ok && p != "" {
				parent = p
				if r != "" {
					role = r
				}
			}
		}
	case '"':
		role = unquote(sub) // "review", "compact"
	}
	return parent, role
}

// spawnOf reads a subagent's spawn as encoding/json read it into a struct
// of its parent_thread_id and agent_role: ok false (nothing taken) when it
// is no object or null, or one of them is no string or null.
func spawnOf(v []byte) (parent, role string, ok bool) {
	switch v[0] {
	case 'n':
		return "", "", true
	case '{':
	default:
		return "", "", false
	}
	ok = true
	jsonscan.Each(v, func(k, v []byte) bool {
		var dst *string
		switch string(unescapedKey(k)) {
		case "parent_thread_id":
			dst = &parent
		case "agent_role":
			dst = &role
		default:
			return true
		}
		switch v[0] {
		case '"':
			*dst = unquote(v)
		case 'n':
		default:
			ok = false
		}
		return true
	})
	return parent, role, ok
}

// codexAll converts rollouts; a spawned agent's rollout whose parent is
// among them becomes a thread of the parent's session.
func (c *converter) codexAll(files []*logFile) []*session {
	decoded := make([]*codexFile, 0, len(files))
	byID := map[string]*session{}
	var out []*session
	for _, f := range files {
		cf := c.codexDecode(f)
		decoded = append(decoded, cf)
		if parent, _ := cf.parentThread(); parent == "" && cf.meta.ID != "" {
			byID[cf.meta.ID] = nil
		}
	}
	var children []*codexFile
	for _, cf := range decoded {
		if parent, _ := cf.parentThread(); parent != "" {
			if _, ok := byID[parent]; ok {
				children = append(children, cf)
				continue
			}
		}
		s := c.codexSession(cf, nil, "", "")
		s.at = order{file: cf.index}
		out = append(out, s)
		if _, ok := byID[s.id]; ok && byID[s.id] == nil {
			byID[s.id] = s
		}
	}
	spawns := map[string]string{} // agent id -> the parent's call that spawned it
	for _, cf := range decoded {
		for _, r := range cf.lines {
			if r.typ == "response_item function_call_output" {
				var out struct {
					AgentID string `json:"agent_id"`
				}
				if !mayBeObject(r.p.Output) {
					continue // the output of a command, not a spawned agent's id
				}
				_, text := codexOutput(r.p.Output)
				if json.Unmarshal([]byte(text), &out) == nil && out.AgentID != "" {
					spawns[out.AgentID] = r.p.CallID
				}
			}
		}
	}
	for _, cf := range children {
		parent, role := cf.parentThread()
		if s := byID[parent]; s != nil {
			c.codexSession(cf, s, role, spawns[cf.meta.ID])
			// the parent's call that spawned it, and its prompt, may
			// not be written yet (--follow)
			s.holdUnplaced()
		}
	}
	for _, s := range out {
		s.splice()
	}
	for _, cf := range decoded {
		// the records' memory, for the next group's: a record is a
		// payload of twenty members, and a rollout has thousands
		if len(c.codexLines) < 8 {
			clear(cf.lines)
			c.codexLines = append(c.codexLines, cf.lines[:0])
		}
		cf.lines = nil
	}
	return out
}

func (c *converter) codexDecode(f *logFile) *codexFile {
	var lines []codexRec
	if n := len(c.codexLines); n > 0 {
		lines, c.codexLines = c.codexLines[n-1], c.codexLines[:n-1]
	}
	cf := &codexFile{index: f.index, name: f.label(), lines: slices.Grow(lines, len(f.records))}
	d := c.takeFields()
	defer c.giveFields(d)
	decodeWith(c, d, codexLineTable, f.records, func(r record, l *codexLine) {
		var p codexPayload
		d.err, d.hard = nil, false
		if d.object(l.Payload, "payload") {
			// named from the line: payload.info.last_token_usage...
			d.path = append(d.path[:0], "payload")
			codexPayloadTable.decode(d, l.Payload, &p)
		}
		typ := l.Type
		if l.Type == "event_msg" || l.Type == "response_item" {
			typ += " " + p.Type
		}
		if d.err == nil {
			p.shape(d, typ)
		}
		if d.err != nil {
			c.bad(r, d.err)
			return
		}
		if !c.known("codex", typ, codexKnown) {
			return
		}
		if l.Type == "session_meta" && cf.meta.ID == "" {
			cf.meta = p
		}
		cf.lines = append(cf.lines, codexRec{typ: typ, ms: parseTime(l.Timestamp), line: r.line, p: p})
	})
	if !c.keep {
		f.records = nil // decoded: what is kept is in lines
	}
	return cf
}

// shape checks the members of p, a payload of type typ, that its
// conversion reads and the decoder leaves as they are: one of the wrong
// type is noted to d, as a member the decoder reads is (an assistant's
// text or a tool's output is not dropped in silence).
func (p *codexPayload) shape(d *fields, typ string) {
	d.checkStr(p.TurnID, "turn_id") // where a fork's own turns begin
	switch typ {
	case "response_item message":
		if p.Role == "assistant" {
			d.textBlocks(p.Content, "content", "type", "text")
		}
	case "response_item reasoning":
		d.textBlocks(p.Summary, "summary", "type", "text")
	case "response_item local_shell_call":
		d.object(p.Action, "action") // the call's arguments
	case "response_item web_search_call":
		d.object(p.Action, "action")
		d.checkStr(p.Status, "status")
	case "response_item function_call_output", "response_item custom_tool_call_output":
		// a text, or the older {"output", "metadata"} (a list: content
		// items, read as their JSON text)
		if o := p.Output; len(o) > 0 && (o[0] == 't' || o[0] == 'f' || o[0] == '-' || o[0] >= '0' && o[0] <= '9') {
			d.wrong(o, "output", "string or an object")
		}
	}
}

// codexState follows a rollout's token counts: the cumulative total seen
// so far, which a count must pass to be new.
type codexState struct {
	at       int // the index of the record being converted
	searches codexSearches
	total    int64
	prev     codexTokens // the totals of the last count
	replay   bool        // in a fork's copy of its parent's history
	open     bool        // a model call without its result yet
	itemMS   int64       // the time of the open call's last item
	file     string      // the rollout's name, for the calls without usage
	thinking strings.Builder
	// itemPrompts: the rollout has no event_msg user_message (Codex
	// 0.171 writes none): its prompts are the UserMessage items of
	// event_msg item_completed, which earlier versions wrote beside
	itemPrompts bool
}

// codexSession converts one rollout: into a session of its own, or, with
// parent set, into a thread of the parent's session (a spawned agent),
// placed after the parent's call anchor when it is known.
func (c *converter) codexSession(cf *codexFile, parent *session, role, anchor string) *session {
	s := parent
	agent := mainAgent
	if s == nil {
		s = newSession("codex", cf.meta.ID, cf.meta.Cwd)
	} else {
		agent = role + ":" + cf.meta.ID
	}
	b := newBuilder(c, s, agent, parent != nil)
	b.version = cf.meta.CLIVersion
	b.setModel(cf.meta.ModelProvider, "")
	st := &codexState{file: cf.name, itemPrompts: !slices.ContainsFunc(cf.lines, func(r codexRec) bool { return r.typ == "event_msg user_message" })}
	copied := 0 // the records of the parent's history the rollout starts with
	if cf.meta.ForkedFromID != "" || forkCopy(cf) {
		copied = copyLen(cf)
	}
	st.searches = pairSearches(cf.lines, cf.meta.ID)
	firstMS := int64(0)
	for i, r := range cf.lines {
		st.replay = i < copied
		if firstMS == 0 && !st.replay {
			firstMS = r.ms
		}
		st.at = i
		c.codexRecord(b, st, r)
	}
	if st.open {
		// the log's last response: its token count may still come
		// (--follow)
		from := len(b.out)
		st.noUsage(c, b)
		b.unsettle(from)
	}
	if st.searches.openFrom >= 0 {
		// a search whose end may still be written (--follow): its id
		// and result are not known yet
		b.unsettle(st.searches.openFrom)
	}
	if parent != nil {
		b.thread(anchor, role, "", firstMS)
		return s
	}
	b.finish()
	return s
}

// forkCopy reports a rollout that holds a second session's metadata
// before its first prompt: a fork written without forked_from_id.
func forkCopy(cf *codexFile) bool {
	for _, r := range cf.lines {
		switch {
		case r.typ == "event_msg user_message":
			return false
		case r.typ == "session_meta" && r.p.ID != "" && r.p.ID != cf.meta.ID:
			return true
		}
	}
	return false
}

// copyLen is the number of records of the copy of its parent's history a
// fork starts with. Codex names each turn by a UUIDv7, which carries the
// millisecond it was made, as does the rollout's own id: the copy's turns
// were all begun before the fork was made, the fork's own after. So the
// copy ends where the first turn of the fork's own begins (its
// task_started, or its turn_context), whatever the records' times. Without
// such ids (older versions), the copy is what was written up to the end of
// the second the fork was made: its records bear the fork's time or their
// own.
func copyLen(cf *codexFile) int {
	born, ok := uuidV7Time(cf.meta.ID)
	if ok {
		turns := false
		for i, r := range cf.lines {
			if t, ok := turnTime(r.p.TurnID); ok {
				if t >= born {
					return i
				}
				turns = true
			}
		}
		if turns {
			return len(cf.lines) // only the parent's turns
		}
	}
	till := (parseTime(cf.meta.Timestamp)/1000 + 1) * 1000
	for i, r := range cf.lines {
		if r.ms > till {
			return i
		}
	}
	return len(cf.lines)
}

// turnTime is the time a turn_id was made at, when it is a UUIDv7.
func turnTime(id json.RawMessage) (ms int64, ok bool) {
	if len(id) == 0 || id[0] != '"' {
		return 0, false
	}
	return uuidV7Time(unquote(id))
}

// uuidV7Time is the Unix time in milliseconds a version 7 UUID was made
// at, its first 48 bits; ok is false for any other string.
func uuidV7Time(id string) (ms int64, ok bool) {
	if len(id) != 36 || id[14] != '7' {
		return 0, false
	}
	for i := range len(id) {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash != (id[i] == '-') || !dash && !isHex(id[i]) {
			return 0, false
		}
	}
	ms, _ = strconv.ParseInt(id[:8]+id[9:13], 16, 64) // twelve hex digits
	return ms, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// codexRecord converts one record of a rollout.
func (c *converter) codexRecord(b *builder, st *codexState, r codexRec) {
	if st.replay {
		st.replayed(b, r)
		return
	}
	p := r.p
	switch r.typ {
	case "turn_context":
		b.setModel("", p.Model)
	case "event_msg user_message":
		st.noUsage(c, b)
		b.prompt(r.ms, p.Message)
	case "event_msg item_completed":
		if text, ok := codexItemPrompt(p.Item); ok && st.itemPrompts {
			st.noUsage(c, b)
			b.prompt(r.ms, text)
		}
	case "token_usage_record":
		if p.Usage != nil {
			if p.ThreadUsage != nil {
				// the token_count after it repeats the total: not a
				// count of its own
				st.total, st.prev = p.ThreadUsage.Total, *p.ThreadUsage
			}
			st.result(b, r.ms, p.Usage, p.ResponseID)
		}
	case "response_item message":
		if p.Role == "assistant" {
			st.call(b, r.ms)
			b.text(r.ms, blocksText(codexBlocks(p.Content)))
		}
	case "response_item reasoning":
		st.call(b, r.ms)
		st.thinking.WriteString(blocksText(codexBlocks(p.Summary)))
	case "response_item function_call":
		st.call(b, r.ms)
		b.toolCall(r.ms, p.CallID, p.Name, codexArgs(p.Arguments))
	case "response_item custom_tool_call":
		st.call(b, r.ms)
		b.toolCall(r.ms, p.CallID, p.Name, b.obj(0).str("input", p.Input).done())
	case "response_item local_shell_call":
		st.call(b, r.ms)
		b.toolCall(r.ms, p.CallID, "local_shell", p.Action)
	case "response_item web_search_call":
		st.call(b, r.ms)
		st.searches.call(b, st.at, r)
	case "event_msg web_search_end":
		st.searches.end(b, st.at, r)
	case "response_item function_call_output", "response_item custom_tool_call_output":
		st.noUsage(c, b) // the response is over: the next item is a new call
		if ok, q := codexQuoted(p.Output, p.outputCanonical); q != nil {
			b.toolResultQuoted(r.ms, p.CallID, ok, "", q) // most outputs: copied, not decoded
			break
		}
		ok, text := codexOutput(p.Output)
		b.toolResult(r.ms, p.CallID, ok, text)
	case "event_msg token_count":
		c.codexTokens(b, st, r)
	case "event_msg turn_aborted":
		st.noUsage(c, b)
		b.interrupted(r.ms, "turn aborted: "+p.Reason)
	case "event_msg error":
		b.modelError(r.ms, p.Message, "error")
	case "event_msg task_complete":
		if text, ok := errorMessage(p.Error, "error"); ok {
			st.noUsage(c, b)
			b.modelError(r.ms, text, "error")
		}
	case "compacted", "event_msg context_compacted":
		b.compaction(r.ms, "", 0, p.Message)
	}
}

// replayed reads a record of a fork's copy of its parent's history: its
// calls are the parent's; its token counts only set where this rollout's
// counting starts.
func (st *codexState) replayed(b *builder, r codexRec) {
	p := r.p
	if r.typ == "event_msg token_count" && p.Info != nil && p.Info.Total != nil && p.Info.Total.Total > st.total {
		st.total, st.prev = p.Info.Total.Total, *p.Info.Total
	}
	if r.typ == "turn_context" {
		// the model the copy ends with is the one the rollout's own
		// calls go on with, unless a turn of its own says another
		b.setModel("", p.Model)
	}
}

// call opens a model call at the first item of a response.
func (st *codexState) call(b *builder, ms int64) {
	if !st.open {
		st.open = true
		b.modelCall(ms)
	}
	st.itemMS = ms
}

// noUsage ends the open model call, if any, that had no token count (a
// Codex Desktop rollout may have none at all): its result says its usage
// is not known, rather than that it used nothing.
func (st *codexState) noUsage(c *converter, b *builder) {
	if !st.open {
		return
	}
	st.open = false
	c.noUsage[st.file]++
	b.modelResult(st.itemMS, usage{unknown: true, thinking: st.thinking.String()})
	st.thinking.Reset()
}

// codexTokens counts a token_count record. Codex writes one after every
// response, and again, unchanged, on other occasions (rate-limit
// updates, a resumed session): a count is new only when the cumulative
// total_token_usage moves, and it is then the response's
// last_token_usage (or, without one, the total's step).
func (c *converter) codexTokens(b *builder, st *codexState, r codexRec) {
	info := r.p.Info
	if info == nil || (info.Total == nil && info.Last == nil) {
		return // a heartbeat: rate limits only
	}
	last := info.Last
	if info.Total != nil {
		if info.Total.Total == st.total {
			return
		}
		if last == nil {
			// the step of the totals since the last count
			step := *info.Total
			if info.Total.Total > st.total {
				step.Input -= st.prev.Input
				step.Cached -= st.prev.Cached
				step.Output -= st.prev.Output
				step.Reasoning -= st.prev.Reasoning
			}
			last = &step
		}
		st.total, st.prev = info.Total.Total, *info.Total
	}
	st.result(b, r.ms, last, "")
}

// result ends the open model call (or one of its own) with its usage.
func (st *codexState) result(b *builder, ms int64, last *codexTokens, responseID string) {
	if !st.open {
		b.modelCall(ms)
	}
	st.open = false
	u := usage{input: last.Input, cacheRead: last.Cached, output: last.Output, reasoning: last.Reasoning, hasReasoning: true}
	u.thinking, u.responseID = st.thinking.String(), responseID
	st.thinking.Reset()
	b.modelResult(ms, u)
}

// codexItemPrompt is the text of an item_completed's item when it is a
// UserMessage ({"type": "UserMessage", "content": [{"type": "text",
// "text"}]}).
func codexItemPrompt(item json.RawMessage) (string, bool) {
	if len(item) == 0 || item[0] != '{' {
		return "", false
	}
	if typ, _ := jsonscan.Lookup(item, "type"); !jsonscan.StringEquals(typ, "UserMessage") {
		return "", false
	}
	content, _ := jsonscan.Lookup(item, "content")
	return blocksText(codexBlocks(content)), true
}

// codexBlocks reads a content or summary list ({type: input_text,
// output_text or summary_text, text}) as text blocks.
func codexBlocks(raw json.RawMessage) []block {
	var bs []block
	if len(raw) > 0 && raw[0] == '[' {
		bs = blockList(nil, raw)
	}
	for i := range bs {
		if strings.HasSuffix(bs[i].Type, "_text") {
			bs[i].Type = "text"
		}
	}
	return bs
}

// codexArgs is a function call's arguments, a JSON text: as an object when
// it is one, else under "input".
func codexArgs(s string) []byte {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") && jsonscan.Check([]byte(t)) == nil {
		return []byte(t)
	}
	return newObject().str("input", s).done()
}

var exitCode = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)`)

// codexOutput is a tool's output and whether it succeeded: an output
// string (with Codex's "Process exited with code N" line), or the older
// {"output", "metadata": {"exit_code"}} object, as JSON or as a JSON text.
func codexOutput(raw json.RawMessage) (ok bool, text string) {
	var s string
	switch {
	case len(raw) > 0 && raw[0] == '"':
		s = unquote(raw)
	case len(raw) > 0 && raw[0] == 'n':
	default:
		s = string(raw)
	}
	var obj struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
		Success *bool `json:"success"`
	}
	if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &obj) == nil && obj.Output != nil {
		ok = obj.Metadata.ExitCode == nil || *obj.Metadata.ExitCode == 0
		if obj.Success != nil {
			ok = *obj.Success
		}
		return ok, *obj.Output
	}
	if !strings.Contains(s, "Process exited with code ") {
		return true, s
	}
	if m := exitCode.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n == 0, s
	}
	return true, s
}

// codexQuoted is codexOutput for the output most commands give, a text
// spelled as jsontext writes it (jsontext.Canonical) that holds no
// object: the text is the JSON string itself, to be copied (q), and the
// exit code is read from it as exitCode reads it from the decoded text.
// q is nil for any other output, which codexOutput reads. canonical says
// that raw is known to be so spelled.
func codexQuoted(raw []byte, canonical bool) (ok bool, q []byte) {
	if len(raw) == 0 || raw[0] != '"' || mayBeObject(raw) || !canonical && !jsontext.Canonical(raw) {
		return false, nil
	}
	const phrase = "Process exited with code "
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(phrase))
		if j < 0 {
			return true, raw
		}
		at := i + j
		i = at + 1
		if !lineStart(raw, at) {
			continue
		}
		k := at + len(phrase)
		from := k
		if k < len(raw) && raw[k] == '-' {
			k++
		}
		digits := k
		for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
			k++
		}
		if k > digits {
			n, _ := strconv.Atoi(string(raw[from:k]))
			return n == 0, raw
		}
	}
}

// lineStart reports whether raw[at] starts a line of the text the JSON
// string raw holds: it follows the opening quote, or a \n escape (whose
// backslash is not itself escaped).
func lineStart(raw []byte, at int) bool {
	if at == 1 {
		return true
	}
	if at < 3 || raw[at-1] != 'n' || raw[at-2] != '\\' {
		return false
	}
	n := 0
	for k := at - 2; k >= 1 && raw[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// mayBeObject reports whether a tool's output, a JSON string or value,
// may hold a JSON object once decoded: whether it starts with '{' after
// white space (escaped or not). A \u escape first may be anything.
func mayBeObject(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '"' {
		return len(raw) > 0 && raw[0] == '{'
	}
	for i := 1; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
		case '\\':
			if i+1 < len(raw) && (raw[i+1] == 'u') {
				return true
			}
			if i+1 < len(raw) && (raw[i+1] == 'n' || raw[i+1] == 't' || raw[i+1] == 'r') {
				i++
				continue
			}
			return false
		default:
			return raw[i] == '{'
		}
	}
	return false
}
