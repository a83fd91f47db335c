package evimport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/pkg/jsonscan"

	_ "modernc.org/sqlite" // its SQLite, in pure Go (sqlite.go): release builds stay free of cgo
)

// opencode keeps its sessions in one SQLite database,
// ${XDG_DATA_HOME:-~/.local/share}/opencode/opencode.db, in WAL mode:
// tables session (a row a session, parent_id set for a subagent's),
// message and part, each message's and part's members a JSON object in
// its data column (opencode's own Message and Part types, less the ids
// kept in columns). docs/formats.md has the mapping.
//
// The database is a source's database (source.database): each top-level
// session, with its subagents' sessions, is read as one log whose lines
// are its rows, in the shape opencode's own export and older file store
// give them: the session, then each message followed by its parts, the
// ids put back into the objects. The conversion reads those lines as it
// reads any agent's.

// opencodeRecord holds the members of the rows read: a session's, a
// message's (role) and a part's (type).
type opencodeRecord struct {
	Kind      string `json:"kind" ev:"word"` // the row's table, as the export writes it
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	ParentID  string `json:"parentID"`
	Directory string `json:"directory"`
	Version   string `json:"version"`
	Title     string `json:"title"`

	Role       string          `json:"role" ev:"word"`
	Agent      string          `json:"agent" ev:"word"`
	ModelID    string          `json:"modelID" ev:"word"`
	ProviderID string          `json:"providerID" ev:"word"`
	Cost       *float64        `json:"cost"`
	Tokens     *opencodeTokens `json:"tokens"`
	Finish     string          `json:"finish"`
	Error      json.RawMessage `json:"error" ev:"object"`
	Time       *opencodeTime   `json:"time"`

	Type      string         `json:"type" ev:"word"`
	Text      string         `json:"text"`
	Synthetic bool           `json:"synthetic"`
	Tool      string         `json:"tool" ev:"word"`
	CallID    string         `json:"callID"`
	State     *opencodeState `json:"state"`

	// Data is a row's data column when it is no JSON object (the
	// export keeps it so, for the conversion to report)
	Data json.RawMessage `json:"data"`
}

type opencodeTime struct {
	Created   int64 `json:"created"`
	Updated   int64 `json:"updated"`
	Completed int64 `json:"completed"`
	Start     int64 `json:"start"`
	End       int64 `json:"end"`
}

// opencodeTokens is an assistant message's usage: input leaves the
// cache out, output the reasoning.
type opencodeTokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// opencodeState is a tool part's state: pending, running, completed or
// error.
type opencodeState struct {
	Status string          `json:"status" ev:"word"`
	Input  json.RawMessage `json:"input" ev:"object"`
	// quoted is the output as the row holds it, when it is spelled as
	// jsontext writes it: then Output is not decoded, and the output is
	// copied as it is, not unquoted and quoted again
	Output   string `json:"output" ev:"canonical=quoted"`
	quoted   []byte
	Error    string `json:"error"`
	Metadata *struct {
		SessionID string `json:"sessionId"` // the task tool's subagent session
	} `json:"metadata"`
	Time *opencodeTime `json:"time"`
}

var opencodeTable = tableFor[opencodeRecord]()

// decoded decodes what the table left as the row holds it, as
// encoding/json would have read it (the fuzz targets compare the two).
func (r *opencodeRecord) decoded() {
	if r.State != nil && r.State.quoted != nil {
		r.State.Output, r.State.quoted = unquote(r.State.quoted), nil
	}
}

// opencodeKnown are the rows read or passed over on purpose: a session,
// a message by its role, a part by its type (step-start and step-finish
// repeat the message's tokens; a snapshot, a patch, a file, an agent
// mention, a retry, a compaction marker and a subtask are no call, tool
// or tokens).
var opencodeKnown = map[string]bool{
	"session": true, "user": true, "assistant": true,
	"text": true, "reasoning": true, "tool": true,
	"step-start": true, "step-finish": true, "snapshot": true, "patch": true, "file": true,
	"agent": true, "retry": true, "compaction": true, "subtask": true,
}

var opencodeSource = source{
	name: "opencode", title: "opencode", what: "an opencode database",
	places:         []place{{Var: "XDG_DATA_HOME", Home: ".local/share", In: []string{"opencode/opencode.db"}, Whose: "The XDG data folder"}},
	fileName:       func(string) bool { return false },
	database:       &database{base: "opencode.db", sessions: opencodeSessions, export: opencodeExport},
	session:        func(f *logFile) (string, bool) { return f.sess.id, f.sess.id != "" },
	convertSession: (*converter).opencode,
	known:          opencodeKnown,
}

