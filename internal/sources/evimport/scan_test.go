package evimport

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/shell/cli"
)

// The files of one Claude Code session are converted together however
// its lines spell the sessionId key: the scan that groups the files
// before they are converted reads keys as the conversion does, escapes
// and all. Two files apart would make two halves of the session, each
// numbered from seq 1.
func TestScanGroupsTheSpellingsOfSessionID(t *testing.T) {
	const session = "0c5e1d2a-7f3b-4e8a-9c61-5d2f8b7a4e10"
	line := func(key, typ, uuid, ts, body string) string {
		return `{"parentUuid":null,"isSidechain":false,"cwd":"/home/ana/src/shop",` + key + `:"` + session +
			`","version":"2.1.40","type":"` + typ + `","uuid":"` + uuid + `","timestamp":"` + ts + `",` + body + "}\n"
	}
	convert := func(key string) string {
		home := t.TempDir()
		first := line(`"sessionId"`, "user", "u1", "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"list the tests"}`) +
			line(`"sessionId"`, "assistant", "a1", "2026-03-02T09:00:02.000Z", `"requestId":"req_1","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_1","role":"assistant","content":[{"type":"text","text":"There are three."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":9}}`)
		// the session resumed in another project's folder: its lines
		// carry the key as another writer may spell it
		second := line(key, "user", "u2", "2026-03-02T09:05:00.000Z", `"message":{"role":"user","content":"and which fail?"}`) +
			line(key, "assistant", "a2", "2026-03-02T09:05:03.000Z", `"requestId":"req_2","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_2","role":"assistant","content":[{"type":"text","text":"None."}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2}}`)
		// a bad line, to be reported once however many times the files
		// are converted
		first += "{\"type\":\"user\"\n"
		for path, data := range map[string]string{"a/" + session + ".jsonl": first, "b/resumed.jsonl": second} {
			p := filepath.Join(home, filepath.FromSlash(path))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(data), 0o644)
		}
		var stdout, stderr strings.Builder
		code := Main([]string{"--from", "claude", home}, cli.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
		if code != 2 || strings.Count(stderr.String(), ".jsonl:3: unexpected end of input") != 1 || strings.Count(stderr.String(), "\n") != 1 {
			t.Fatalf("exit %d, want 2 and the bad line reported once:\n%s", code, stderr.String())
		}
		return stdout.String()
	}
	plain := convert(`"sessionId"`)
	if strings.Count(plain, `"kind":"user_message"`) != 2 || strings.Count(plain, `"seq":1,`) != 1 {
		t.Fatalf("the plain session is not one session of two prompts:\n%s", plain)
	}
	for _, key := range []string{`"session\u0049d"`, `"\u0073essionId"`,
		// two keys: the last is the line's sessionId, as encoding/json reads it
		`"sessionId":"ffffffff-0000-4000-8000-000000000000","session\u0049d"`} {
		if got := convert(key); got != plain {
			t.Errorf("with the key spelled %s:\n%s\nwant\n%s", key, got, plain)
		}
	}
}

// A tool's output copied as the log holds it is the output decoded and
// quoted again, whatever the content: a string, a list of blocks (text
// or not, duplicated members, texts of other types), or anything else.
func FuzzQuotedOutput(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"tab\tquote\" back\\ é"`, `"\u00e9"`, `"\u001b[0m"`, `"\/"`, `""`, `null`, `5`,
		`[{"type":"text","text":"one"}]`, `[{"type":"text","text":"one"},{"type":"text","text":"two"}]`,
		`[{"type":"image","source":{}},{"type":"text","text":"after"}]`, `[{"type":"text","text":""},{"type":"text","text":"x"}]`,
		`[{"type":"text","text":"a","text":"b"}]`, `[{"type":"text","type":"x","text":"a"}]`, `[{"type":5,"text":"a"}]`,
		`[{"type":"text","text":5}]`, `[{"type":"text","text":null}]`, `[{"type":"t\u0065xt","text":"k"}]`, `[{"t\u0079pe":"text","text":"k"}]`,
		`[1,"s",{"text":"no type"}]`, `[]`, `{"type":"text","text":"object"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(s)
		if !json.Valid(raw) {
			return
		}
		q := quotedOutput(nil, raw, false)
		if q == nil {
			return
		}
		if want := jsontext.AppendString(nil, contentText(nil, raw)); string(q) != string(want) {
			t.Fatalf("%s: copied as %s, but its text is %s", s, q, want)
		}
	})
}

