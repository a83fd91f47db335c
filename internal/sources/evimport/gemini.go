package evimport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Gemini CLI's chats: ~/.gemini/tmp/<project>/chats/session-*.jsonl, a
// record of the session's metadata, then its messages, one a line, with
// a message written again when it changes (the same id: the last one
// wins), {"$rewindTo": id} when the user rewinds (that message and all
// after it are gone) and {"$set": {...}} for metadata. Before, the same
// as one JSON document (session-*.json: the metadata and a "messages"
// list). docs/formats.md has the mapping.

var geminiSource = source{
	name: "gemini", title: "Gemini CLI", what: "a Gemini CLI chat",
	// Gemini CLI's own home (its homedir()), under which .gemini
	places: []place{{Var: "GEMINI_CLI_HOME", In: []string{".gemini/tmp"}, Whose: "Gemini CLI's home"}},
	fileName: func(path string) bool {
		base := filepath.Base(path)
		return jsonlName(base) || strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json")
	},
	companions: geminiCompanions,
	claims: []claim{
		{marked, func(p *probe) bool { return p.RewindTo != "" || p.Set != nil }},
		{marked, func(p *probe) bool { return p.SessionID != "" && p.ProjectHash != "" }},
		{marked, func(p *probe) bool {
			return p.ID != "" && p.UUID == "" && (p.Type == "gemini" || p.Type == "user" && p.SessionID == "" && p.Message == nil)
		}},
	},
	document: geminiIsDocument,
	keys:     geminiKeys,
	keyed:    func(f *logFile) bool { return f.seen != nil },
	session: func(f *logFile) (string, bool) {
		if p := geminiParent(f.name); p != "" {
			return p, true
		}
		id := geminiString(geminiMeta(f), "sessionId")
		return id, id != ""
	},
	convert: (*converter).geminiAll,
	known:   geminiKnown,
}

// geminiIsDocument reports whether data, a file that is one JSON value,
// is a session of the older format: a sessionId and a list of messages.
// On one line it must be a whole document (by a tool, or by hand), not a
// chat's first record, whose messages nothing would read.
func geminiIsDocument(data []byte, oneLine bool) bool {
	if oneLine {
		id, _ := jsonscan.Lookup(data, "sessionId")
		msgs, _ := jsonscan.Lookup(data, "messages")
		return len(id) > 2 && id[0] == '"' && len(msgs) > 0 && msgs[0] == '['
	}
	var p probe
	return json.Unmarshal(data, &p) == nil && p.SessionID != "" && p.Messages != nil
}

// geminiKeys notes a chat's sessionId, and the folder its subagents'
// chats are filed under.
func geminiKeys(f *logFile) {
	if p := geminiParent(f.name); p != "" {
		f.keys = append(f.keys, p)
	}
	if f.document != nil {
		if v, ok := jsonscan.Lookup(bytes.TrimSpace(f.document), "sessionId"); ok {
			f.noteID(v)
		}
	}
	for _, r := range f.records {
		if v, ok := jsonscan.Lookup(r.data, "sessionId"); ok {
			f.noteID(v)
			return
		}
	}
}

type geminiRecord struct {
	SessionID   string          `json:"sessionId" ev:"word"`
	ProjectHash string          `json:"projectHash"`
	Kind        string          `json:"kind"` // "subagent" for a subagent's chat
	Messages    json.RawMessage `json:"messages"`
	RewindTo    *string         `json:"$rewindTo"`
	Set         json.RawMessage `json:"$set"`

	ID        string           `json:"id"`
	Timestamp string           `json:"timestamp"`
	Type      string           `json:"type" ev:"word"`
	Content   json.RawMessage  `json:"content"`
	Thoughts  []geminiThought  `json:"thoughts"`
	Tokens    *geminiTokens    `json:"tokens"`
	Model     string           `json:"model" ev:"word"`
	ToolCalls []geminiToolCall `json:"toolCalls"`
}

var geminiRecordTable = tableFor[geminiRecord]()

type geminiThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

type geminiToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Status    string          `json:"status"`
	AgentID   string          `json:"agentId" ev:"word"` // the subagent the call ran
	Result    []geminiResult  `json:"result"`
	Timestamp string          `json:"timestamp"`
}