// opencodeDBs are the connections open, one a database (by its path),
// which the workers take in turn for a session each. One, not one a
// worker: this SQLite keeps every connection's pages in one pool
// (SQLITE_ENABLE_MEMORY_MANAGEMENT), where the first connection to fill
// its share takes the others' pages, and a second connection read every
// page again and again (1.6 reads a page instead of 1.2).
var opencodeDBs struct {
	sync.Mutex
	open map[string]*opencodeDB
}

// opencodeDB is a database's connection, held by one worker at a time.
type opencodeDB struct {
	sync.Mutex
	c *sqliteConn
}

// opencodeConn is the connection to the database at path, opened the
// first time, once no other worker holds it: opencodeDone gives it back.
func opencodeConn(path string) (*sqliteConn, error) {
	opencodeDBs.Lock()
	db := opencodeDBs.open[path]
	if db == nil {
		if opencodeDBs.open == nil {
			opencodeDBs.open = map[string]*opencodeDB{}
		}
		db = &opencodeDB{}
		opencodeDBs.open[path] = db
	}
	opencodeDBs.Unlock()
	db.Lock()
	if db.c == nil {
		c, err := openSQLite(path)
		if err != nil {
			db.Unlock()
			return nil, err
		}
		db.c = c
	}
	return db.c, nil
}

// opencodeDone gives a connection back, its statements reset.
func opencodeDone(path string, c *sqliteConn) {
	c.release()
	opencodeDBs.Lock()
	db := opencodeDBs.open[path]
	opencodeDBs.Unlock()
	db.Unlock()
}

// closeDatabases closes the connections a run opened.
func closeDatabases() {
	opencodeDBs.Lock()
	defer opencodeDBs.Unlock()
	for p, db := range opencodeDBs.open {
		db.Lock()
		if db.c != nil {
			db.c.close()
		}
		db.Unlock()
		delete(opencodeDBs.open, p)
	}
}

// opencodeSessions lists the database's top-level sessions, each with
// its subagents' sessions (of any depth), and the last time any of them
// was updated. Its error does not name the path: the caller does.
func opencodeSessions(path string) ([]dbSession, error) {
	c, err := opencodeConn(path)
	if err != nil {
		return nil, err
	}
	defer opencodeDone(path, c)
	rows, err := c.query("SELECT id, coalesce(parent_id, ''), time_updated FROM session ORDER BY time_created, id")
	if err != nil {
		return nil, err
	}
	type row struct {
		id, parent string
		updated    int64
	}
	var all []row
	known := map[string]bool{}
	for {
		ok, err := c.step(rows)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		r := row{string(c.text(rows, 0)), string(c.text(rows, 1)), c.int(rows, 2)}
		all = append(all, r)
		known[r.id] = true
	}
	parent := map[string]string{}
	for _, r := range all {
		if r.parent != "" && known[r.parent] {
			parent[r.id] = r.parent
		}
	}
	rootOf := func(id string) string {
		for n := 0; parent[id] != "" && n < len(all); n++ {
			id = parent[id]
		}
		return id
	}
	var out []dbSession
	at := map[string]int{}
	for _, r := range all {
		root := rootOf(r.id)
		i, ok := at[root]
		if !ok {
			i = len(out)
			at[root] = i
			out = append(out, dbSession{id: root})
		}
		if r.id != root {
			out[i].members = append(out[i].members, r.id)
		}
		out[i].updated = max(out[i].updated, r.updated)
	}
	return out, nil
}

// opencodeExport appends the rows of session s (and of its subagents'
// sessions) to buf as lines: each session's row, then its messages in
// the order they were made, each followed by its parts. It reads in one
// transaction, a snapshot of the database that a writer does not wait
// for.
func opencodeExport(path string, s dbSession, buf []byte) ([]byte, error) {
	c, err := opencodeConn(path)
	if err != nil {
		return buf, fmt.Errorf("%s: %v", path, err)
	}
	defer opencodeDone(path, c)
	if err := c.exec("BEGIN"); err != nil {
		return buf, fmt.Errorf("%s: %v", path, err)
	}
	defer func() {
		c.release() // ROLLBACK fails while a statement reads
		c.exec("ROLLBACK")
	}()
	for _, id := range append([]string{s.id}, s.members...) {
		if buf, err = opencodeSessionRows(c, id, buf); err != nil {
			return buf, fmt.Errorf("%s: session %s: %v", path, id, err)
		}
	}
	return buf, nil
}