// Payloads made in a worker's arena keep their bytes until it is reset,
// and one begun while another is open is made apart, whole.
func TestArenaObjects(t *testing.T) {
	var a arena
	outer := a.object(10).str("text", "outer")
	inner := a.object(10).num("step", 1).done()
	first := outer.done()
	second := a.object(0).boolean("ok", true).done()
	if string(first) != `{"text":"outer"}` || string(inner) != `{"step":1}` || string(second) != `{"ok":true}` {
		t.Fatalf("made %s, %s, %s", first, inner, second)
	}
	if &second[0] != &a.cur[len(first)] {
		t.Error("the object made after the first is not next to it in the chunk")
	}
	big := a.object(1<<20).str("output", strings.Repeat("x", 1<<20)).done() // a chunk of its own
	if len(big) != 1<<20+13 || string(first) != `{"text":"outer"}` {
		t.Fatalf("a large payload spoilt the others: %d bytes, first %s", len(big), first)
	}
	a.reset()
	again := a.object(0).str("a", "b").done()
	if string(again) != `{"a":"b"}` || len(a.full) != 0 {
		t.Fatalf("after reset: %s, %d chunks in use", again, len(a.full))
	}
}

// An output copied as Codex recorded it (codexQuoted) says what decoding
// it says (codexOutput): the same success, the same text.
func FuzzCodexQuoted(f *testing.F) {
	for _, s := range []string{
		`"Exit code: 0\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok"`,
		`"Process exited with code 2\nfail"`, `"x\nProcess exited with code -1"`, `"a Process exited with code 3"`,
		`"x\\nProcess exited with code 4"`, `"x\\\nProcess exited with code 5"`, `"Process exited with code -\nProcess exited with code 7"`,
		`"Process exited with code 99999999999999999999"`, `"  {\"output\":\"o\"}"`, `"\u001b[0m done"`, `"é\tü"`, `""`, `null`, `{"output":"x"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(s)
		if !json.Valid(raw) {
			return
		}
		ok, q := codexQuoted(raw, false)
		if q == nil {
			return
		}
		wantOK, text := codexOutput(raw)
		if ok != wantOK || string(q) != string(jsontext.AppendString(nil, text)) {
			t.Fatalf("%s: copied as %s (ok %v), decoded %q (ok %v)", s, q, ok, text, wantOK)
		}
	})
}

// A Claude Code file is scanned by its head and tail for its sessionIds:
// one found only in between (a session whose lines another session's
// file holds in its middle) makes the conversion scan everything again,
// whole, and the output is that of a scan of every line.
func TestScanHeadAndTailOfClaudeFiles(t *testing.T) {
	const a, b = "1a000000-0000-4000-8000-000000000000", "2b000000-0000-4000-8000-000000000000"
	line := func(session, uuid, ts, text string) string {
		return claudeTestLine(`"sessionId":"`+session+`"`, "user", uuid, ts, `"message":{"role":"user","content":"`+text+`"}`)
	}
	var first strings.Builder
	for i := range 20 {
		ts := fmt.Sprintf("2026-03-02T09:%02d:00.000Z", i)
		if i == 10 {
			first.WriteString(line(b, "b1", ts, "the other session's prompt, in the middle"))
			continue
		}
		first.WriteString(line(a, fmt.Sprintf("a%d", i), ts, fmt.Sprintf("prompt %d", i)))
	}
	dir := writeFiles(t, map[string]string{
		"p/" + a + ".jsonl": first.String(),
		"q/" + b + ".jsonl": line(b, "b2", "2026-03-02T10:00:00.000Z", "the other session's own prompt"),
	})
	rounds := 0
	scanned = func() { rounds++ }
	defer func() { scanned = func() {} }()
	defer func(was int) { scanHead = was }(scanHead)
	_, whole, _ := runMain("", dir)
	if rounds != 1 || strings.Count(whole, `"seq":1,`) != 2 {
		t.Fatalf("scanned whole: %d rounds, want 1, and two sessions:\n%s", rounds, whole)
	}
	// a head and a tail of about two lines each
	scanHead, rounds = 600, 0
	code, got, stderr := runMain("", dir)
	if code != 0 || stderr != "" || rounds != 2 || got != whole {
		t.Fatalf("scanned by head and tail: exit %d, stderr %q, %d rounds (want 2), output\n%s\nwant\n%s", code, stderr, rounds, got, whole)
	}
}

// A Claude Code file is scanned by scanHead's head and tail, never by
// the quarter of it that settles another agent's file: a resumed
// session's file starts with a copy of the lines of the sessions it goes
// on from, which may go on beyond a short head. Here the copy holds two
// sessions' lines, and a quarter of scanHead only the first's: the head
// finds both, and one round of conversion is enough, with the output of
// a scan of every line.
func TestScanShortHeadOfAResumedSession(t *testing.T) {
	const a, b, s = "1a000000-0000-4000-8000-000000000000", "2b000000-0000-4000-8000-000000000000", "3c000000-0000-4000-8000-000000000000"
	line := func(session, uuid string, minute int, text string) string {
		return claudeTestLine(`"sessionId":"`+session+`"`, "user", uuid, fmt.Sprintf("2026-03-02T09:%02d:00.000Z", minute), `"message":{"role":"user","content":"`+text+`"}`)
	}
	copied := line(a, "a1", 0, "a's first prompt") + line(a, "a2", 1, "a's second prompt")
	var resumed strings.Builder
	resumed.WriteString(copied + line(b, "b1", 2, "b's first prompt") + line(b, "b2", 3, "b's second prompt"))
	for i := range 16 {
		resumed.WriteString(line(s, fmt.Sprintf("s%d", i), 10+i, fmt.Sprintf("prompt %d", i)))
	}
	dir := writeFiles(t, map[string]string{
		"a.jsonl": copied,
		"b.jsonl": line(b, "b1", 2, "b's first prompt") + line(b, "b2", 3, "b's second prompt"),
		"s.jsonl": resumed.String(),
	})
	rounds := 0
	scanned = func() { rounds++ }
	defer func() { scanned = func() {} }()
	defer func(was int) { scanHead = was }(scanHead)
	_, whole, _ := runMain("", dir)
	// the short head and tail: a's two lines, and a few of s's
	scanHead, rounds = 4*(len(copied)+10), 0
	code, got, stderr := runMain("", dir)
	if code != 0 || stderr != "" || rounds != 1 || got != whole {
		t.Fatalf("scanned by a short head: exit %d, stderr %q, %d rounds (want 1), output\n%s\nwant\n%s", code, stderr, rounds, got, whole)
	}
}

// A Claude Code file's sessionIds are those of its whole lines within
// scanHead of its start and of its end, as the light scan has always
// read them, however short a head settles another agent's file: which
// sessions it names decides which files are converted together, and so
// the order in which their bad lines are said. c.jsonl names a's session
// on a bad line in its middle, 24 KiB in, which no good line names (so that the
// conversion has no reason to scan again): a and c are one group, taken
// before b's, as when c is read whole.
func TestScanClaudeFileByTheWholeHead(t *testing.T) {
	const s1, s2, s3 = "1a000000-0000-4000-8000-000000000000", "2b000000-0000-4000-8000-000000000000", "3c000000-0000-4000-8000-000000000000"
	line := func(session, uuid, text string) string {
		return claudeTestLine(`"sessionId":"`+session+`"`, "user", uuid, "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"`+text+`"}`)
	}
	badOf := func(session string) string {
		return `{"type":"user","sessionId":"` + session + `","timestamp":5}` + "\n"
	}
	var c strings.Builder
	placed := false // the bad line: beyond a quarter of scanHead from either end
	for i := 0; c.Len() < 48<<10; i++ {
		if !placed && c.Len() >= 24<<10 {
			placed = true
			c.WriteString(badOf(s1))
		}
		c.WriteString(line(s3, fmt.Sprintf("s3-%d", i), fmt.Sprintf("prompt %d of c's own session, long enough to fill it", i)))
	}
	dir := writeFiles(t, map[string]string{
		"a.jsonl": line(s1, "s1-a", "a's prompt") + badOf(s1),
		"b.jsonl": line(s2, "s2-b", "b's prompt") + badOf(s2),
		"c.jsonl": c.String(),
	})
	if c.Len() > scanHead {
		t.Fatalf("c is %d bytes, more than scanHead", c.Len())
	}
	defer func(was int) { scanHead = was }(scanHead)
	code, got, stderr := runMain("", dir)
	scanHead = 1 << 20 // every file read whole
	wantCode, want, wantErr := runMain("", dir)
	if code != wantCode || got != want || stderr != wantErr {
		t.Errorf("by head and tail: exit %d, stderr\n%s\nwant exit %d, stderr\n%s", code, stderr, wantCode, wantErr)
	}
}

