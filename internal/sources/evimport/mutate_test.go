package evimport

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// mutation is one member of a line given a value of another JSON type.
type mutation struct {
	line int    // of the file, from 1: where the line (or the message of a document) starts
	path string // the member's path: message.content[0].type
	// jpath is path as encoding/json names it, and so a bad line's
	// message: message.content.type (but for a message's content blocks)
	jpath string
	text  string // the file, mutated
}

// mutations are the mutations of every member, at every depth, of each
// line of log (or of the document, when doc is set: the older Gemini CLI
// format, whose messages are named by their place in the list and the
// line they start on), but the members under data (paths as encoding/json
// names them), which are a tool's arguments, copied as they are.
func mutations(log string, doc bool, data []string) []mutation {
	var out []mutation
	b := []byte(log) // the values walked are parts of it: cap(b)-cap(v) is where v is
	at := 0
	for i, line := range strings.SplitAfter(log, "\n") {
		value := b[at : at+len(strings.TrimSuffix(line, "\n"))]
		at += len(line)
		if doc {
			if i > 0 {
				break
			}
			value = b
		}
		if len(value) == 0 || value[0] != '{' {
			continue
		}
		walkMembers(value, "", "", func(path, jpath string, v []byte) {
			to := otherType(v)
			if to == "" || copied(jpath, data) {
				return
			}
			off := cap(b) - cap(v)
			m := mutation{line: i + 1, path: path, jpath: jpath, text: log[:off] + to + log[off+len(v):]}
			if doc {
				m.line = 1 + strings.Count(log[:messageStart(b, path)], "\n")
			}
			out = append(out, m)
		})
	}
	return out
}

// copied reports whether the member at jpath is one of data, or under
// it; "input." is only what is under input.
func copied(jpath string, data []string) bool {
	for _, d := range data {
		if strings.HasPrefix(jpath, d) && (strings.HasSuffix(d, ".") || jpath == d || jpath[len(d)] == '.') {
			return true
		}
	}
	return false
}

// messageStart is the offset in the document doc of the message whose
// member path is (messages[i]...), or 0: a member of the document's own.
func messageStart(doc []byte, path string) int {
	rest, ok := strings.CutPrefix(path, "messages[")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest[:strings.IndexByte(rest, ']')])
	if err != nil {
		return 0
	}
	msgs, _ := jsonscan.Lookup(doc, "messages")
	off, i := 0, 0
	jsonscan.Elements(msgs, func(v []byte) bool {
		if i == n {
			off = cap(doc) - cap(v)
			return false
		}
		i++
		return true
	})
	return off
}

// walkMembers calls fn with every member and element under the JSON
// value v, at every depth, with its path ("message.content[0].type"),
// and its path as encoding/json names it, and so the hand decoders
// (fields.go): without the index of an element of a list, or the key of
// a map (a Copilot CLI shutdown's models, a Claude Code cost-state's).
func walkMembers(v []byte, path, jpath string, fn func(path, jpath string, v []byte)) {
	switch jsonscan.KindOf(v) {
	case jsonscan.Object:
		isMap := path == "modelMetrics" || strings.HasSuffix(path, ".modelMetrics") || path == "modelUsage"
		jsonscan.Each(v, func(k, e []byte) bool {
			key := string(unescapedKey(k))
			p, jp := key, key
			if path != "" {
				p, jp = path+"."+key, jpath+"."+key
			}
			if isMap {
				jp = jpath
			}
			fn(p, jp, e)
			walkMembers(e, p, jp, fn)
			return true
		})
	case jsonscan.Array:
		i := 0
		jsonscan.Elements(v, func(e []byte) bool {
			p := fmt.Sprintf("%s[%d]", path, i)
			fn(p, jpath, e)
			walkMembers(e, p, jpath, fn)
			i++
			return true
		})
	}
}

// otherType is a value of another JSON type than v's, one that none of
// the members read may hold (a number for a string or a list, a string
// for a number or a boolean); "" for null, which is no value of a type.
func otherType(v []byte) string {
	switch v[0] {
	case '"':
		return "7"
	case '{':
		return "7"
	case '[':
		// not a string: a message's content may be a string or blocks
		return "7"
	case 't', 'f':
		return `"true"`
	case 'n':
		return ""
	}
	return `"` + string(v) + `"`
}