type geminiResult struct {
	FunctionResponse struct {
		Response struct {
			// quoted is the output as the log holds it, when it is spelled
			// as jsontext writes it: then Output is not decoded (output)
			Output string `json:"output" ev:"canonical=quoted"`
			Error  string `json:"error"`
			quoted []byte
		} `json:"response"`
	} `json:"functionResponse"`
}

// output is the result's output text.
func (r *geminiResult) output() string {
	if q := r.FunctionResponse.Response.quoted; q != nil {
		return unquote(q)
	}
	return r.FunctionResponse.Response.Output
}

// decoded decodes what the table left as the log holds it, as
// encoding/json would have read it (the fuzz target compares the two).
func (m *geminiRecord) decoded() {
	for i := range m.ToolCalls {
		for j := range m.ToolCalls[i].Result {
			r := &m.ToolCalls[i].Result[j]
			if r.FunctionResponse.Response.quoted != nil {
				r.FunctionResponse.Response.Output = r.output()
				r.FunctionResponse.Response.quoted = nil
			}
		}
	}
}

type geminiTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

// usage maps Gemini's counts: its input (promptTokenCount) holds the
// cached part; tool-use prompts are counted apart, and thoughts apart
// from the output: input and output here are the sums.
func (t *geminiTokens) usage() usage {
	return usage{input: t.Input + t.Tool, cacheRead: t.Cached, output: t.Output + t.Thoughts,
		reasoning: t.Thoughts, hasReasoning: true}
}

// geminiKnown are the message types read or deliberately passed over.
var geminiKnown = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// geminiChat is one chat file read: its session, project and kind, and
// its messages, each as last written, those rewound dropped.
type geminiChat struct {
	id, project, kind string
	msgs              []geminiRecord
}

// geminiSession converts a chat into a session of its own.
func (c *converter) geminiSession(ch geminiChat) *session {
	s := newSession("gemini", ch.id, ch.project)
	b := newBuilder(c, s, mainAgent, false)
	geminiThread(b, ch.msgs, false)
	b.finish()
	return s
}

// geminiThread converts a chat's messages with b; done says the chat is
// over (a subagent whose call has its result).
func geminiThread(b *builder, msgs []geminiRecord, done bool) {
	b.setModel("google", "")
	for i, m := range msgs {
		from := len(b.out)
		geminiMessage(b, m)
		if i == len(msgs)-1 && !done {
			b.unsettle(from) // the last message may be written again, grown
		}
	}
}

// geminiRead reads a chat's files, of either format, in turn as one log:
// the first's metadata names the chat, a message written again in a later
// file replaces the earlier one's, and a later file's rewind drops the
// messages of the earlier ones too (Gemini CLI, resuming a session of the
// older format, writes it all again to a .jsonl and leaves the .json).
func (c *converter) geminiRead(files ...*logFile) geminiChat {
	g := &geminiReader{c: c, index: map[string]int{}}
	for _, f := range files {
		document, records := geminiDocument(f)
		if document != nil {
			first := 1
			if f.document == nil {
				first = f.records[0].line // a document on one line
			}
			var doc geminiRecord
			var d fields
			geminiRecordTable.decode(&d, bytes.TrimSpace(document), &doc)
			if d.err != nil {
				c.bad(record{file: f.label(), line: first}, d.err)
			}
			g.head(doc)
			g.listed(doc.Messages, document, f.label(), first)
		}
		decode(c, geminiRecordTable, records, g.record)
	}
	name := files[0].name
	// ~/.gemini/tmp/<project>/chats/session-...: the folder names the
	// project (chats/<parent>/ holds a subagent's)
	chats := filepath.Dir(name)
	if geminiParent(name) != "" {
		chats = filepath.Dir(chats)
	}
	if g.chat.project == "" {
		g.chat.project = filepath.Base(filepath.Dir(chats))
	}
	if filepath.Base(chats) == "chats" {
		g.chat.project = geminiProjectRoot(filepath.Dir(chats), g.chat.project)
	}
	if g.chat.id == "" {
		g.chat.id = strings.TrimSuffix(strings.TrimSuffix(baseName(name), ".jsonl"), ".json")
	}
	g.chat.msgs = g.msgs
	return g.chat
}