// What is wrong with the files is said in the order of the groups an
// exact scan makes, whether the light scan found every sessionId or a
// round is converted again because it did not: a.jsonl and c.jsonl are
// one group (c's middle line is a's session), taken before b.jsonl's, so
// c's bad line is said before b's, and --strict stops at c's, not at the
// one b's group of the light scan's groups would have said first.
func TestRescanSaysWhatIsWrongInOrder(t *testing.T) {
	const s1, s2, s3 = "1a000000-0000-4000-8000-000000000000", "2b000000-0000-4000-8000-000000000000", "3c000000-0000-4000-8000-000000000000"
	line := func(session, uuid, text string) string {
		return claudeTestLine(`"sessionId":"`+session+`"`, "user", uuid, "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"`+text+`"}`)
	}
	const bad = "{\"type\":\"user\"\n"
	var c strings.Builder
	for i := range 20 {
		if i == 10 {
			c.WriteString(line(s2, "s2-middle", "a's session, in c's middle") + bad)
			continue
		}
		c.WriteString(line(s1, fmt.Sprintf("s1-%d", i), fmt.Sprintf("prompt %d", i)))
	}
	for _, args := range [][]string{nil, {"--strict"}} {
		aBad := bad
		if args != nil {
			aBad = "" // --strict: the first bad line is c's, after a's group
		}
		dir := writeFiles(t, map[string]string{
			"a.jsonl": line(s2, "s2-a", "a's own prompt") + aBad,
			"b.jsonl": line(s3, "s3-b", "b's prompt") + bad,
			"c.jsonl": c.String(),
		})
		args = append(args, filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl"))
		func() {
			defer func(was int) { scanHead = was }(scanHead)
			wantCode, want, wantErr := runMain("", args...) // read whole: every sessionId found
			scanHead = 600                                  // a head and a tail of about two lines each
			code, got, stderr := runMain("", args...)
			if code != wantCode || got != want || stderr != wantErr {
				t.Errorf("%q: by head and tail: exit %d, stderr\n%s\nwant exit %d, stderr\n%s", args, code, stderr, wantCode, wantErr)
			}
		}()
	}
}

// The bad lines of the groups taken before the spool fails (no room for
// its file) are said with its error, as they were before they were held
// for the end of a round: the first file's bad line, then why the run
// ended.
func TestSpoolErrorSaysTheBadLinesBefore(t *testing.T) {
	const s1, s2 = "1a000000-0000-4000-8000-000000000000", "2b000000-0000-4000-8000-000000000000"
	line := func(session, uuid, text string) string {
		return claudeTestLine(`"sessionId":"`+session+`"`, "user", uuid, "2026-03-02T09:00:00.000Z", `"message":{"role":"user","content":"`+text+`"}`)
	}
	dir := writeFiles(t, map[string]string{
		"a.jsonl": line(s1, "a1", "first") + "{\"type\":\"user\"\n" + line(s1, "a2", "second"),
		"b.jsonl": line(s2, "b1", "second session"),
	})
	defer func(was int64) { spoolInMemory = was }(spoolInMemory)
	spoolInMemory = 10 // b's events go to the spool's file
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	code, _, stderr := runMain("", filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"))
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code == 0 || len(lines) != 2 || !strings.Contains(lines[0], "a.jsonl:2: unexpected end of input") || !strings.Contains(lines[1], "missing") {
		t.Fatalf("exit %d, stderr:\n%s\nwant a.jsonl's bad line, then the spool's error", code, stderr)
	}
}