// opencodeSessionRows appends one session's rows. The messages are read
// in their index's order and each one's parts, by theirs, while the
// message is the current row: a join ordered by message and part would
// make SQLite sort every part's data in a temporary B-tree.
func opencodeSessionRows(c *sqliteConn, id string, buf []byte) ([]byte, error) {
	row, err := c.query("SELECT coalesce(parent_id, ''), directory, title, version, time_created, time_updated FROM session WHERE id = ?", id)
	if err != nil {
		return buf, err
	}
	if ok, err := c.step(row); !ok {
		return buf, cmp.Or(err, errors.New("gone from the database"))
	}
	buf = jsontext.AppendString(append(buf, `{"kind":"session","id":`...), id)
	if parent := c.text(row, 0); len(parent) > 0 {
		buf = jsontext.AppendString(append(buf, `,"parentID":`...), parent)
	}
	buf = jsontext.AppendString(append(buf, `,"directory":`...), c.text(row, 1))
	buf = jsontext.AppendString(append(buf, `,"title":`...), c.text(row, 2))
	buf = jsontext.AppendString(append(buf, `,"version":`...), c.text(row, 3))
	buf = strconv.AppendInt(append(buf, `,"time":{"created":`...), c.int(row, 4), 10)
	buf = append(strconv.AppendInt(append(buf, `,"updated":`...), c.int(row, 5), 10), "}}\n"...)
	msgs, err := c.query("SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", id)
	if err != nil {
		return buf, err
	}
	sid := []byte(id)
	for {
		ok, err := c.step(msgs)
		if !ok {
			return buf, err
		}
		mid := c.text(msgs, 0)
		buf = opencodeRow(buf, "message", c.text(msgs, 1), idName, mid, sessionName, sid)
		if buf, err = opencodeParts(c, mid, sid, buf); err != nil {
			return buf, err
		}
	}
}

// opencodeParts appends the lines of message mid's parts.
func opencodeParts(c *sqliteConn, mid, sid []byte, buf []byte) ([]byte, error) {
	parts, err := c.query("SELECT id, data FROM part WHERE message_id = ? ORDER BY id", string(mid))
	if err != nil {
		return buf, err
	}
	for {
		ok, err := c.step(parts)
		if !ok {
			return buf, err
		}
		if data := c.text(parts, 1); !opencodePassedOver(data) {
			buf = opencodeRow(buf, "part", data, idName, c.text(parts, 0), messageName, mid, sessionName, sid)
		}
	}
}

// opencodePassedOver reports whether a part's data is of a type the
// conversion passes over without a look, step-start or step-finish (two
// of every model call's parts; the latter repeats the message's tokens
// and cost), and valid: not made into a line that would be decoded for
// nothing. Data that is not valid is kept, for the conversion to report.
// Such a part is small: a larger one (a tool's, with its output) is not
// searched for its type, nor is one without the type's words (a type
// spelled with escapes is kept, and passed over by the conversion).
func opencodePassedOver(data []byte) bool {
	if len(data) > opencodeStepMax || !bytes.Contains(data, []byte(`"step-`)) {
		return false
	}
	t, ok := jsonscan.Lookup(data, "type") // trusts data: checked below
	return ok && (jsonscan.StringEquals(t, "step-start") || jsonscan.StringEquals(t, "step-finish")) && jsonscan.Check(data) == nil
}

// opencodeStepMax bounds the data of a step part passed over: opencode's
// are a few hundred bytes (the type, a snapshot's hash, tokens and cost).
const opencodeStepMax = 1024

// the names of the ids a row's line is given
var idName, sessionName, messageName = []byte("id"), []byte("sessionID"), []byte("messageID")

// opencodeRow appends a row's line: its data object with its kind and
// ids (name, value pairs) put first. Data that is no object is kept as
// the value of data, for the conversion to report: so is data over
// several lines that is no JSON (a newline in a string must not pass
// for the space it becomes in the line).
func opencodeRow(buf []byte, kind string, data []byte, ids ...[]byte) []byte {
	buf = append(append(append(buf, `{"kind":"`...), kind...), '"')
	for i := 0; i < len(ids); i += 2 {
		buf = append(append(append(buf, ',', '"'), ids[i]...), '"', ':')
		buf = jsontext.AppendString(buf, ids[i+1])
	}
	d := bytes.Trim(data, " \t\r\n") // JSON's spaces, no other
	lines := bytes.IndexByte(d, '\n') >= 0
	start := len(buf)
	switch {
	case len(d) < 2 || d[0] != '{' || d[len(d)-1] != '}' || lines && !json.Valid(d):
		buf = jsontext.AppendString(append(buf, `,"data":`...), d)
	case len(bytes.Trim(d[1:len(d)-1], " \t\r\n")) > 0:
		buf = append(append(buf, ','), d[1:len(d)-1]...)
	}
	if lines {
		// between its tokens, where a newline is a space: the line
		// must stay one
		for i := start; i < len(buf); i++ {
			if buf[i] == '\n' {
				buf[i] = ' '
			}
		}
	}
	return append(append(buf, '}'), '\n')
}