// geminiReader reads a chat's messages from its files (geminiRead).
type geminiReader struct {
	c     *converter
	chat  geminiChat
	msgs  []geminiRecord
	index map[string]int // message id -> place in msgs
}

// keep adds a message to the chat; the same message again (by id)
// takes the place of the first: the last one wins.
func (g *geminiReader) keep(m geminiRecord) {
	if i, ok := g.index[m.ID]; ok && m.ID != "" {
		g.msgs[i] = m
		return
	}
	g.index[m.ID] = len(g.msgs)
	g.msgs = append(g.msgs, m)
}

// head takes the chat's id, project and kind from its first header.
func (g *geminiReader) head(m geminiRecord) {
	if g.chat.id == "" {
		g.chat.id, g.chat.project, g.chat.kind = m.SessionID, m.ProjectHash, m.Kind
	}
}

// record reads a line of the .jsonl format: a rewind drops the messages
// from the one it names on, a header's document (on one line, with
// records after it) lists the messages that come first, and a message
// of a known type is kept.
func (g *geminiReader) record(r record, m *geminiRecord) {
	switch {
	case m.RewindTo != nil:
		if i, ok := g.index[*m.RewindTo]; ok {
			for _, gone := range g.msgs[i:] {
				delete(g.index, gone.ID)
			}
			g.msgs = g.msgs[:i]
		}
	case m.Set != nil:
	case m.SessionID != "" && m.Type == "":
		g.head(*m)
		g.listed(m.Messages, r.data, r.file, r.line)
	case g.c.known("gemini", m.Type, geminiKnown):
		var d fields
		if m.shape(&d); d.err != nil {
			g.c.bad(r, d.err)
			return
		}
		g.keep(*m)
	}
}

// listed keeps a document's messages: one of the wrong shape is
// reported, naming the file, the line where the message starts and its
// place in the list, and left out, as a bad line of the .jsonl format
// is; doc is what raw is part of, whose first line is the file's line
// first.
func (g *geminiReader) listed(raw, doc json.RawMessage, file string, first int) {
	var d fields
	if d.array(raw, "messages"); d.err != nil {
		// no message of the document read: not none in silence
		g.c.bad(record{file: file, line: first}, d.err)
		return
	}
	i := 0
	jsonscan.Elements(raw, func(v []byte) bool {
		var m geminiRecord
		var err error
		d.err, d.hard, d.path = nil, false, d.path[:0]
		switch {
		case len(v) > 0 && v[0] == '{':
			if geminiRecordTable.decode(&d, v, &m); d.err == nil {
				m.shape(&d)
			}
			if d.err != nil {
				err = fmt.Errorf("messages[%d].%v", i, d.err)
			}
		case len(v) > 0 && v[0] != 'n':
			err = fmt.Errorf("messages[%d] is %s, not an object", i, a(kindOf(v)))
		}
		switch {
		case err != nil:
			g.c.bad(record{file: file, line: lineIn(doc, v, first)}, err)
		case g.c.knownIn("gemini", m.Type, geminiKnown, v):
			// a message of a type not known is counted, as a line of
			// the .jsonl format is, not kept to be passed over unsaid
			g.keep(m)
		}
		i++
		return true
	})
}

// lineIn is the line v starts on, a part of doc, whose first line is
// the file's line first.
func lineIn(doc, v []byte, first int) int {
	off := cap(doc) - cap(v)
	if off < 0 || off > len(doc) {
		return first // not a part of doc: cannot be
	}
	return first + bytes.Count(doc[:off], []byte("\n"))
}

// geminiDocument is f's whole-file document, if it holds one (the older
// format), and its records.
func geminiDocument(f *logFile) (document []byte, records []record) {
	if f.document == nil && len(f.records) == 1 && geminiIsDocument(f.records[0].data, true) {
		// here, not as the file is read: --follow reads its lines
		// itself, and another source's one line may have such members
		return f.records[0].data, nil
	}
	return f.document, f.records
}

