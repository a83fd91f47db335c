package evimport

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Claude Code's session logs: ~/.claude/projects/<project>/<session>.jsonl,
// one record a line, with its subagents in <session>/subagents/agent-*.jsonl
// (or, before 2.1, agent-*.jsonl beside the session). docs/formats.md has
// the mapping.

var claudeSource = source{
	name: "claude", title: "Claude Code", what: "a Claude Code session",
	places: []place{
		{Var: "CLAUDE_CONFIG_DIR", Home: ".claude", In: []string{"projects"}, Whose: "Claude Code's folder"},
		// some versions of Claude Code wrote to the XDG folder instead
		// (ccusage reads both too); a session in both is counted once
		{Var: "XDG_CONFIG_HOME", Home: ".config", In: []string{"claude/projects"}, Whose: "The XDG config folder", Unmoved: "CLAUDE_CONFIG_DIR"},
	},
	companions: claudeCompanions,
	claims: []claim{{shaped, func(p *probe) bool {
		return p.SessionID != "" && p.UUID != "" || p.Type == "summary" && p.LeafUUID != "" || p.Type == "file-history-snapshot" && p.MessageID != ""
	}}},
	lineKeys: true,
	session: func(f *logFile) (string, bool) {
		for _, r := range f.records {
			var p probe
			if json.Unmarshal(r.data, &p) == nil && p.SessionID != "" {
				return p.SessionID, true
			}
		}
		return "", false
	},
	convert: (*converter).claude,
	known:   claudeKnown,
}

// claudeCompanions are the subagent files of the Claude session file
// name: <session>/subagents/agent-*.jsonl, and agent-*.jsonl beside it
// (the layout before Claude Code 2.1). Those of other sessions are
// dropped when their lines are read (their sessionId is another).
func claudeCompanions(name string) []string {
	if !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(filepath.Base(name), "agent-") {
		return nil
	}
	dir := filepath.Dir(name)
	stem := strings.TrimSuffix(filepath.Base(name), ".jsonl")
	var out []string
	for _, pattern := range []string{filepath.Join(dir, stem, "subagents", "agent-*.jsonl"), filepath.Join(dir, "agent-*.jsonl")} {
		m, _ := filepath.Glob(pattern)
		slices.Sort(m)
		out = append(out, m...)
	}
	return out
}

type claudeLine struct {
	Type             string           `json:"type" ev:"word"`
	Subtype          string           `json:"subtype" ev:"word"`
	UUID             string           `json:"uuid"`
	SessionID        string           `json:"sessionId" ev:"word"`
	AgentID          string           `json:"agentId" ev:"word"`
	IsSidechain      bool             `json:"isSidechain"`
	IsMeta           bool             `json:"isMeta"`
	IsCompactSummary bool             `json:"isCompactSummary"`
	IsAPIError       bool             `json:"isApiErrorMessage"`
	Cwd              string           `json:"cwd" ev:"word"`
	Version          string           `json:"version" ev:"word"`
	Timestamp        string           `json:"timestamp"`
	RequestID        string           `json:"requestId"`
	CostUSD          *float64         `json:"costUSD"`
	Message          *claudeMessage   `json:"message"`
	ToolUseResult    agentRef         `json:"toolUseResult" ev:"any"`
	CompactMetadata  *compactMetadata `json:"compactMetadata"`
	Data             *claudeProgress  `json:"data"`
	ParentToolUseID  string           `json:"parentToolUseID"`
}

// agentRef is a user line's toolUseResult, read for one thing: the
// agentId of the subagent a Task call ran (id), the raw value of its last
// agentId member. The result is often the whole of a file the tool read:
// the table takes the member from what the line's check noted, not a
// walk through the file, and a result of another shape (a list, a
// string) is no error (its tag: ev:"any").
type agentRef struct {
	AgentID json.RawMessage `json:"agentId"`
}

var agentRefTable = tableFor[agentRef]()