// opencodeRowName names the row a line of the export holds, from the
// head opencodeRow gave it: "message msg_01…", its table and id.
func opencodeRowName(line []byte) string {
	kind, rest, ok := bytes.Cut(bytes.TrimPrefix(line, []byte(`{"kind":"`)), []byte(`","id":`))
	if !ok || len(rest) == 0 {
		return "row"
	}
	end, _ := jsonscan.StringEnd(rest, 1)
	id, ok := jsonscan.Unquote(nil, rest[:max(end, 0)])
	if !ok || end < 0 {
		return string(kind)
	}
	return string(kind) + " " + term.Escape(string(id))
}

// opencodeDataError says what a row's data is when it is no JSON
// object, which the export keeps as a string (opencodeRow).
func opencodeDataError(quoted []byte) error {
	data, _ := jsonscan.Unquote(nil, quoted)
	if json.Valid(data) {
		return fmt.Errorf("its data is %s, not an object", a(kindOf(data)))
	}
	return fmt.Errorf("its data is not JSON: %v", jsonscan.Check(data))
}

// opencodeState is what a session's conversion carries from row to row:
// the message being read, converted once its parts are all read.
type opencodeConv struct {
	c       *converter
	s       *session
	main    *builder
	b       *builder // the builder of the session being read
	subs    []*subagent
	anchors map[string]opencodeTask // subagent session -> the task call that spawned it
	// the message and its parts, copies of the rows decoded (their
	// arrays reused from message to message)
	msg    opencodeRecord
	hasMsg bool
	parts  []opencodeRecord
}

// opencodeTask is a task call: what its subagent is.
type opencodeTask struct {
	call         string
	SubagentType string `json:"subagent_type"`
	Description  string `json:"description"`
}

// opencode converts one top-level session and its subagents' sessions,
// the one log of files[0].
func (c *converter) opencode(files []*logFile) *session {
	f := files[0]
	s := newSession("opencode", f.sess.id, "")
	st := &opencodeConv{c: c, s: s, anchors: map[string]opencodeTask{}}
	st.main = newBuilder(c, s, mainAgent, false)
	st.b = st.main
	d := c.takeFields()
	defer c.giveFields(d)
	// a bad row is named by its table and id, which its place in the
	// session's log (the line) does not tell
	bad := c.bad
	c.bad = func(r record, err error) { bad(r, fmt.Errorf("%s: %v", opencodeRowName(r.data), err)) }
	defer func() { c.bad = bad }()
	decodeWith(c, d, opencodeTable, f.records, func(r record, v *opencodeRecord) {
		switch {
		case len(v.Data) > 0:
			c.bad(r, opencodeDataError(v.Data))
			return
		case v.Kind == "message" && v.Role == "":
			// no row of opencode's lacks it: one that does is
			// damaged, not of a kind to count as unknown
			c.bad(r, errors.New("its data has no role"))
			return
		case v.Kind == "part" && v.Type == "":
			c.bad(r, errors.New("its data has no type"))
			return
		}
		switch v.Kind {
		case "session":
			st.flush()
			st.session(v)
		case "message":
			st.flush()
			if c.known("opencode", v.Role, opencodeKnown) {
				st.msg, st.hasMsg = *v, true
			}
		case "part":
			if st.hasMsg && v.MessageID == st.msg.ID && c.known("opencode", v.Type, opencodeKnown) {
				st.parts = append(st.parts, *v)
			}
		default:
			c.skip("opencode", "row "+cmp.Or(v.Kind, "(none)"))
		}
	})
	st.flush()
	return s.end(st.main, st.subs)
}

// session starts a session's rows: the top-level one's (its directory
// and version), or a subagent's, anchored to the task call that spawned
// it.
func (st *opencodeConv) session(v *opencodeRecord) {
	if v.ID == st.s.id || st.s.project == "" && v.ParentID == "" {
		st.s.project = v.Directory
		st.main.version = v.Version
		st.b = st.main
		return
	}
	var ms int64
	if v.Time != nil {
		ms = v.Time.Created
	}
	task := st.anchors[v.ID]
	sb := &subagent{anchor: task.call, role: cmp.Or(task.SubagentType, "subagent"), about: oneLine(cmp.Or(task.Description, v.Title), 200), firstMS: ms}
	sb.b = newBuilder(st.c, st.s, "subagent:"+v.ID, true)
	st.subs = append(st.subs, sb)
	st.b = sb.b
}

