package evimport

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// fixture is the file name of the txtar script testdata/script.
func fixture(t *testing.T, script, name string) string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	t.Fatalf("%s: no %s", script, name)
	return ""
}

// A content block whose type is not a string is a bad line, named with
// its place in the line, as a member of the line's own is: not a block
// dropped in silence (a tool call lost, its result an orphan). A block
// of a type evimport does not know is counted with the records of
// unknown types, and its members named.
func TestContentBlockTypes(t *testing.T) {
	claude := fixture(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90.jsonl")
	pi := fixture(t, "pi.txtar", "home/.pi/agent/sessions/--home-ana-src-game--/2026-03-08T20-00-00-000Z_3b7e1d92-0c4a-4f68-9d15-a2e6c8b0f473.jsonl")
	for _, tt := range []struct {
		name, log, line, from, to string
		code                      int
		stderr                    string
	}{
		{"claude tool_use type a number", claude, "5", `"content":[{"type":"tool_use"`, `"content":[{"type":7`, 2,
			"evimport: s.jsonl:5: message.content[0].type is a number, not a string\n"},
		{"claude text a number", claude, "2", `"content":"the checkout test fails on a fresh clone, can you see why?"`, `"content":[{"type":"text","text":"hi"},{"type":"text","text":false}]`, 2,
			"evimport: s.jsonl:2: message.content[1].text is a bool, not a string\n"},
		{"claude tool_use id an object", claude, "5", `"id":"toolu_01Mk3"`, `"id":{}`, 2,
			"evimport: s.jsonl:5: message.content[0].id is an object, not a string\n"},
		{"claude block a number", claude, "5", `"content":[{"type":"tool_use"`, `"content":[7,{"type":"tool_use"`, 2,
			"evimport: s.jsonl:5: message.content[0] is a number, not an object\n"},
		{"claude content a number", claude, "2", `"content":"the checkout test fails on a fresh clone, can you see why?"`, `"content":7`, 2,
			"evimport: s.jsonl:2: message.content is a number, not a string or an array\n"},
		{"claude tool_use input a string", claude, "5", `"input":{"command":"go test ./checkout/",`, `"input":"go test","x":{"command":"go test ./checkout/",`, 2,
			"evimport: s.jsonl:5: message.content[0].input is a string, not an object\n"},
		{"claude tool_result content a number", claude, "6", `"content":"--- FAIL: TestTotal`, `"content":7,"was":"--- FAIL: TestTotal`, 2,
			"evimport: s.jsonl:6: message.content[0].content is a number, not a string or an array\n"},
		{"claude unknown block", claude, "5", `"content":[{"type":"tool_use"`, `"content":[{"type":"hologram","frames":[1],"source":{"url":"u"}},{"type":"tool_use"`, 0,
			"evimport: 1 record of an unknown type skipped: claude content block hologram (1)\n" +
				"evimport: claude content block hologram (1 record): members frames, source.url, type\n"},
		{"pi toolCall type a number", pi, "5", `{"type":"toolCall"`, `{"type":7`, 2,
			"evimport: s.jsonl:5: message.content[1].type is a number, not a string\n"},
		{"pi toolCall name a number", pi, "5", `"name":"read"`, `"name":1`, 2,
			"evimport: s.jsonl:5: message.content[1].name is a number, not a string\n"},
		{"pi user text a number", pi, "4", `"text":"why does the sprite flicker?"`, `"text":4`, 2,
			"evimport: s.jsonl:4: message.content[0].text is a number, not a string\n"},
		{"pi tool result type a bool", pi, "6", `"content":[{"type":"text"`, `"content":[{"type":true`, 2,
			"evimport: s.jsonl:6: message.content[0].type is a bool, not a string\n"},
		{"pi toolCall arguments a string", pi, "5", `"arguments":{"path":"src/render.ts"}`, `"arguments":"src/render.ts"`, 2,
			"evimport: s.jsonl:5: message.content[1].arguments is a string, not an object\n"},
		{"pi unknown block", pi, "5", `{"type":"toolCall"`, `{"type":"hologram"},{"type":"toolCall"`, 0,
			"evimport: 1 record of an unknown type skipped: pi content block hologram (1)\n" +
				"evimport: pi content block hologram (1 record): members type\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.SplitAfter(tt.log, "\n")
			n := 0
			for i := range len(lines) {
				if strconv.Itoa(i+1) == tt.line {
					lines[i] = strings.Replace(lines[i], tt.from, tt.to, 1)
					n = strings.Count(lines[i], tt.to)
				}
			}
			if n == 0 {
				t.Fatalf("line %s has no %s", tt.line, tt.from)
			}
			dir := writeFiles(t, map[string]string{"s.jsonl": strings.Join(lines, "")})
			code, _, stderr := runMain("", filepath.Join(dir, "s.jsonl"))
			stderr = strings.ReplaceAll(stderr, dir+"/", "")
			var kept []string
			for _, l := range strings.SplitAfter(stderr, "\n") {
				if !strings.Contains(l, "no price for model") {
					kept = append(kept, l)
				}
			}
			stderr = strings.Join(kept, "")
			if code != tt.code || stderr != tt.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// A message of a type evimport does not know in a Gemini CLI session
// document (the older .json format) is counted and its members named,
// as a record of the .jsonl format is: it was passed over unsaid.
func TestGeminiDocumentUnknownType(t *testing.T) {
	doc := fixture(t, "gemini.txtar", "home/.gemini/tmp/shop/chats/session-2026-03-01T07-30-2c6f0e8b.json")
	dir := writeFiles(t, map[string]string{"s.json": strings.Replace(doc, `"type": "gemini"`, `"type": "hologram"`, 1)})
	code, _, stderr := runMain("", "--from", "gemini", filepath.Join(dir, "s.json"))
	want := "evimport: 1 record of an unknown type skipped: gemini hologram (1)\n" +
		"evimport: gemini hologram (1 record): members content, id, model, thoughts, timestamp, tokens.cached, tokens.input, tokens.output, tokens.thoughts, tokens.tool, tokens.total, type\n"
	if code != 0 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0, stderr:\n%s", code, stderr, want)
	}
}

// A member of the wrong type in a Gemini CLI session document (the older
// .json format) is reported as in a .jsonl line, naming the file, the
// line where its message starts and the message, and the message is left
// out (exit 2): not tokens or a whole model call dropped in silence.
func TestGeminiDocumentShape(t *testing.T) {
	const name = "home/.gemini/tmp/shop/chats/session-2026-03-01T07-30-2c6f0e8b.json"
	pretty := fixture(t, "gemini.txtar", name)
	compact := fixture(t, "gemini.txtar", "compact/session-2026-03-01T07-30-2c6f0e8b.json")
	for _, tt := range []struct {
		name, doc, from, to, stderr string
	}{
		{"tokens a string", pretty, `"input": 5100`, `"input": "5100"`, "s.json:13: messages[1].tokens.input is a string, not a number"},
		{"type a number", pretty, `"type": "gemini"`, `"type": 7`, "s.json:13: messages[1].type is a number, not a string"},
		{"a message a number", pretty, `    {
      "id": "l-u1"`, `    7, {
      "id": "l-u1"`, "s.json:7: messages[0] is a number, not an object"},
		{"sessionId a number", pretty, `"sessionId": "2c6f0e8b-4d17-4a3e-9b52-7f1c0a9d6e38"`, `"sessionId": 7`, "s.json:1: sessionId is a number, not a string"},
		{"one line: tokens a string", compact, `"input":5100`, `"input":"5100"`, "s.json:1: messages[1].tokens.input is a string, not a number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.doc, tt.from) {
				t.Fatalf("no %s", tt.from)
			}
			dir := writeFiles(t, map[string]string{"s.json": strings.Replace(tt.doc, tt.from, tt.to, 1)})
			code, _, stderr := runMain("", "--from", "gemini", filepath.Join(dir, "s.json"))
			stderr = strings.ReplaceAll(stderr, dir+"/", "")
			if want := "evimport: " + tt.stderr + "\n"; code != 2 || stderr != want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2, stderr:\n%s", code, stderr, want)
			}
		})
	}
}