// UnmarshalJSON reads the result as the table does (ev:"any": null
// leaves it as it was), for encoding/json, the fuzz tests' oracle.
func (a *agentRef) UnmarshalJSON(v []byte) error {
	if len(v) == 0 || v[0] == 'n' {
		return nil
	}
	*a = agentRef{}
	if v[0] == '{' {
		agentRefTable.decode(&fields{}, bytes.Clone(v), a)
	}
	return nil
}

// id is the agentId of the result, "" for none.
func (a agentRef) id() string {
	if v := a.AgentID; len(v) > 0 && v[0] == '"' {
		return unquote(v)
	}
	return ""
}

var (
	claudeLineTable  = tableFor[claudeLine]()
	claudeBlockTable = tableFor[block]()
	// the member of a block that holds a tool's output
	claudeBlockContent = claudeBlockTable.member("Content")
)

// afterMembers reads the content of m, the line's message of that name,
// into blocks as its members are read, from the tape of the line (blocks
// would walk them again); Content is let go.
func (m *claudeMessage) afterMembers(d *fields, name string) {
	m.parsed, m.Content = d.messageBlocks(m.Content, name), nil
}

type compactMetadata struct {
	Trigger   string `json:"trigger"`
	PreTokens int64  `json:"preTokens"`
}

type claudeMessage struct {
	ID         string          `json:"id"`
	Model      string          `json:"model" ev:"word"`
	Role       string          `json:"role" ev:"word"`
	StopReason string          `json:"stop_reason" ev:"word"`
	Content    json.RawMessage `json:"content"` // a string or blocks
	Usage      *claudeUsage    `json:"usage"`

	// the content decoded as the line is (Content is then let go): the
	// lines are read several times
	parsed []block
}

type claudeUsage struct {
	InputTokens              int64          `json:"input_tokens"`
	OutputTokens             int64          `json:"output_tokens"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens"`
	CacheCreation            *cacheCreation `json:"cache_creation"`
}

type cacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

// claudeProgress is the data of a progress record; agent_progress ones
// replay a running subagent's messages.
type claudeProgress struct {
	Type    string           `json:"type" ev:"word"`
	AgentID string           `json:"agentId" ev:"word"`
	Message *progressMessage `json:"message"`
}

type progressMessage struct {
	Type      string         `json:"type" ev:"word"`
	RequestID string         `json:"requestId"`
	Timestamp string         `json:"timestamp"`
	Message   *claudeMessage `json:"message"`
}