func geminiMessage(b *builder, m geminiRecord) {
	ms := parseTime(m.Timestamp)
	text := geminiText(m.Content)
	switch m.Type {
	case "user":
		if geminiFunctionResponses(m.Content) {
			// the tools' results sent back to the model (0.5x and later
			// write them as a message of their own): read from the
			// calls, not a prompt
			return
		}
		b.prompt(ms, text)
	case "error":
		b.modelError(ms, text, "error")
	case "gemini":
		b.setModel("", m.Model)
		b.modelCall(ms)
		b.text(ms, text)
		for _, tc := range m.ToolCalls {
			tms := parseTime(tc.Timestamp)
			b.toolCall(tms, tc.ID, tc.Name, tc.Args)
			var out, errText []string
			for _, r := range tc.Result {
				errText = append(errText, r.FunctionResponse.Response.Error)
			}
			ok := tc.Status == "success" || tc.Status == ""
			if !ok && strings.Join(errText, "") != "" {
				b.toolResult(tms, tc.ID, ok, strings.Join(errText, "\n"))
				continue
			}
			if len(tc.Result) == 1 && tc.Result[0].FunctionResponse.Response.quoted != nil {
				// one output, spelled as it is written: copied, not decoded
				b.toolResultQuoted(tms, tc.ID, ok, "", tc.Result[0].FunctionResponse.Response.quoted)
				continue
			}
			for i := range tc.Result {
				out = append(out, tc.Result[i].output())
			}
			b.toolResult(tms, tc.ID, ok, strings.Join(out, "\n"))
		}
		if m.Tokens == nil {
			return
		}
		u := m.Tokens.usage()
		var th []string
		for _, t := range m.Thoughts {
			th = append(th, strings.TrimSpace(t.Subject+": "+t.Description))
		}
		u.thinking = strings.Join(th, "\n")
		b.modelResult(ms, u)
	}
}

// shape checks the members of the message m that its conversion reads
// and the decoder leaves as they are: its content (a text, or parts
// whose text is a string) and its tool calls' args (an object). One of
// the wrong type is noted to d, as a member the decoder reads is: not a
// prompt, a response or a call's arguments read as nothing in silence.
func (m *geminiRecord) shape(d *fields) {
	if m.Type != "user" && m.Type != "gemini" && m.Type != "error" {
		return
	}
	switch c := m.Content; {
	case len(c) == 0 || c[0] == '"' || c[0] == 'n':
	case c[0] == '[':
		d.textBlocks(c, "content", "text")
	default:
		d.wrong(c, "content", "string or an array")
	}
	for i, tc := range m.ToolCalls {
		if d.object(tc.Args, fmt.Sprintf("toolCalls[%d].args", i)); d.err != nil {
			return
		}
	}
}

// geminiFunctionResponses reports whether a message's content is a list
// of parts that are all functionResponse parts.
func geminiFunctionResponses(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '[' {
		return false
	}
	all, some := true, false
	jsonscan.Elements(raw, func(v []byte) bool {
		_, ok := jsonscan.Lookup(v, "functionResponse")
		all, some = all && ok && v[0] == '{', true
		return all
	})
	return all && some
}

// geminiText is a message's content: a string, or a list of parts with
// text.
func geminiText(raw json.RawMessage) string {
	switch {
	case len(raw) == 0 || raw[0] == 'n':
		return ""
	case raw[0] == '"':
		return unquote(raw)
	case raw[0] != '[':
		return ""
	}
	var texts []string
	jsonscan.Elements(raw, func(v []byte) bool {
		if t, ok := jsonscan.Lookup(v, "text"); ok && len(t) > 1 && t[0] == '"' && len(v) > 0 && v[0] == '{' {
			if s := unquote(t); s != "" {
				texts = append(texts, s)
			}
		}
		return true
	})
	return strings.Join(texts, "\n")
}

// geminiProjectRoot is the folder that project, a chat's project hash,
// stands for, when Gemini CLI wrote it into the project's .project_root
// (in dir, ~/.gemini/tmp/<project>) and its SHA-256 is that hash (or the
// project is the folder's name): a report by project then names the
// folder worked in, as Claude Code's does, not a hash. Otherwise project
// as it is.
func geminiProjectRoot(dir, project string) string {
	data, err := os.ReadFile(filepath.Join(dir, ".project_root"))
	if err != nil || len(data) == 0 || len(data) > 4096 {
		return project
	}
	root := strings.TrimSuffix(string(data), "\n")
	if sum := sha256.Sum256([]byte(root)); hex.EncodeToString(sum[:]) != project && project != filepath.Base(dir) {
		return project
	}
	return root
}
