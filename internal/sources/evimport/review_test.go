package evimport

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/rogpeppe/go-internal/txtar"
)

// reviewSession is the one Claude Code session the tests below convert.
const reviewSession = "4e8a1c2b-9d3f-4a57-8e61-0b2c7d5f9a13"

// claudeTestLine is one line of reviewSession; key is how the line spells
// its sessionId member (two members make the scan look again).
func claudeTestLine(key, typ, uuid, ts, body string) string {
	return `{"parentUuid":null,"isSidechain":false,"cwd":"/home/ana/src/shop",` + key + `,"version":"2.1.40","type":"` + typ +
		`","uuid":"` + uuid + `","timestamp":"` + ts + `",` + body + "}\n"
}

// writeFiles writes files (path -> content) under a new folder, whose
// name it returns.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for path, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runMain(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errs strings.Builder
	code = Main(args, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errs})
	return code, out.String(), errs.String()
}

// A Gemini CLI session file of the older format (one JSON document) read
// from standard input is converted even when a Claude Code line with two
// sessionIds makes evimport scan and convert everything a second time:
// standard input, read once, is held for that round whole, not only its
// lines.
func TestRescanKeepsStandardInputsDocument(t *testing.T) {
	id := `"sessionId":"` + reviewSession + `"`
	dir := writeFiles(t, map[string]string{
		"a.jsonl": claudeTestLine(id, "user", "u1", "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"list the tests"}`),
		// the scan notes this line's first sessionId, the conversion
		// reads its last: the files are scanned again
		"b.jsonl": claudeTestLine(`"sessionId":"ffffffff-0000-4000-8000-000000000000",`+id, "assistant", "a1", "2026-03-02T09:00:02.000Z",
			`"requestId":"req_1","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_1","role":"assistant","content":[{"type":"text","text":"There are three."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":9}}`),
	})
	gemini := `{
  "sessionId": "2a7c9e41-5b3d-4f60-8a12-6e9d0c4b7f25",
  "projectHash": "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0",
  "startTime": "2026-03-01T07:30:00.000Z",
  "messages": [
    {"id": "m1", "timestamp": "2026-03-01T07:30:00.000Z", "type": "user", "content": "what does make dist do?"},
    {"id": "m2", "timestamp": "2026-03-01T07:30:04.000Z", "type": "gemini", "content": "It builds the archives.", "model": "gemini-2.5-flash",
     "tokens": {"input": 100, "output": 7, "cached": 0, "thoughts": 0, "tool": 0, "total": 107}}
  ]
}
`
	code, stdout, stderr := runMain(gemini, filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{`"text":"list the tests"`, `"text":"what does make dist do?"`, `"text":"It builds the archives."`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no event with %s in:\n%s", want, stdout)
		}
	}
}

// --strict stops at the first bad line: the lines after it, and the
// counts of what the conversion skipped (of events never written), are
// not reported; nothing is written.
func TestStrictStopsAtTheFirstBadLine(t *testing.T) {
	id := `"sessionId":"` + reviewSession + `"`
	good := claudeTestLine(id, "user", "u1", "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"list the tests"}`) +
		claudeTestLine(id, "frobnicated", "u9", "2026-03-02T09:00:01.000Z", `"message":{"role":"user","content":"?"}`)
	dir := writeFiles(t, map[string]string{
		"a.jsonl": good + "{\"type\":\"user\"\n" + good + "{\"type\":\"user\"\n",
		"b.jsonl": "{\"type\":\"user\"\n" + good,
	})
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	// without --strict: every bad line, in the order of the files and
	// their lines (b.jsonl joins a.jsonl's session: one group, whose
	// first lines are found bad before the others)
	code, _, stderr := runMain("", a, b)
	want := "evimport: " + a + ":3: unexpected end of input (truncated line?)\n" +
		"evimport: " + a + ":6: unexpected end of input\n" +
		"evimport: " + b + ":1: unexpected end of input\n" +
		"evimport: 3 records of unknown types skipped: claude frobnicated (3)\n" +
		"evimport: claude frobnicated (3 records): members cwd, isSidechain, message.content, message.role, parentUuid, sessionId, timestamp, type, uuid, version\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2, stderr:\n%s", code, stderr, want)
	}
	code, stdout, stderr := runMain("", "--strict", a, b)
	want = "evimport: " + a + ":3: unexpected end of input (truncated line?)\n"
	if code != 2 || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing written, stderr:\n%s", code, stdout, stderr, want)
	}
}

// A Codex rollout whose session_meta is not its first line, and a Gemini
// CLI chat whose first line is not the one with its sessionId, are still
// tied to the files they belong with (a spawned agent's rollout to its
// parent's, a subagent's chat to its parent's): the scan, which reads a
// file's first lines for its format, reads on for what ties it.
func TestScanReadsOnForWhatTiesAFile(t *testing.T) {
	for _, head := range []int{scanHead, 200} {
		// 200 bytes: a head of a line or so, which has the swapped
		// files' format but not what ties them
		defer func(was int) { scanHead = was }(scanHead)
		scanHead = head
		scanReadsOn(t)
	}
}

