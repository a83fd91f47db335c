package evimport_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/testio"
	"github.com/rogpeppe/go-internal/txtar"
)

// sessionLines are the lines of a fixture's session file.
func sessionLines(t *testing.T, script, prefix string) []string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if strings.HasPrefix(f.Name, prefix) {
			lines := strings.SplitAfter(string(f.Data), "\n")
			return lines[:len(lines)-1] // each with its "\n"
		}
	}
	t.Fatalf("%s: no %s", script, prefix)
	return nil
}

// evimport -F on a real process: a session file written a few lines at a
// time, a half-written line, a new session file in the folder, the file
// truncated and written again, a file rotated. Each event comes once, when
// it is settled.
func TestFollow(t *testing.T) {
	bin, err := exec.LookPath("evimport") // the test binary, set up by testscript
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shop := sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/")
	notes := sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-notes/")
	cmd := exec.Command(bin, "-F", dir)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	// expect reads events until there are n, and checks that no more come
	// for a while.
	expect := func(n int, what string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for len(got) < n {
			select {
			case l := <-lines:
				got = append(got, l)
			case <-deadline:
				t.Fatalf("%s: %d events, want %d:\n%s\nstderr: %s", what, len(got), n, strings.Join(got, "\n"), stderr.String())
			}
		}
		select {
		case l := <-lines:
			t.Fatalf("%s: more than %d events: %s", what, n, l)
		case <-time.After(700 * time.Millisecond):
		}
	}
	file := filepath.Join(dir, "5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90.jsonl")
	write := func(s string, flag int) {
		f, err := os.OpenFile(file, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	write(strings.Join(shop[:3], ""), os.O_TRUNC)
	// the prompt and the call: the response's usage waits for its last line
	expect(3, "the first lines")
	write(strings.Join(shop[3:5], ""), os.O_APPEND)
	expect(5, "the response's next lines")
	write(shop[5][:100], os.O_APPEND)
	expect(5, "a half-written line")
	write(shop[5][100:], os.O_APPEND)
	expect(7, "the line's end")
	write(strings.Join(shop[6:], ""), os.O_APPEND)
	expect(17, "the rest")
	os.WriteFile(filepath.Join(dir, "7d3e9b10-55aa-4f2e-8c1d-90b7e6a3f214.jsonl"), []byte(strings.Join(notes, "")), 0o644)
	expect(22, "a new session file")
	write(strings.Join(shop, ""), os.O_TRUNC)
	expect(22, "the file truncated and written again")
	// rotated, as tail -F follows a log: the file moved away (its new
	// name no session file's) and a new one made under its name, the
	// session with a prompt more; its events come once, the new ones only
	notesFile := filepath.Join(dir, "7d3e9b10-55aa-4f2e-8c1d-90b7e6a3f214.jsonl")
	if err := os.Rename(notesFile, notesFile+".1"); err != nil {
		t.Fatal(err)
	}
	more := strings.NewReplacer("b2000000-0000-4000-8000-000000000001", "b2000000-0000-4000-8000-000000000009",
		`"parentUuid":null`, `"parentUuid":"b2000000-0000-4000-8000-000000000003"`,
		"16:40:00.500Z", "16:41:00.500Z", "summarise the open issues in one line each", "and the closed ones?").Replace(notes[0])
	os.WriteFile(notesFile, []byte(strings.Join(notes, "")+more), 0o644)
	expect(25, "the file rotated")
	if !strings.Contains(strings.Join(got[22:], "\n"), `"text":"and the closed ones?"`) {
		t.Errorf("the rotated file's prompt is not among its events:\n%s", strings.Join(got[22:], "\n"))
	}

	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
		t.Errorf("stopped by SIGTERM: %v, want exit 143", err)
	}
	// Each event once: the model results have their final usage, and each
	// session's seq counts from 1 without a gap.
	seqs := map[string]int{}
	for _, l := range got {
		var e struct {
			Seq     int
			Kind    string
			Session string
			Payload json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		var usage struct{ Output int }
		json.Unmarshal(e.Payload, &usage)
		seqs[e.Session]++
		if e.Seq != seqs[e.Session] {
			t.Errorf("seq %d after %d: %s", e.Seq, seqs[e.Session]-1, l)
		}
		if e.Kind == "model_result" && usage.Output == 2 {
			t.Errorf("a partial usage written: %s", l)
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// evimport -F on a Gemini CLI chats folder (a copy: not named chats): a
// subagent's chat appearing in its parent's folder joins the parent's
// session (its events under the session's id, seq going on from the
// parent's), not a session of its own, and its agent_finished is written:
// the parent records the call that ran it once it is over.
func TestFollowGeminiAgents(t *testing.T) {
	const chats = "home/.gemini/tmp/shop/chats/"
	const parent = "session-2026-03-12T09-00-7c1e2a90.jsonl"
	const sub = "7c1e2a90-41d3-4b8e-9a6f-2c5d8e0b3f17/a5b6c7d8-2e4f-4a1b-8c3d-9e0f1a2b3c4d.jsonl"
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, filepath.Dir(sub)), 0o755)
	main := sessionLines(t, "gemini-agents.txtar", chats+parent)
	os.WriteFile(filepath.Join(dir, parent), []byte(strings.Join(main, "")), 0o644)
	f := startFollow(t, dir)
	wait, has := f.wait, f.has
	wait("the parent's events", has(`"kind":"tool_result"`))
	os.WriteFile(filepath.Join(dir, sub), []byte(strings.Join(sessionLines(t, "gemini-agents.txtar", chats+sub), "")), 0o644)
	wait("the subagent's chat", has(`"kind":"agent_finished"`))
	got := f.got
	for _, l := range got {
		if strings.Contains(l, `"agent_id":"codebase_investigator:`) && !strings.Contains(l, `"session":"7c1e2a90-41d3-4b8e-9a6f-2c5d8e0b3f17"`) {
			t.Errorf("the subagent's event is not in its parent's session: %s", l)
		}
		if strings.Contains(l, `"session":"a5b6c7d8-`) {
			t.Errorf("the subagent's chat made a session of its own: %s", l)
		}
	}
	seqs := map[string]int{}
	for _, l := range got {
		var e struct {
			Seq     int
			Session string
		}
		json.Unmarshal([]byte(l), &e)
		seqs[e.Session]++
		if e.Seq != seqs[e.Session] {
			t.Errorf("seq %d after %d: %s", e.Seq, seqs[e.Session]-1, l)
		}
	}
}

// followed is an evimport -F process and the events it wrote so far.
type followed struct {
	t      *testing.T
	lines  chan string
	got    []string
	stderr testio.SyncBuffer
}

// startFollow starts evimport -F on paths; it is killed when the test ends.
func startFollow(t *testing.T, paths ...string) *followed {
	t.Helper()
	bin, err := exec.LookPath("evimport") // the test binary, set up by testscript
	if err != nil {
		t.Fatal(err)
	}
	f := &followed{t: t, lines: make(chan string, 100)}
	cmd := exec.Command(bin, append([]string{"-F"}, paths...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &f.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
		close(f.lines)
	}()
	return f
}

// wait reads events until done holds, for ten seconds at most.
func (f *followed) wait(what string, done func() bool) {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	for !done() {
		select {
		case l := <-f.lines:
			f.got = append(f.got, l)
		case <-deadline:
			f.t.Fatalf("%s: %s\nstderr: %s", what, strings.Join(f.got, "\n"), f.stderr.String())
		}
	}
}

// has is a condition for wait: an event written holds s.
func (f *followed) has(s string) func() bool {
	return func() bool { return strings.Contains(strings.Join(f.got, "\n"), s) }
}

// evimport -F on files named .json that hold lines, not one document:
// Claude Code lines under such a name, and a Gemini CLI document written
// on one line that lines are then appended to, are followed as lines
// (before, neither gave an event: the whole file was awaited as a
// document that never came).
func TestFollowJSONFiles(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "copy.json")
	os.WriteFile(claude, []byte(strings.Join(sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/"), "")), 0o644)
	gemini := filepath.Join(dir, "session-2026-03-01T07-30-2c6f0e8b.json")
	doc := sessionLines(t, "gemini.txtar", "compact/session-2026-03-01T07-30-2c6f0e8b.json")
	os.WriteFile(gemini, []byte(strings.Join(doc, "")), 0o644)
	f := startFollow(t, claude, gemini)
	f.wait("the Claude Code lines", f.has(`"source":"claude"`))
	f.wait("the Gemini CLI document", f.has(`"text":"what does make dist do?"`))
	more, err := os.OpenFile(gemini, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	more.WriteString(`{"id":"l-u2","timestamp":"2026-03-01T07:31:00.000Z","type":"user","content":[{"text":"and the checksums?"}]}` + "\n")
	more.WriteString(`{"id":"l-m2","timestamp":"2026-03-01T07:31:04.000Z","type":"gemini","content":"dist/SHA256SUMS.","model":"gemini-2.5-flash"}` + "\n")
	more.Close()
	f.wait("the lines after the document", f.has(`"text":"and the checksums?"`))
	n := 0
	for _, l := range f.got {
		if strings.Contains(l, `"text":"what does make dist do?"`) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the document's prompt written %d times, want once:\n%s", n, strings.Join(f.got, "\n"))
	}
	if e := f.stderr.String(); e != "" {
		t.Errorf("stderr: %s", e)
	}
}

// evimport -F reads a .json file of lines as a pass reads it: one that
// holds only its first line when first looked at (it was taken for a
// whole document in no known format and skipped for good), one whose
// first line is blank or starts with a BOM (awaited as a document that
// never came); and a BOM starting a .jsonl file is no bad first line.
func TestFollowJSONLines(t *testing.T) {
	shop := sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/")
	notes := sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-notes/")
	const ofShop = `"session":"5f1c2a7e-3b9d-4c61-9e0a-2d8f7b4c1a90"`
	t.Run("first line alone", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "shop.json")
		os.WriteFile(file, []byte(shop[0]), 0o644)
		// written with it, seen in the same look
		os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte(strings.Join(notes, "")), 0o644)
		f := startFollow(t, file, filepath.Join(dir, "notes.jsonl"))
		f.wait("the other file's events", f.has(`"session":"7d3e9b10-55aa-4f2e-8c1d-90b7e6a3f214"`))
		more, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		more.WriteString(strings.Join(shop[1:], ""))
		more.Close()
		f.wait("the lines after the first", f.has(ofShop))
		if e := f.stderr.String(); e != "" {
			t.Errorf("stderr: %s", e)
		}
	})
	for name, data := range map[string]string{
		"blank.json": "\n" + strings.Join(shop, ""),
		"bom.json":   "\ufeff" + strings.Join(shop, ""),
		"bom.jsonl":  "\ufeff" + strings.Join(shop, ""),
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), name)
			os.WriteFile(file, []byte(data), 0o644)
			f := startFollow(t, file)
			f.wait("the session's events", f.has(`"kind":"model_result"`))
			if e := f.stderr.String(); e != "" {
				t.Errorf("stderr: %s", e)
			}
		})
	}
	// a whole value that is no object is a bad line, as a pass says,
	// not a document awaited forever
	t.Run("array.json", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "array.json")
		os.WriteFile(file, []byte("[\n]\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "shop.jsonl"), []byte(strings.Join(shop, "")), 0o644)
		f := startFollow(t, file, filepath.Join(dir, "shop.jsonl"))
		f.wait("the other file's events", f.has(ofShop))
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(f.stderr.String(), "array.json:1:") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if e := f.stderr.String(); !strings.Contains(e, "array.json:1:") {
			t.Errorf("stderr: %q, want array.json's first line said bad", e)
		}
	})
}

