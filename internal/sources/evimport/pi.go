package evimport

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// pi's session files: ~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl, a
// header record, then entries (messages, model and thinking-level
// changes, compactions). Since version 2 every entry has an id and a
// parentId: the file is a tree, each branch a path from the root, all in
// one file. docs/formats.md has the mapping.

type piLine struct {
	Type      string      `json:"type" ev:"word"`
	ID        string      `json:"id"`
	ParentID  *string     `json:"parentId"`
	Timestamp string      `json:"timestamp"`
	Cwd       string      `json:"cwd" ev:"word"`
	Version   json.Number `json:"version"`
	Provider  string      `json:"provider"`
	ModelID   string      `json:"modelId"`
	Summary   string      `json:"summary"`
	Tokens    int64       `json:"tokensBefore"`
	Message   *piMessage  `json:"message"`
}

type piMessage struct {
	Role         string          `json:"role" ev:"word"`
	Content      json.RawMessage `json:"content"`
	Provider     string          `json:"provider"`
	Model        string          `json:"model" ev:"word"`
	Usage        *piUsage        `json:"usage"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	ToolCallID   string          `json:"toolCallId"`
	ToolName     string          `json:"toolName"`
	IsError      bool            `json:"isError"`
	Timestamp    int64           `json:"timestamp"`
	// the provider's id of the reply (Anthropic's msg_...), as pi 0.73
	// writes it on an assistant message: the call's response_id
	ResponseID string `json:"responseId"`

	// the content's blocks, read as the line is (afterMembers), valid
	// until the next line is decoded
	blocks []piBlock
}

type piUsage struct {
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	CacheRead  int64   `json:"cacheRead"`
	CacheWrite int64   `json:"cacheWrite"`
	Cost       *piCost `json:"cost"`
}

type piCost struct {
	Total *float64 `json:"total"`
}

// piBlock is a content block of a pi message.
type piBlock struct {
	Type      string          `json:"type" ev:"word"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments" ev:"object"` // copied as they are
}

var (
	piLineTable  = tableFor[piLine]()
	piBlockTable = tableFor[piBlock]()
)

// afterMembers reads the content blocks of m, the line's message of that
// name, as its members are read: only an assistant's strings, which the
// converter reads from the blocks.
func (m *piMessage) afterMembers(d *fields, name string) {
	m.blocks = d.readPiBlocks(m.Content, name, m.Role == "assistant")
}

// readPiBlocks reads the content blocks of the line's message, member name:
// a block that is no object, or a member of the wrong type, is the
// line's error (blockWrong), as a member of the line's own is, not a
// block left out (a tool call lost). Content that is a string holds no
// blocks. Unless texts is set, the blocks' strings are checked, not
// decoded (only their types are).
func (line *fields) readPiBlocks(v []byte, name string, texts bool) []piBlock {
	line.piBlocks = line.piBlocks[:0]
	if !line.blockArray(v, name) {
		return nil
	}
	// the strings of a message whose content the converter reads itself
	// (a prompt, a tool's output) are checked, not decoded
	d := line.memberDecoder()
	d.skipTexts = !texts
	defer func() { d.skipTexts = false }()
	line.piBlocks = readBlocks(line, v, name, piBlockTable, line.piBlocks, nil)
	return line.piBlocks
}

var piSource = source{
	name: "pi", title: "pi", what: "a pi session",
	places: []place{{Var: "PI_CODING_AGENT_DIR", Home: ".pi/agent", In: []string{"sessions"}, Whose: "pi's folder"}},
	claims: []claim{
		{marked, func(p *probe) bool { return p.Type == "session" && (p.Cwd != "" || p.ID != "") }},
		{loose, func(p *probe) bool { return p.Type == "message" && p.Message != nil }},
	},
	// no keys: a session is one file
	session:        piSession,
	convertSession: (*converter).pi,
	known:          piKnown,
}

// piSession is the session a pi file is followed under: its first
// line's, the session header, which only a file's first line is (a file
// without is the continuation of one rotated away).
func piSession(f *logFile) (string, bool) {
	if len(f.records) == 0 {
		return "", false
	}
	data := f.records[0].data
	if typ, _ := jsonscan.Lookup(data, "type"); !jsonscan.StringEquals(typ, "session") {
		return "", false
	}
	id, _ := jsonscan.Lookup(data, "id")
	return string(id), len(id) > 2 && id[0] == '"'
}