// A member evimport reads, given a value of the wrong type, makes its
// line a bad line, named with the file, the line and the member's path
// (exit 2), never a line read without it in silence: the adversary's
// "type":7 on a tool_use block took a tool call away with exit 0. Every
// member of every line of a fixture of each source is given a value of
// another type in turn: the output is either unchanged (a member not
// read) or the line is reported.
func TestWrongTypeMutations(t *testing.T) {
	claude := []string{"message.content.input.", "data.message.message.content.input."}
	for _, tt := range []struct {
		from, script, file string
		doc                bool
		// data are a tool's arguments, copied as they are: what is
		// under them is not read ("input."), or they are of any type
		data []string
	}{
		{"claude", "claude.txtar", "home/.claude/projects/-home-ana-src-shop/5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90.jsonl", false, claude},
		// progress lines, tool outputs as blocks, a subagent's own file
		{"claude", "claude-subagents.txtar", "home/.claude/projects/-home-ana-src-api/c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18.jsonl", false, claude},
		{"claude", "claude-subagents.txtar", "home/.claude/projects/-home-ana-src-api/agent-0d4e2aa.jsonl", false, claude},
		{"claude", "claude-compaction.txtar", "home/.claude/projects/-home-ana-src-docs/e8b24d6a-1c7f-4a93-85e0-3f6a9d2b7c41.jsonl", false, claude},
		// 2.1.328's records: cost-state, and those known and skipped
		{"claude", "claude-cost-state.txtar", "home/.claude/projects/-home-ana-src-site/9b2d4f6a-8c1e-4a3b-9d5f-7e6a2c4b8d10.jsonl", false,
			claude},
		{"codex", "codex.txtar", "home/.codex/sessions/2026/03/06/rollout-2026-03-06T08-00-00-019cb3a1-7e42-7c10-9a55-3e8d2f61b0a7.jsonl", false, nil},
		// a fork's turns, web searches, a spawned agent
		{"codex", "codex-fork-turns.txtar", "home/.codex/sessions/2026/03/12/rollout-2026-03-12T09-00-05-019ce146-46d0-7c33-8e43-7f5a6b7c8da3.jsonl", false, nil},
		{"codex", "codex-web-search.txtar", "home/.codex/sessions/2026/03/08/rollout-2026-03-08T09-00-00-019cc1a0-1b2c-7d3e-8f40-5a6b7c8d9e01.jsonl", false, []string{"payload.action."}},
		{"codex", "codex-agents.txtar", "home/.codex/sessions/2026/03/10/rollout-2026-03-10T15-00-03-019cc002-2b3c-7d4e-9f50-6b7c8d9e0f12.jsonl", false, nil},
		{"pi", "pi.txtar", "home/.pi/agent/sessions/--home-ana-src-game--/2026-03-08T20-00-00-000Z_3b7e1d92-0c4a-4f68-9d15-a2e6c8b0f473.jsonl", false,
			[]string{"message.content.arguments."}},
		{"pi", "pi-error.txtar", "home/.pi/agent/sessions/--home-ana-src-game--/2026-03-09T08-00-00-000Z_5d1e7c20-3a4b-4c5d-8e6f-7a8b9c0d1e2f.jsonl", false,
			[]string{"message.content.arguments."}},
		{"gemini", "gemini.txtar", "home/.gemini/tmp/shop/chats/session-2026-03-09T13-00-9a1d5e3c.jsonl", false, []string{"toolCalls.args."}},
		{"gemini", "gemini.txtar", "home/.gemini/tmp/shop/chats/session-2026-03-01T07-30-2c6f0e8b.json", true, nil},
		{"gemini", "gemini-agents.txtar", "home/.gemini/tmp/shop/chats/session-2026-03-12T09-00-7c1e2a90.jsonl", false, []string{"toolCalls.args."}},
		// Copilot CLI's arguments are of any type (unknown, says the
		// SDK): one that is no object is a custom tool's input
		{"copilot", "copilot.txtar", "home/.copilot/session-state/7c1e4b2a-5d3f-4e8a-9b6c-0a1d2e3f4a5b/events.jsonl", false,
			[]string{"data.arguments", "data.toolRequests.arguments"}},
		{"copilot", "copilot-old.txtar", "home/.copilot/session-state/3f9a0c1d-2b4e-4c6d-8e0f-1a2b3c4d5e6f.jsonl", false,
			[]string{"data.arguments", "data.toolRequests.arguments"}},
	} {
		t.Run(tt.script+"/"+path.Base(tt.file), func(t *testing.T) {
			log := fixture(t, tt.script, tt.file)
			dir := writeFiles(t, map[string]string{tt.file: log})
			name := filepath.Join(dir, filepath.FromSlash(tt.file))
			run := func(text string) (int, string, string) {
				if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				// a document whose own members are of the wrong type is
				// no Gemini CLI session to the detection (in no known
				// format, skipped): named as --from gemini reads it
				code, stdout, stderr := runMain("", "--from", tt.from, name)
				return code, stdout, strings.ReplaceAll(stderr, dir+"/", "")
			}
			code0, stdout0, stderr0 := run(log)
			ms := mutations(log, tt.doc, tt.data)
			read, bad, ran := 0, 0, 0
			for i, m := range ms {
				if testing.Short() && i%4 != 0 {
					continue
				}
				ran++
				code, stdout, stderr := run(m.text)
				at := fmt.Sprintf("evimport: %s:%d: ", tt.file, m.line)
				switch {
				case code == code0 && stdout == stdout0 && stderr == stderr0:
					// a member not read
				case code == 2 && (strings.Contains(stderr, at+m.path+" is ") || strings.Contains(stderr, at+m.jpath+" is ")):
					read++
				default:
					bad++
					t.Errorf("line %d: %s: exit %d, stderr %q", m.line, m.path, code, newLines(stderr, stderr0))
				}
			}
			t.Logf("%d mutations: %d reported, %d not read, %d wrong", ran, read, ran-read-bad, bad)
		})
	}
}

// newLines are the lines of stderr that are not in was.
func newLines(stderr, was string) string {
	var out []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.Contains(was, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