type block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking string `json:"thinking"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	// a tool's input, copied as it is, is an object: another value is
	// no call's input
	Input     json.RawMessage `json:"input" ev:"object"`
	ToolUseID string          `json:"tool_use_id"`
	// a tool's output: a text, or blocks
	Content json.RawMessage `json:"content" ev:"string|array,plain=contentPlain"`
	IsError bool            `json:"is_error"`
	// contentPlain: the line's check found Content a plain string
	// (jsonscan.Tape.Plain), to be copied as it is
	contentPlain bool
}

// claudeBlockKnown are the types of a message's content blocks read or
// deliberately passed over (images, documents, redacted thinking); a
// block of another type is counted as unknown.
var claudeBlockKnown = map[string]bool{
	"text": true, "thinking": true, "redacted_thinking": true, "tool_use": true, "tool_result": true,
	"image": true, "document": true,
}

// claudeKnown are the record types read or deliberately passed over;
// any other is counted as unknown. cost-state (2.1.3xx) is read for the
// session's cost (claudeCostState); what the others of 2.1.328 hold, as
// its logs against a scripted server show (internal/devtools/e2e/claude_code_test.go),
// is no event: attachment (what Claude Code added to a prompt: the
// environment, the date, the model's name, the tools and skills listed),
// api-request, api-request-shape and api-request-blob (each request's
// parameters, its system prompt and tools, and its messages by hash, to
// rebuild the request), atis-latch, mode (the permission mode),
// tools-used (the names of the tools a response used) and last-prompt
// (the prompt a resume starts from).
var claudeKnown = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "custom-title": true, "tag": true,
	"cost-state": true, "attachment": true, "api-request": true, "api-request-shape": true, "api-request-blob": true,
	"atis-latch": true, "mode": true, "tools-used": true, "last-prompt": true,
}

// claudeRec is a decoded line and its time.
type claudeRec struct {
	line claudeLine
	ms   int64
}

// claudeGroup is one session: every line of every file with its
// sessionId, each uuid once (a resumed or copied log repeats lines).
type claudeGroup struct {
	id      string
	project string
	version string
	main    []claudeRec
	agents  map[string][]claudeRec // by agentId
	order   []string               // agent ids as first seen
	seen    map[string]bool        // uuids
	named   bool                   // a line came from a file named, not only from companions
	at      order                  // where its first line is
	cost    *claudeCost            // the session's own account, the latest (claudeCostState)
}

// claude converts Claude Code logs, grouping the lines of all files by
// session, so that subagent files and a session's copies join it.
func (c *converter) claude(files []*logFile) []*session {
	groups := map[string]*claudeGroup{}
	var ids []string // the sessions, as first seen
	lines := 0
	for _, f := range files {
		lines += len(f.records)
	}
	for _, f := range files {
		decode(c, claudeLineTable, f.records, func(r record, l *claudeLine) {
			if !c.known("claude", l.Type, claudeKnown) {
				return
			}
			if l.Message != nil {
				for _, bl := range l.Message.parsed {
					if !claudeBlockKnown[bl.Type] {
						c.skipBlock("claude", bl.Type)
					}
				}
			}
			var cost *claudeCost
			if l.Type == "cost-state" {
				var err error
				if cost, err = claudeCostState(r.data); err != nil {
					c.bad(r, err)
					return
				}
			}
			if l.SessionID == "" {
				return // a summary or snapshot line: no session of its own
			}
			if f.ids != nil && !f.ids[l.SessionID] {
				c.missed = true // the groups may be wrong: see claudeKeys
			}
			g := groups[l.SessionID]
			if g == nil {
				g = &claudeGroup{id: l.SessionID, agents: map[string][]claudeRec{}, seen: make(map[string]bool, lines),
					at: order{file: f.index, line: r.line}}
				if len(ids) == 0 {
					// most lines are the first session's own: room for
					// them all, not grown line by line
					g.main = make([]claudeRec, 0, lines)
				}
				groups[l.SessionID] = g
				ids = append(ids, l.SessionID)
			}
			g.named = g.named || !f.companion
			g.add(*l)
			if cost != nil && (g.cost == nil || cost.total >= g.cost.total) {
				// each is the total so far, resumes included: the
				// largest is the latest, whatever order copies come in
				cost.at, g.cost = len(g.main), cost
			}
		})
		if !c.keep {
			f.records = nil // decoded: what is kept is in the groups
		}
	}
	out := make([]*session, 0, len(ids))
	for _, id := range ids {
		if groups[id].named {
			out = append(out, c.claudeSession(groups[id]))
		}
	}
	return out
}

func (g *claudeGroup) add(l claudeLine) {
	if l.UUID != "" {
		if g.seen[l.UUID] {
			return
		}
		g.seen[l.UUID] = true
	}
	if g.project == "" {
		g.project = l.Cwd
	}
	if l.Version != "" {
		g.version = l.Version
	}
	rec := claudeRec{line: l, ms: parseTime(l.Timestamp)}
	agent := l.AgentID
	if agent == "" && l.IsSidechain {
		agent = "sidechain"
	}
	if agent == "" {
		g.main = append(g.main, rec)
		return
	}
	if _, ok := g.agents[agent]; !ok {
		g.order = append(g.order, agent)
	}
	g.agents[agent] = append(g.agents[agent], rec)
}

// claudeKey is the identity of one API response: Claude Code writes one
// response as several lines (a content block each) sharing message.id and
// requestId, with the usage so far on each; without a requestId (older
// logs, some gateways) message.id alone.
func claudeKey(msg *claudeMessage, requestID string) respKey {
	if msg == nil || msg.ID == "" {
		return respKey{}
	}
	return respKey{id: msg.ID, request: requestID}
}

// respKey is claudeKey's identity of a response: message.id and
// requestId; the zero key is none. A response without one is told apart
// by the uuid of its line.
type respKey struct{ id, request, uuid string }

// claudeSession converts one session: the main thread, then each
// subagent, spliced after the Task call that started it.
func (c *converter) claudeSession(g *claudeGroup) *session {
	s := newSession("claude", g.id, g.project)
	s.at = g.at
	keys := map[respKey]bool{} // responses the session's own lines hold
	for _, recs := range append(slices.Collect(maps.Values(g.agents)), g.main) {
		for _, r := range recs {
			if r.line.Type == "assistant" {
				keys[claudeKey(r.line.Message, r.line.RequestID)] = true
			}
		}
	}
	b := newBuilder(c, s, mainAgent, false)
	b.version = g.version
	b.logCost = c.claudeRates(g)
	links := &claudeLinks{anchors: map[string]string{}, prompts: map[string]string{}, types: map[string]string{},
		keys: keys, replays: map[string][]claudeRec{}}
	c.claudeThread(b, g.main, links.note)
	b.finish()
	for _, agent := range g.order {
		c.claudeAgent(s, g, agent, g.agents[agent], links)
	}
	for _, agent := range links.replayOrder {
		if _, ok := g.agents[agent]; ok {
			continue
		}
		// The subagent's own file is missing: its replayed responses in
		// the progress records are all that is known of it.
		c.claudeAgent(s, g, agent, links.replays[agent], links)
	}
	s.splice()
	return s
}

// claudeLinks is what ties a subagent to the Task call that started it
// (the call's id by agentId, by prompt; the subagent type by call id),
// and the replayed responses of subagents, by agentId.
type claudeLinks struct {
	anchors, prompts, types map[string]string
	keys                    map[respKey]bool // responses counted already
	replays                 map[string][]claudeRec
	replayOrder             []string
}

// note reads one line of the main thread for links.
func (k *claudeLinks) note(r claudeRec) {
	anchors, prompts, keys := k.anchors, k.prompts, k.keys
	l := r.line
	switch l.Type {
	case "assistant":
		for _, bl := range blocks(l.Message) {
			if bl.Type == "tool_use" && (bl.Name == "Task" || bl.Name == "Agent") {
				var in struct {
					Prompt string `json:"prompt"`
					Type   string `json:"subagent_type"`
				}
				json.Unmarshal(bl.Input, &in)
				if in.Prompt != "" {
					prompts[in.Prompt] = bl.ID
				}
				k.types[bl.ID] = in.Type
			}
		}
	case "user":
		var results []string
		for _, bl := range blocks(l.Message) {
			if bl.Type == "tool_result" {
				results = append(results, bl.ToolUseID)
			}
		}
		if len(results) == 0 {
			return
		}
		if id := l.ToolUseResult.id(); id != "" {
			anchors[id] = results[len(results)-1]
		}
	case "progress":
		d := l.Data
		if d == nil || d.Type != "agent_progress" || d.AgentID == "" {
			return
		}
		if l.ParentToolUseID != "" {
			anchors[d.AgentID] = l.ParentToolUseID
		}
		if m := d.Message; m != nil && m.Type == "assistant" && m.Message != nil {
			key := claudeKey(m.Message, m.RequestID)
			if key == (respKey{}) || keys[key] {
				return // counted from the subagent's own file
			}
			keys[key] = true
			rl := claudeLine{Type: "assistant", Message: m.Message, RequestID: m.RequestID, Timestamp: m.Timestamp, AgentID: d.AgentID}
			if _, ok := k.replays[d.AgentID]; !ok {
				k.replayOrder = append(k.replayOrder, d.AgentID)
			}
			k.replays[d.AgentID] = append(k.replays[d.AgentID], claudeRec{line: rl, ms: parseTime(m.Timestamp)})
		}
	}
}

// claudeAgent converts one subagent's lines into a thread of the session.
func (c *converter) claudeAgent(s *session, g *claudeGroup, agent string, recs []claudeRec, links *claudeLinks) {
	if len(recs) == 0 {
		return
	}
	anchor := links.anchors[agent]
	intent := ""
	for _, r := range recs {
		if r.line.Type == "user" {
			if text, ok := claudePromptText(r.line); ok {
				intent = text
				if anchor == "" {
					anchor = links.prompts[text]
				}
				break
			}
		}
	}
	role := links.types[anchor]
	switch {
	case role != "":
	case anchor == "" && strings.TrimSpace(intent) == "Warmup":
		role = "warmup" // Claude Code's warm-up call before the first prompt
	default:
		role = "subagent"
	}
	b := newBuilder(c, s, role+":"+agent, true)
	b.version = g.version
	b.logCost = c.claudeRates(g)
	c.claudeThread(b, recs, nil)
	if claudeAgentOver(s, g, anchor, role, recs) {
		// its file's last line is its last response's last: nothing
		// more of it is to come (claudeAssistant held it for --follow)
		for i := range b.out {
			b.out[i].unsettled = false
		}
	}
	b.thread(anchor, role, oneLine(intent, 200), recs[0].ms)
}

// claudeAgentOver reports whether a subagent is known to be over: the
// call that spawned it has its result, or, for a warm-up (which no call
// spawned, and which is one response), the main thread has a line after
// its last. Its file may have no line after its last response, which
// would then never be settled.
func claudeAgentOver(s *session, g *claudeGroup, anchor, role string, recs []claudeRec) bool {
	switch {
	case anchor != "":
		return s.results[anchor]
	case role == "warmup":
		end := recs[len(recs)-1].ms
		return slices.ContainsFunc(g.main, func(r claudeRec) bool { return r.ms > end })
	}
	return false
}

// lastLine is the key under which claudeThread notes the thread's last
// line (no response key is the zero one).
var lastLine = respKey{}

// seenBlock is a block of a response written already: thinking (t),
// text (x) or a tool call (u, by its id).
type seenBlock struct {
	kind byte
	s    string
}

// claudeResponse is what is known of one API response while its lines
// are read.
type claudeResponse struct {
	thinking strings.Builder
	seen     map[seenBlock]bool // text and tool_use blocks written
}

// claudeThread converts one thread's lines in order; each, when not nil,
// sees every line first.
func (c *converter) claudeThread(b *builder, recs []claudeRec, each func(claudeRec)) {
	last := map[respKey]int{lastLine: len(recs) - 1} // response key -> index of its last line
	for i, r := range recs {
		if r.line.Type == "assistant" {
			if k := claudeKey(r.line.Message, r.line.RequestID); k != lastLine {
				last[k] = i
			}
		}
	}
	responses := map[respKey]*claudeResponse{}
	for i, r := range recs {
		if each != nil {
			each(r)
		}
		switch r.line.Type {
		case "user":
			claudeUser(b, r)
		case "assistant":
			c.claudeAssistant(b, r, i, last, responses)
		case "system":
			if m := r.line.CompactMetadata; r.line.Subtype == "compact_boundary" {
				var trigger string
				var pre int64
				if m != nil {
					trigger, pre = m.Trigger, m.PreTokens
				}
				b.compaction(r.ms, trigger, pre, "")
			}
		}
	}
}

// claudeAssistant converts one line of a response. The model call is at
// its first line, the result (the usage of the last line, the only
// complete one) at its last.
func (c *converter) claudeAssistant(b *builder, r claudeRec, i int, last map[respKey]int, responses map[respKey]*claudeResponse) {
	l, msg := r.line, r.line.Message
	if msg == nil {
		return
	}
	if l.IsAPIError || msg.Model == "<synthetic>" {
		text := blocksText(blocks(msg))
		if l.IsAPIError || strings.HasPrefix(text, "API Error") {
			b.modelError(r.ms, text, "error")
		} else {
			b.text(r.ms, text) // Claude Code's own words, no model call
		}
		return
	}
	b.setModel("anthropic", msg.Model)
	key := claudeKey(msg, l.RequestID)
	final := key == lastLine || last[key] == i
	if key == lastLine {
		key = respKey{uuid: l.UUID}
	}
	resp := responses[key]
	if resp == nil {
		resp = &claudeResponse{seen: map[seenBlock]bool{}}
		responses[key] = resp
		b.modelCall(r.ms)
	}
	for _, bl := range blocks(msg) {
		switch bl.Type {
		case "thinking":
			if k := (seenBlock{'t', bl.Thinking}); !resp.seen[k] {
				resp.seen[k] = true
				resp.thinking.WriteString(bl.Thinking)
			}
		case "text":
			if k := (seenBlock{'x', bl.Text}); !resp.seen[k] {
				resp.seen[k] = true
				b.text(r.ms, bl.Text)
			}
		case "tool_use":
			if k := (seenBlock{'u', bl.ID}); !resp.seen[k] {
				resp.seen[k] = true
				b.toolCall(r.ms, bl.ID, bl.Name, bl.Input)
			}
		}
	}
	if !final {
		return
	}
	u := claudeTokens(msg.Usage)
	if l.CostUSD != nil {
		u.cost, u.hasCost = *l.CostUSD, true
	} else if b.logCost != nil {
		u.cost, u.hasCost = b.logCost(msg.Model, u)
	}
	u.stop, u.responseID, u.thinking = msg.StopReason, msg.ID, resp.thinking.String()
	delete(responses, key)
	b.modelResult(r.ms, u)
	if i == last[lastLine] {
		// the thread's last line so far: more of the response may come
		b.unsettle(len(b.out) - 1)
	}
}

// claudeTokens maps Claude's usage: its input_tokens leave out the cache,
// so input is the sum of the three; cache_creation splits the writes by
// lifetime.
func claudeTokens(cu *claudeUsage) usage {
	if cu == nil {
		return usage{}
	}
	u := cacheApart(cu.InputTokens, cu.CacheReadInputTokens, cu.CacheCreationInputTokens, cu.OutputTokens)
	if cc := cu.CacheCreation; cc != nil {
		u.cacheWrite1h, u.has1h = cc.Ephemeral1h, true
	}
	return u
}

// claudeUser converts a user line: a prompt, tool results, or Claude
// Code's note that the user interrupted it.
func claudeUser(b *builder, r claudeRec) {
	l := r.line
	if l.Message == nil || l.IsMeta {
		return
	}
	if l.IsCompactSummary {
		if n := len(b.out); n == 0 || b.out[n-1].kind != "compaction" {
			b.compaction(r.ms, "", 0, "")
		}
		return
	}
	var texts []string
	results := 0
	for _, bl := range blocks(l.Message) {
		switch bl.Type {
		case "tool_result":
			results++
			b.toolOutput(nil, r.ms, bl.ToolUseID, !bl.IsError, bl.Content, bl.contentPlain)
		case "text":
			texts = append(texts, bl.Text)
		}
	}
	text := strings.Join(texts, "\n")
	switch {
	case strings.HasPrefix(text, "[Request interrupted by user"):
		b.interrupted(r.ms, "interrupted by the user")
	case results > 0 || text == "" || strings.HasPrefix(text, "<local-command-std"):
	default:
		b.prompt(r.ms, text)
	}
}

// claudePromptText is the text of a user line that is a prompt.
func claudePromptText(l claudeLine) (string, bool) {
	if l.Message == nil || l.IsMeta || l.IsCompactSummary {
		return "", false
	}
	var texts []string
	for _, bl := range blocks(l.Message) {
		if bl.Type == "tool_result" {
			return "", false
		}
		if bl.Type == "text" {
			texts = append(texts, bl.Text)
		}
	}
	return strings.Join(texts, "\n"), len(texts) > 0
}

// blocks is a message's content as blocks: a string is one text block.
func blocks(msg *claudeMessage) []block {
	if msg == nil {
		return nil
	}
	return msg.parsed
}

// messageBlocks is contentBlocks for the content of the message, member
// name, of the line d reads: a block of the wrong shape is the line's
// error (blockErr), not a block left out, which would lose a tool call
// and leave its result an orphan.
func (d *fields) messageBlocks(raw []byte, name string) []block {
	if !d.blockArray(raw, name) {
		return contentBlocks(d, raw)
	}
	return readBlocks(d, raw, name, claudeBlockTable, nil, func(i int, v []byte, at int) {
		if i == claudeBlockContent && len(v) > 0 && v[0] == '[' {
			// a tool's output as blocks, whose texts are read
			// (contentText): one of the wrong type is no text lost
			var out fields
			if out.textBlocks(v, "content", "type", "text"); out.err != nil {
				d.blockWrong(name, at, "."+out.err.Error())
			}
		}
	})
}

// blockList reads a list of content blocks, leaving out what is of the
// wrong type: the blocks of a tool's output, read after its line.
func blockList(line *fields, v []byte) []block {
	return readBlocks(line, v, "", claudeBlockTable, nil, nil)
}

// contentBlocks reads content that is a string (null is an empty one) or
// a list of blocks; line is the fields of the line it is in, while that
// line is read (nil after).
func contentBlocks(line *fields, raw json.RawMessage) []block {
	switch {
	case len(raw) == 0:
		return nil
	case raw[0] == '"':
		return []block{{Type: "text", Text: unquote(raw)}}
	case raw[0] == 'n':
		return []block{{Type: "text"}}
	case raw[0] == '[':
		return blockList(line, raw)
	}
	return nil
}

// contentText is the text of a tool result's content: a string, or the
// text blocks of a list.
func contentText(line *fields, raw json.RawMessage) string {
	return blocksText(contentBlocks(line, raw))
}

// toolOutput adds the result of a tool call whose content (contentText)
// is raw: copied as the log holds it where it can be (quotedOutput), as
// most outputs can, else decoded and quoted again. line: see
// contentBlocks.
func (b *builder) toolOutput(line *fields, ms int64, id string, ok bool, raw json.RawMessage, plain bool) {
	if q := quotedOutput(line, raw, plain); q != nil {
		b.toolResultQuoted(ms, id, ok, "", q)
	} else {
		b.toolResult(ms, id, ok, contentText(line, raw))
	}
}

// quotedOutput is contentText's text as the JSON string jsontext writes
// for it, when raw holds it so: a string spelled so (jsontext.Canonical;
// plain: the line's check found it so), or a list of blocks with one text
// block whose text is (the others not text, or empty). nil for anything
// else, which contentText reads.
func quotedOutput(line *fields, raw []byte, plain bool) []byte {
	if len(raw) > 0 && raw[0] == '"' {
		if plain || line.canonical(raw) {
			return raw
		}
		return nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var text []byte // the one text block's text
	simple := true
	// the block being read: its type and text members, and how many of
	// each (an element that is no object has none)
	var typ, t []byte
	types, texts := 0, 0
	settle := func() { // the block read: does it add to the output?
		switch {
		case types > 1 || texts > 1 || typ != nil && typ[0] != '"' || t != nil && t[0] != '"':
			simple = false // duplicates, or members of another type: decoded
		case !jsonscan.StringEquals(typ, "text") || t == nil || len(t) == 2:
			// no text block, or an empty one: nothing to the output
		case text != nil:
			simple = false // two texts, joined by contentText
		default:
			text = t
		}
	}
	first := true
	line.objectsOf(raw, func(byte) {
		if !first {
			settle()
		}
		first, typ, t, types, texts = false, nil, nil, 0, 0
	}, func(k, v []byte) bool {
		switch {
		case jsonscan.KeyIs(k, "type"):
			typ, types = v, types+1
		case jsonscan.KeyIs(k, "text"):
			t, texts = v, texts+1
		}
		return true
	})
	if !first {
		settle()
	}
	switch {
	case !simple:
		return nil
	case text == nil:
		return []byte(`""`)
	case line.canonical(text):
		return text
	}
	return nil
}

func blocksText(bs []block) string {
	var texts []string
	for _, bl := range bs {
		if bl.Type == "text" && bl.Text != "" {
			texts = append(texts, bl.Text)
		}
	}
	return strings.Join(texts, "\n")
}