func scanReadsOn(t *testing.T) {
	for _, script := range []string{"codex-agents.txtar", "gemini-agents.txtar"} {
		a, err := txtar.ParseFile(filepath.Join("testdata", script))
		if err != nil {
			t.Fatal(err)
		}
		files, swapped := map[string]string{}, map[string]string{}
		for _, f := range a.Files {
			if !strings.HasPrefix(f.Name, "home/") || !strings.HasSuffix(f.Name, ".jsonl") {
				continue
			}
			files[f.Name] = string(f.Data)
			lines := strings.SplitAfter(string(f.Data), "\n")
			lines[0], lines[1] = lines[1], lines[0]
			swapped[f.Name] = strings.Join(lines, "")
		}
		_, want, _ := runMain("", filepath.Join(writeFiles(t, files), "home"))
		if strings.Count(want, `"kind":"agent_spawned"`) == 0 {
			t.Fatalf("%s: no agent joins its parent:\n%s", script, want)
		}
		// the lines swapped may change the events' order, not the
		// sessions or the agents in them
		code, got, stderr := runMain("", filepath.Join(writeFiles(t, swapped), "home"))
		for _, what := range []string{`"kind":"agent_spawned"`, `"seq":1,`} {
			if code != 0 || stderr != "" || strings.Count(got, what) != strings.Count(want, what) {
				t.Errorf("%s with each file's first two lines swapped: exit %d, stderr %q, %d of %s, want %d:\n%s",
					script, code, stderr, strings.Count(got, what), what, strings.Count(want, what), got)
			}
		}
	}
}

// A Claude Code log that an agent writes while evimport reads it may get
// a line of another session between the scan and the conversion, in the
// second round too (after a first round found a session the scan had
// not): what the second round converts is written then, not an error.
func TestLogWrittenWhileScanned(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.jsonl": claudeTestLine(`"sessionId":"`+reviewSession+`"`, "user", "u1", "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"list the tests"}`),
	})
	file := filepath.Join(dir, "a.jsonl")
	rounds := 0
	scanned = func() {
		rounds++
		// a session's line the scan has not seen
		line := claudeTestLine(`"sessionId":"0000000`+strconv.Itoa(rounds)+`-0000-4000-8000-000000000000"`, "user", "n"+strconv.Itoa(rounds),
			"2026-03-02T09:10:00.000Z", `"message":{"role":"user","content":"round `+strconv.Itoa(rounds)+`"}`)
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line)
		f.Close()
	}
	defer func() { scanned = func() {} }()
	code, stdout, stderr := runMain("", file)
	if code != 0 || stderr != "" || rounds != 2 {
		t.Fatalf("exit %d after %d rounds, stderr:\n%s", code, rounds, stderr)
	}
	for _, want := range []string{`"text":"list the tests"`, `"text":"round 1"`, `"text":"round 2"`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no event with %s in:\n%s", want, stdout)
		}
	}
}

// A Gemini CLI session document written on one line is read as the
// document by --follow too, which reads a file's lines itself: whatever
// the file's name, its settled events are those of the same document
// pretty-printed.
func TestFollowReadsAOneLineDocument(t *testing.T) {
	const doc = `{"sessionId":"5e1f0a2b-9c3d-4e7f-8a6b-0d1c2e3f4a5b","projectHash":"c0ffee","messages":[` +
		`{"id":"u1","timestamp":"2026-03-02T08:00:00.000Z","type":"user","content":"name the release tag"},` +
		`{"id":"m1","timestamp":"2026-03-02T08:00:04.000Z","type":"gemini","content":"v1.4.0","model":"gemini-2.5-flash","tokens":{"input":900,"output":5,"total":905}},` +
		`{"id":"u2","timestamp":"2026-03-02T08:01:00.000Z","type":"user","content":"and the next?"}]}`
	dir := writeFiles(t, map[string]string{
		"pretty/chats/session-a.json":   strings.ReplaceAll(doc, `,{"id"`, ",\n  {\"id\"") + "\n",
		"compact/chats/session-a.jsonl": doc + "\n",
	})
	defer func(done func() bool) { followDone = done }(followDone)
	followDone = func() bool { return true }
	follow := func(name string) string {
		t.Helper()
		code, stdout, stderr := runMain("", "--follow", filepath.Join(dir, name))
		if code != 0 || stderr != "" {
			t.Fatalf("evimport --follow %s: exit %d, stderr %q", name, code, stderr)
		}
		return stdout
	}
	pretty := follow("pretty/chats/session-a.json")
	if !strings.Contains(pretty, `"kind":"model_result"`) {
		t.Fatalf("the pretty document's events under --follow:\n%s", pretty)
	}
	if got := follow("compact/chats/session-a.jsonl"); got != pretty {
		t.Errorf("the document on one line under --follow:\n%s\nwant:\n%s", got, pretty)
	}
}
