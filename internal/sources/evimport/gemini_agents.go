package evimport

import (
	"bytes"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Gemini CLI's subagents (since its 0.36) record chats of their own, in a
// folder named by the whole id of the session that ran them:
// chats/<session id>/<agent id>.jsonl, whose metadata says "kind":
// "subagent" and whose sessionId is the agent's id. The parent's tool call
// that ran the subagent carries that id as its agentId, and its name is
// the subagent's (codebase_investigator). Before, a subagent's chat sat
// beside the sessions (chats/session-*.json, "kind":"subagent") with
// nothing that names its parent.

// geminiParent is the session id a subagent's chat file is filed under:
// the name of its folder, but for a session's own file (session-*) and a
// file right in chats. A copy of the folders elsewhere keeps it.
func geminiParent(name string) string {
	dir := filepath.Base(filepath.Dir(name))
	if strings.HasPrefix(filepath.Base(name), "session-") || dir == "chats" || dir == "." || dir == string(filepath.Separator) {
		return ""
	}
	return dir
}

// geminiCompanions are the subagents' chats of the Gemini CLI session
// file name (chats/session-<time>-<first 8 of its id>.jsonl): those in a
// folder whose name starts as the id does; a folder of another session
// with the same 8 first characters is told apart by the whole id when the
// chats are joined. nil for a file of another name.
func geminiCompanions(name string) []string {
	base := filepath.Base(name)
	stem := strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
	if !strings.HasPrefix(base, "session-") || stem == base || len(stem) < 8 || filepath.Base(filepath.Dir(name)) != "chats" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(name), stem[len(stem)-8:]+"*", "*.jsonl"))
	sort.Strings(m)
	return m
}

// geminiAll converts Gemini CLI's chat files. A subagent's chat whose
// parent session is read too is an agent of the parent's run: placed
// after the tool call that ran it (the call's agentId), its agent_id
// ROLE:ID with the call's name as the role. Without its parent (or in the
// older layout, which does not name it) it is a session of its own.
func (c *converter) geminiAll(files []*logFile) []*session {
	var out []*session
	type sub struct {
		parent    string
		chat      geminiChat
		companion bool
		index     int
	}
	var subs []sub
	byID := map[string]int{}              // main session id -> index in out
	calls := map[string]map[string]call{} // main session id -> agentId -> the call that ran it
	for _, fs := range geminiChats(files) {
		f := fs[0]
		ch := c.geminiRead(fs...)
		// placed where the first of its files is found; a companion if
		// none of them was named
		index := firstIndex(fs)
		companion := !slices.ContainsFunc(fs, func(g *logFile) bool { return !g.companion })
		if p := geminiParent(f.name); p != "" && ch.kind == "subagent" {
			subs = append(subs, sub{p, ch, companion, index})
			continue
		}
		if _, dup := byID[ch.id]; !dup {
			byID[ch.id] = len(out)
		}
		calls[ch.id] = geminiAgentCalls(ch.msgs, calls[ch.id])
		s := c.geminiSession(ch)
		s.at = order{file: index}
		out = append(out, s)
	}
	for _, sb := range subs {
		i, ok := byID[sb.parent]
		if !ok {
			if !sb.companion { // found beside another session: not asked for
				// after the sessions of their own, as they are listed
				s := c.geminiSession(sb.chat)
				s.at = order{file: 1<<30 + sb.index}
				// its parent's file may be still to come (--follow):
				// the chat is held, as it would be the parent's
				for k := range s.events {
					s.events[k].unsettled = true
				}
				out = append(out, s)
			}
			continue
		}
		cl, known := calls[sb.parent][sb.chat.id]
		role := cl.name
		if !known || role == "" {
			role = "subagent"
		}
		b := newBuilder(c, out[i], role+":"+sb.chat.id, true)
		// the parent records a call once it is over: the chat is done
		geminiThread(b, sb.chat.msgs, known)
		var first int64
		if len(sb.chat.msgs) > 0 {
			first = parseTime(sb.chat.msgs[0].Timestamp)
		}
		b.thread(cl.id, role, "", first)
		// the parent records the call that ran it once the call is
		// over, its prompt maybe not yet (--follow)
		out[i].holdUnplaced()
	}
	for _, s := range out {
		s.splice()
	}
	return out
}

// call is the tool call that ran a subagent: its id and name.
type call struct{ id, name string }

// geminiAgentCalls adds to m the tool calls of msgs that ran a subagent,
// by the subagent's id.
func geminiAgentCalls(msgs []geminiRecord, m map[string]call) map[string]call {
	for _, msg := range msgs {
		for _, tc := range msg.ToolCalls {
			if tc.AgentID == "" {
				continue
			}
			if m == nil {
				m = map[string]call{}
			}
			m[tc.AgentID] = call{tc.ID, tc.Name}
		}
	}
	return m
}

// geminiChats are the chats of files, each to be read as one log: a file
// alone, but the main chats that share a sessionId (the older format's
// document and the .jsonl Gemini CLI writes when it resumes it, or a
// copy, whatever its name and folder), and a subagent's chats filed under
// the same parent that share one (a copy of the session's folders), which
// are one chat placed where the first is found, the older format first,
// then the shorter first (a copy taken earlier of a log that is only
// appended to, whose messages the longer one wrote again as they grew),
// then by name, whatever the order they are found in.
func geminiChats(files []*logFile) [][]*logFile {
	var out [][]*logFile
	at := map[string]int{} // the parent's folder of a subagent's, and sessionId -> place in out
	for _, f := range files {
		meta := geminiMeta(f)
		if id := geminiString(meta, "sessionId"); id != "" {
			key := "\x00" + id
			if p := geminiParent(f.name); p != "" && geminiString(meta, "kind") == "subagent" {
				key = p + key
			}
			if i, ok := at[key]; ok {
				out[i] = append(out[i], f)
				continue
			}
			at[key] = len(out)
		}
		out = append(out, []*logFile{f})
	}
	for _, fs := range out {
		sort.SliceStable(fs, func(i, j int) bool {
			di, _ := geminiDocument(fs[i])
			dj, _ := geminiDocument(fs[j])
			if (di != nil) != (dj != nil) {
				return di != nil
			}
			if bi, bj := geminiBytes(fs[i]), geminiBytes(fs[j]); bi != bj {
				return bi < bj
			}
			return fs[i].name < fs[j].name
		})
	}
	return out
}

// geminiBytes is how much a chat file holds, as read: its document's
// bytes, or its records'.
func geminiBytes(f *logFile) int {
	document, records := geminiDocument(f)
	n := len(document)
	for _, r := range records {
		n += len(r.data)
	}
	return n
}

// geminiMeta is a chat file's metadata, as geminiRead finds it: its
// document, else its first record that has a sessionId and no type; nil
// when it has none.
func geminiMeta(f *logFile) []byte {
	document, records := geminiDocument(f)
	if document != nil {
		return bytes.TrimSpace(document)
	}
	for _, r := range records {
		if _, typed := jsonscan.Lookup(r.data, "type"); !typed && geminiString(r.data, "sessionId") != "" {
			return r.data
		}
	}
	return nil
}

// geminiString is the string member key of a JSON object, "" when it has
// none.
func geminiString(data []byte, key string) string {
	v, _ := jsonscan.Lookup(data, key)
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	return unquote(v)
}
