package corpus

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // pure Go, as evimport reads it
)

// opencode keeps every session in one SQLite database in WAL mode,
// .local/share/opencode/opencode.db: the tables session, message and part
// as opencode 1.18 creates them (the columns a row must have), each
// message's and part's members a JSON object in data. A task call's
// subagent is a session whose parent_id is the caller's.

// OpencodeSchema is the part of opencode 1.18's schema the sessions fill
// (evimport's golden tests make their stores with it too).
const OpencodeSchema = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL,
  path text, title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL,
  revert text, permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_parent_idx ON session (parent_id);
`

// opencodeStore is the database being written, in one transaction.
type opencodeStore struct {
	db                *sql.DB
	tx                *sql.Tx
	session, msg, prt *sql.Stmt
	ids               int
}

var opencodeTools = map[string]string{"shell": "bash", "read": "read", "grep": "grep", "edit": "edit", "task": "task"}

func (g *agentGen) opencodeOpen() *opencodeStore {
	if g.oc != nil || g.err != nil {
		return g.oc
	}
	path := filepath.Join(g.home, ".local", "share", "opencode", "opencode.db")
	if g.err = os.MkdirAll(filepath.Dir(path), 0o755); g.err != nil {
		return nil
	}
	st := &opencodeStore{}
	st.db, g.err = sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
	for _, step := range []func() error{
		func() error { _, err := st.db.Exec(OpencodeSchema); return err },
		func() (err error) { st.tx, err = st.db.Begin(); return err },
		func() (err error) {
			st.session, err = st.tx.Prepare("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'global', ?, ?, ?, ?, '1.18.33', ?, ?)")
			return err
		},
		func() (err error) {
			st.msg, err = st.tx.Prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)")
			return err
		},
		func() (err error) {
			st.prt, err = st.tx.Prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)")
			return err
		},
	} {
		if g.err == nil {
			g.err = step()
		}
	}
	g.oc = st
	return st
}

// opencodeClose commits the database written.
func (g *agentGen) opencodeClose() {
	if g.oc == nil {
		return
	}
	if g.oc.tx != nil {
		if err := g.oc.tx.Commit(); g.err == nil {
			g.err = err
		}
	}
	if err := g.oc.db.Close(); g.err == nil {
		g.err = err
	}
}

// id is an opencode id: its prefix, then a number that grows, as
// opencode's ascending ids sort by time.
func (st *opencodeStore) id(prefix string) string {
	st.ids++
	return fmt.Sprintf("%s_%012x%014d", prefix, st.ids, st.ids*7919%100000000000000)
}

func (g *agentGen) opencodeExec(stmt *sql.Stmt, args ...any) {
	if g.err != nil {
		return
	}
	for _, a := range args {
		if s, ok := a.(string); ok {
			g.written += int64(len(s))
		}
	}
	_, g.err = stmt.Exec(args...)
}

// data is v as a data column, spelled as opencode's JSON.stringify
// spells it: <, > and & as they are, not escaped as json.Marshal
// escapes them (which a reader would have to unescape for nothing).
func data(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

type obj = map[string]any

func (g *agentGen) opencode() {
	st := g.opencodeOpen()
	if st == nil {
		return
	}
	proj := pick(&g.r, projects)
	dir := "/home/ana/src/" + proj
	sid := st.id("ses")
	start := g.ms
	g.opencodeExec(st.session, sid, nil, "calm-"+proj, dir, pick(&g.r, prompts), start, start)
	for _, t := range g.plan(true) {
		user := g.opencodeUser(st, sid, t.prompt)
		for _, s := range t.steps {
			g.opencodeStep(st, sid, dir, user, s, "build")
		}
	}
	g.ms++
}

// opencodeUser writes a prompt: a user message and its text part.
func (g *agentGen) opencodeUser(st *opencodeStore, sid, text string) string {
	ms := g.tick(20000, 600000)
	id := st.id("msg")
	g.opencodeExec(st.msg, id, sid, ms, ms, data(obj{"role": "user", "time": obj{"created": ms}, "agent": "build",
		"model": obj{"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}))
	g.opencodeExec(st.prt, st.id("prt"), id, sid, ms, ms, data(obj{"type": "text", "text": text}))
	return id
}

// opencodeStep writes a model call: an assistant message, its parts
// (step-start, reasoning, text, tools, step-finish), and a task call's
// subagent session.
func (g *agentGen) opencodeStep(st *opencodeStore, sid, dir, parent string, s step, agent string) {
	created := g.tick(500, 3000)
	id := st.id("msg")
	finish := "stop"
	if len(s.calls) > 0 {
		finish = "tool-calls"
	}
	tokens := obj{"total": s.input + s.cacheRead + s.cacheWrite + s.output, "input": s.input, "output": s.output - s.output/10,
		"reasoning": s.output / 10, "cache": obj{"read": s.cacheRead, "write": s.cacheWrite}}
	cost := s.cost()
	part := func(ms int64, v obj) { g.opencodeExec(st.prt, st.id("prt"), id, sid, ms, ms, data(v)) }
	var parts []func()
	parts = append(parts, func() { part(created, obj{"type": "step-start"}) })
	if s.thinking != "" {
		parts = append(parts, func() {
			part(created, obj{"type": "reasoning", "text": s.thinking, "time": obj{"start": created, "end": created + 5}})
		})
	}
	if s.text != "" {
		parts = append(parts, func() {
			part(created, obj{"type": "text", "text": s.text, "time": obj{"start": created, "end": created + 9}})
		})
	}
	for _, c := range s.calls {
		parts = append(parts, g.opencodeTool(st, sid, dir, id, created, c, part))
	}
	completed := g.tick(1500, 20000)
	parts = append(parts, func() { part(completed, obj{"type": "step-finish", "reason": finish, "tokens": tokens, "cost": cost}) })
	g.opencodeExec(st.msg, id, sid, created, completed, data(obj{"parentID": parent, "role": "assistant", "mode": agent, "agent": agent,
		"path": obj{"cwd": dir, "root": dir}, "cost": cost, "tokens": tokens, "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
		"time": obj{"created": created, "completed": completed}, "finish": finish}))
	for _, p := range parts {
		p()
	}
}

// opencodeTool is the writing of a tool part; a task's subagent session
// is written at once, as opencode writes it while the call runs.
func (g *agentGen) opencodeTool(st *opencodeStore, sid, dir, msg string, ms int64, c call, part func(int64, obj)) func() {
	call := "toolu_01" + g.hex(16)
	input := obj{"command": c.arg, "description": "run it"}
	state := obj{"status": "completed", "input": input, "output": c.output, "title": c.arg,
		"metadata": obj{"exit": 0, "truncated": false}, "time": obj{"start": ms, "end": ms + 40}}
	if c.failed {
		state = obj{"status": "error", "input": input, "error": c.output, "time": obj{"start": ms, "end": ms + 40}}
	}
	if c.tool == "task" {
		child := st.id("ses")
		input = obj{"description": "look into it", "prompt": c.arg, "subagent_type": "general"}
		state = obj{"status": "completed", "input": input, "output": "<task id=\"" + child + "\" state=\"completed\">\n<task_result>\n" + c.output + "\n</task_result>\n</task>",
			"metadata": obj{"parentSessionId": sid, "sessionId": child}, "title": "look into it", "time": obj{"start": ms, "end": ms + 900}}
		g.opencodeExec(st.session, child, sid, "child", dir, "look into it (@general subagent)", ms, ms)
		user := g.opencodeUser(st, child, c.arg)
		for _, s := range g.subPlan(c.subSpan) {
			g.opencodeStep(st, child, dir, user, s, "general")
		}
	}
	return func() { part(ms, obj{"type": "tool", "tool": opencodeTools[c.tool], "callID": call, "state": state}) }
}