// evimport -F reads a Gemini CLI document that starts with a BOM, as a
// pass does, where it waited for a whole document forever.
func TestFollowDocumentBOM(t *testing.T) {
	doc := sessionLines(t, "gemini.txtar", "home/.gemini/tmp/shop/chats/session-2026-03-01T07-30-2c6f0e8b.json")
	file := filepath.Join(t.TempDir(), "session-2026-03-01T07-30-2c6f0e8b.json")
	os.WriteFile(file, []byte("\ufeff"+strings.Join(doc, "")), 0o644)
	f := startFollow(t, file)
	f.wait("the document's prompt", f.has(`"text":"what does make dist do?"`))
	if e := f.stderr.String(); e != "" {
		t.Errorf("stderr: %s", e)
	}
}

// evimport -F on a Gemini CLI session resumed from the older format, its
// .json found after its .jsonl (a copy put back): the two are one session,
// read together, so the prompt the .jsonl rewound, which the .json still
// holds, is not written, nor any event twice.
func TestFollowGeminiResumed(t *testing.T) {
	const session = "rewound/chats/session-2026-04-03T10-00-8b1f0a2e"
	dir := t.TempDir()
	write := func(name, prefix string) {
		data := strings.Join(sessionLines(t, "gemini-resumed.txtar", prefix), "")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("session-2026-04-03T10-00-8b1f0a2e.jsonl", session+".jsonl")
	f := startFollow(t, dir)
	f.wait("the .jsonl's events", f.has(`"text":"and in production?"`))
	write("session-2026-04-03T10-00-8b1f0a2e.json", session+".json")
	// another session, found in the same look as the .json or after it,
	// whose prompt is later than the one rewound: written after it
	write("session-2026-04-02T08-15-4e2d9c71.jsonl", "home/.gemini/tmp/web/chats/session-2026-04-02T08-15-4e2d9c71.jsonl")
	f.wait("the other session's events", f.has(`"text":"done; is it cached now?"`))
	for _, l := range f.got {
		if strings.Contains(l, `"text":"and in staging?"`) {
			t.Errorf("the rewound prompt was written: %s", l)
		}
	}
	if n := strings.Count(strings.Join(f.got, "\n"), `"text":"which port does it listen on?"`); n != 1 {
		t.Errorf("the first prompt written %d times, want once:\n%s", n, strings.Join(f.got, "\n"))
	}
	if e := f.stderr.String(); e != "" {
		t.Errorf("stderr: %s", e)
	}
}

// evimport -F --from on a file of another agent's says so, once, as a
// pass does, and writes none of its events; the named agent's file is
// followed (before, the other agent's file was read as the one named:
// records of unknown types, and no word of the mistake).
func TestFollowFromOther(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude.jsonl")
	os.WriteFile(claude, []byte(strings.Join(sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/"), "")), 0o644)
	codex := filepath.Join(dir, "rollout.jsonl")
	os.WriteFile(codex, []byte(strings.Join(sessionLines(t, "cli.txtar", "home/.codex/sessions/"), "")), 0o644)
	f := startFollow(t, "--from", "codex", claude, codex)
	f.wait("the rollout's events", f.has(`"source":"codex"`))
	want := "evimport: " + claude + ": --from codex, but this looks like a Claude Code session; skipped\n"
	for deadline := time.Now().Add(10 * time.Second); f.stderr.String() != want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if e := f.stderr.String(); e != want {
		t.Errorf("stderr: %q, want %q", e, want)
	}
	if strings.Contains(strings.Join(f.got, "\n"), `"session":"5f1c2a7e`) {
		t.Errorf("the Claude Code session was written:\n%s", strings.Join(f.got, "\n"))
	}
}

// evimport -F on a folder holding a compressed session (an archived log,
// .jsonl.gz): it is read once, whole, as a pass reads it, where it was
// never read at all and gave no event.
func TestFollowCompressed(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(strings.Join(sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/"), "")))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "5f1c2a7e.jsonl.gz"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f := startFollow(t, dir)
	f.wait("the compressed session's second prompt", f.has(`"payload":{"text":"make the test write it"}`))
}

// evimport -F says of a file in no known format what a pass says: one
// rule (noKnownFormat) decides for both, so envelope events are named as
// such, not as "not a session log" as the follow round once said.
func TestFollowNoKnownFormat(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "session.jsonl")
	os.WriteFile(claude, []byte(strings.Join(sessionLines(t, "claude.txtar", "home/.claude/projects/-home-ana-src-shop/"), "")), 0o644)
	events := filepath.Join(dir, "events.jsonl")
	os.WriteFile(events, []byte(`{"seq":1,"ts":"2026-03-01T07:30:00Z","run_id":"r1","agent_id":"","kind":"run_started","payload":{}}`+"\n"), 0o644)
	f := startFollow(t, claude, events)
	f.wait("the Claude Code lines", f.has(`"source":"claude"`))
	want := "evimport: " + events + ": in no known format (envelope events as evimport writes them, not a session log), skipped\n"
	deadline := time.Now().Add(10 * time.Second)
	for f.stderr.String() != want {
		if time.Now().After(deadline) {
			t.Fatalf("stderr: %q\nwant %q", f.stderr.String(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