// piKnown are the entry types read or deliberately passed over.
var piKnown = map[string]bool{
	"session": true, "message": true, "model_change": true, "thinking_level_change": true,
	"compaction": true, "branch_summary": true, "custom": true, "custom_message": true,
	"label": true, "session_info": true,
}

// piBlockKnown are the types of content blocks read or deliberately
// passed over (an image); a block of another type is counted as unknown.
var piBlockKnown = map[string]bool{"text": true, "thinking": true, "toolCall": true, "image": true}

// pi converts one pi session file (a session is one file: pi has no
// keys). Every entry is billed once, in file order, whatever branch of
// the tree it is on: each was a real call.
func (c *converter) pi(files []*logFile) *session {
	f := files[0]
	s := newSession("pi", "", "")
	b := newBuilder(c, s, mainAgent, false)
	d := c.takeFields()
	defer c.giveFields(d)
	decodeWith(c, d, piLineTable, f.records, func(_ record, l *piLine) {
		if !c.known("pi", l.Type, piKnown) {
			return
		}
		ms := parseTime(l.Timestamp)
		switch l.Type {
		case "session":
			if s.id == "" {
				s.id, s.project = l.ID, l.Cwd
				b.version = "session format " + string(l.Version)
				if l.Version == "" {
					b.version = ""
				}
				b.setModel(l.Provider, l.ModelID)
			}
		case "model_change":
			b.setModel(l.Provider, l.ModelID)
		case "compaction":
			b.compaction(ms, "", l.Tokens, l.Summary)
		case "message":
			if l.Message != nil {
				for _, bl := range l.Message.blocks {
					if !piBlockKnown[bl.Type] {
						c.skipBlock("pi", bl.Type)
					}
				}
				c.piMessage(d, b, ms, l.Message)
			}
		}
	})
	if s.id == "" {
		s.id = strings.TrimSuffix(baseName(f.name), ".jsonl")
	}
	b.finish()
	return s
}

// piMessage converts m, a message of the line d has just read.
func (c *converter) piMessage(d *fields, b *builder, ms int64, m *piMessage) {
	switch m.Role {
	case "user":
		b.prompt(ms, blocksText(contentBlocks(d, m.Content)))
	case "toolResult":
		b.toolOutput(d, ms, m.ToolCallID, !m.IsError, m.Content, false)
	case "assistant":
		b.setModel(m.Provider, m.Model)
		b.modelCall(ms)
		bs := m.blocks
		var thinking strings.Builder
		var calls []string
		for _, bl := range bs {
			switch bl.Type {
			case "text":
				b.text(ms, bl.Text)
			case "thinking":
				thinking.WriteString(bl.Thinking)
			case "toolCall":
				b.toolCall(ms, bl.ID, bl.Name, bl.Arguments)
				calls = append(calls, bl.ID)
			}
		}
		u := piTokens(m.Usage)
		u.stop, u.thinking, u.responseID = m.StopReason, thinking.String(), m.ResponseID
		b.modelResult(ms, u)
		switch m.StopReason {
		case "error":
			b.modelError(ms, m.ErrorMessage, "error")
			b.notRun(calls)
		case "aborted":
			b.modelError(ms, cmp.Or(m.ErrorMessage, "aborted"), "killed")
			b.notRun(calls)
		}
	}
}

// piTokens maps pi's usage: its input leaves out the cache (for every
// provider pi talks to), so input is the sum of the three. The cost pi
// recorded is used unless it is 0 for a call that used tokens (a model
// pi had no price for).
func piTokens(pu *piUsage) usage {
	if pu == nil {
		return usage{}
	}
	u := cacheApart(pu.Input, pu.CacheRead, pu.CacheWrite, pu.Output)
	if pu.Cost != nil && pu.Cost.Total != nil && (*pu.Cost.Total != 0 || u.input+u.output == 0) {
		u.cost, u.hasCost = *pu.Cost.Total, true
	}
	return u
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