// flush converts the message read with its parts.
func (st *opencodeConv) flush() {
	if !st.hasMsg {
		return
	}
	m, parts := &st.msg, st.parts
	st.hasMsg = false
	defer func() { st.parts = st.parts[:0] }()
	b := st.b
	var created, completed int64
	if m.Time != nil {
		created, completed = m.Time.Created, m.Time.Completed
	}
	if m.Role == "user" {
		var text []string
		for i := range parts {
			if p := &parts[i]; p.Type == "text" && !p.Synthetic {
				text = append(text, p.Text)
			}
		}
		b.prompt(created, strings.Join(text, "\n"))
		return
	}
	b.setModel(m.ProviderID, m.ModelID)
	b.modelCall(created)
	var thinking strings.Builder
	var ended []*opencodeRecord
	for i := range parts {
		p, ms := &parts[i], created
		if p.Time != nil && p.Time.Start > 0 {
			ms = p.Time.Start
		}
		switch p.Type {
		case "reasoning":
			thinking.WriteString(p.Text)
		case "text":
			if !p.Synthetic {
				b.text(ms, p.Text)
			}
		case "tool":
			st.toolCall(b, ms, p)
			if p.State != nil && (p.State.Status == "completed" || p.State.Status == "error") {
				ended = append(ended, p)
			}
		}
	}
	end := max(completed, created)
	failed := len(m.Error) > 0 && m.Error[0] == '{'
	if u := opencodeUsage(m); (m.Tokens != nil || m.Cost != nil) && !(failed && u.input+u.output == 0 && u.cost == 0) {
		// a failed request's message has tokens of 0: no call's usage
		u.stop, u.thinking = m.Finish, thinking.String()
		b.modelResult(end, u)
	}
	for _, p := range ended {
		ms := end
		if p.State.Time != nil && p.State.Time.End > 0 {
			ms = p.State.Time.End
		}
		if p.State.Status == "completed" {
			b.toolResultQuoted(ms, p.CallID, true, p.State.Output, p.State.quoted)
		} else {
			b.toolResult(ms, p.CallID, false, p.State.Error)
		}
	}
	if failed {
		st.messageError(b, end, m.Error)
	}
}

// toolCall is a tool part's call; a task call's subagent session is
// anchored to it.
func (st *opencodeConv) toolCall(b *builder, ms int64, p *opencodeRecord) {
	var args []byte
	if p.State != nil {
		args = p.State.Input
		if p.State.Time != nil && p.State.Time.Start > 0 {
			ms = p.State.Time.Start
		}
		if p.State.Metadata != nil && p.State.Metadata.SessionID != "" {
			var task opencodeTask
			json.Unmarshal(args, &task)
			task.call = p.CallID
			st.anchors[p.State.Metadata.SessionID] = task
		}
	}
	if len(args) == 0 || args[0] != '{' {
		args = nil
	}
	b.toolCall(ms, p.CallID, p.Tool, args)
}

// messageError is an assistant message's error ({name, data: {message}}):
// the call failed; an abort ends the run as killed.
func (st *opencodeConv) messageError(b *builder, ms int64, raw json.RawMessage) {
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	json.Unmarshal(raw, &e)
	if e.Name == "MessageAbortedError" {
		b.modelError(ms, cmp.Or(e.Data.Message, "aborted"), "killed")
		return
	}
	b.modelError(ms, cmp.Or(e.Data.Message, e.Name, "error"), "error")
}

// opencodeUsage maps an assistant message's tokens: opencode's input
// leaves the cache out and its output the reasoning, so input is the sum
// of the three and output adds the reasoning. The cost opencode recorded
// is the call's, from the log, unless it is 0 for a call that used tokens
// (a model opencode has no price for).
func opencodeUsage(m *opencodeRecord) usage {
	var u usage
	if t := m.Tokens; t != nil {
		u = cacheApart(t.Input, t.Cache.Read, t.Cache.Write, t.Output+t.Reasoning)
		u.reasoning, u.hasReasoning = t.Reasoning, true
	}
	if m.Cost != nil && (*m.Cost != 0 || u.input+u.output == 0) {
		u.cost, u.hasCost = *m.Cost, true
	}
	return u
}
