package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The agents run for real (issue 33) share how they are installed and
// how what they wrote is read back: claude_code_test.go, pi_agent_test.go
// and codex_test.go each install one npm package at a pinned version into
// the user's cache folder ($XDG_CACHE_HOME/evtools-agents/NAME-VERSION),
// once, and run it from there.

// npmAgent is an agent's npm package at a pinned version.
type npmAgent struct {
	name    string // the cache folder's prefix: claude-code, pi, codex
	title   string // for messages: Claude Code
	pkg     string // the npm package: @openai/codex
	version string
	bin     string // the program, under node_modules/.bin

	once   sync.Once
	tested string // the version run: version, or npm's newest (wanted)
	path   string
	err    error
}

// program returns the agent's program, installing it the first time;
// without node or npm, or when the install fails, the test is skipped
// with the reason, or fails in CI (piSkip).
func (a *npmAgent) program(t *testing.T) string {
	t.Helper()
	a.once.Do(func() {
		a.tested, a.err = a.wanted()
		if a.err == nil {
			a.path, a.err = a.install()
		}
	})
	if a.err != nil {
		piSkip(t, a.err.Error())
	}
	// make agents-latest prints this line: which version was run
	t.Logf("agent %s tested at %s (pinned %s)", a.title, a.tested, a.version)
	return a.path
}

// wanted is the version to run: the pinned one, or with
// EVTOOLS_AGENTS=latest (make agents-latest) the newest on npm, so that
// what a new release changed in its logs shows before users see it.
func (a *npmAgent) wanted() (string, error) {
	if os.Getenv("EVTOOLS_AGENTS") != "latest" {
		return a.version, nil
	}
	out, err := exec.Command("npm", "view", a.pkg, "version").Output()
	v := strings.TrimSpace(string(out))
	if err != nil || v == "" {
		return "", fmt.Errorf("EVTOOLS_AGENTS=latest: npm view %s version: %v %q", a.pkg, err, out)
	}
	return v, nil
}

// install finds or makes the cache folder: npm install into a folder of
// its own beside it, the program's --version checked, then renamed into
// place, so that a folder under the final name is always whole (a test
// killed mid-install leaves a fetch- folder, removed by the next).
func (a *npmAgent) install() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "evtools-agents", a.name+"-"+a.tested)
	bin := filepath.Join(dir, "node_modules", ".bin", a.bin)
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return bin, nil
	}
	for _, p := range []string{"node", "npm"} {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s is not installed, and %s %s is not in the cache yet (.ci/run installs nodejs and npm from Debian)", p, a.title, a.tested)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "fetch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	spec := a.pkg + "@" + a.tested
	// an agent's native program, where it has one, comes as an optional
	// dependency of the platform (Codex) or is put in place by a
	// postinstall (Claude Code)
	cmd := exec.Command("npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save", "--prefer-offline", spec)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %v: %s (offline? the test installs it once, then runs from the cache)", spec, err, strings.TrimSpace(string(out)))
	}
	// in a HOME of its own: Gemini CLI writes its ~/.gemini at once
	version := exec.Command(filepath.Join(tmp, "node_modules", ".bin", a.bin), "--version")
	version.Env = append(os.Environ(), "HOME="+tmp)
	out, err := version.CombinedOutput()
	if err != nil || !strings.Contains(string(out), a.tested) {
		return "", fmt.Errorf("%s --version after npm install %s: %v: %q", a.bin, spec, err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), out, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, e := os.Stat(filepath.Join(dir, "complete")); e != nil {
			return "", err
		}
		// another test process made it meanwhile
	}
	return bin, nil
}

// runAgent runs cmd, which must end within two minutes; its exit status
// is the caller's to judge.
func runAgent(t *testing.T, cmd *exec.Cmd) (stdout, stderr []byte, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: no end after 2 minutes; stderr %q", strings.Join(cmd.Args, " "), errb.String())
	}
	return out.Bytes(), errb.Bytes(), cmd.ProcessState.ExitCode()
}

// scratchHome makes a HOME with a work folder holding two files, and a
// tmp folder.
func scratchHome(t *testing.T) (home, work string) {
	t.Helper()
	home = t.TempDir()
	work = filepath.Join(home, "work")
	for _, d := range []string{work, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("a note\n"), 0o644)
	os.WriteFile(filepath.Join(work, "plan.md"), []byte("# plan\n"), 0o644)
	return home, work
}

// evimportEvents runs evimport on dir and returns its events; whatever
// it says on stderr (a record type it does not know, an unpriced model,
// a bad line) is drift of the agent's log, reported as such.
func evimportEvents(t *testing.T, a *npmAgent, home, dir string) []importedEvent {
	t.Helper()
	stdout, stderr, err := runEvimport(home, dir)
	for _, d := range a.evimportDrift(stderr, err) {
		a.drift(t, "%s", d)
	}
	var evs []importedEvent
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e importedEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(sc.Bytes(), &e.raw)
		evs = append(evs, e)
	}
	return evs
}

// runEvimport runs evimport on dir, with HOME home and none of the
// agents' folders of the environment.
func runEvimport(home, dir string) (stdout []byte, stderr string, err error) {
	cmd := exec.Command("evimport", dir)
	cmd.Env = append(agentless(os.Environ()), "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.Bytes(), errb.String(), err
}

// unknownType is evimport's line for each record type it does not know,
// after the count of them all: "evimport: claude foo (3 records):
// members id, payload.bar, timestamp" (or "no members").
var unknownType = regexp.MustCompile(`^evimport: \S+ (.+) \((\d+ records?)\): (members .*|no members)$`)

// evimportDrift is what evimport's stderr says changed in the agent's
// log, a line each: a record type it does not know, with the members
// of its records, so that a new release's new type shows its shape;
// any other line as it is; the count of the unknown types is left out,
// its types having a line each.
func (a *npmAgent) evimportDrift(stderr string, err error) []string {
	var drift []string
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		m := unknownType.FindStringSubmatch(l)
		switch {
		case l == "", strings.Contains(l, " of unknown types skipped: "), strings.Contains(l, " of an unknown type skipped: "):
		case m == nil:
			drift = append(drift, l)
		case strings.HasPrefix(m[1], "content block "):
			drift = append(drift, fmt.Sprintf("new content block type %q (%s): %s", strings.TrimPrefix(m[1], "content block "), m[2], m[3]))
		default:
			drift = append(drift, fmt.Sprintf("new record type %q (%s): %s", m[1], m[2], m[3]))
		}
	}
	if err != nil {
		drift = append(drift, "evimport: "+err.Error())
	}
	return drift
}

// drift reports what no longer holds of the agent's log, as a line
// naming the agent and the version run ("claude-code 2.1.400: ..."),
// which make agents-latest prints: what a new release changed.
func (a *npmAgent) drift(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Errorf("drift: %s %s: %s", a.name, a.tested, fmt.Sprintf(format, args...))
}

// usage is a model_result's token counts, under the server's names.
func (e importedEvent) usage() Usage {
	p := e.Payload
	var out int64
	json.Unmarshal(p.Output, &out)
	return Usage{Input: p.Input, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, CacheWrite1h: p.Write1h, Output: out, Reasoning: p.Reasoning}
}

// tokenDrift says which token counts evimport read of a call differ
// from those the server sent ("input 120, the script's 100"), "" when
// none does.
func tokenDrift(got, want Usage) string {
	var d []string
	for _, m := range []struct {
		name      string
		got, want int64
	}{
		{"input", got.Input, want.Input}, {"cache_read", got.CacheRead, want.CacheRead},
		{"cache_write", got.CacheWrite, want.CacheWrite}, {"cache_write_1h", got.CacheWrite1h, want.CacheWrite1h},
		{"output", got.Output, want.Output}, {"reasoning", got.Reasoning, want.Reasoning},
	} {
		if m.got != m.want {
			d = append(d, fmt.Sprintf("%s %d, the script's %d", m.name, m.got, m.want))
		}
	}
	return strings.Join(d, "; ")
}

// checkTokens reports, as drift, a call whose tokens are not the
// server's: call names it (its response id, or its place).
func (a *npmAgent) checkTokens(t *testing.T, call string, e importedEvent, want Usage) {
	t.Helper()
	if d := tokenDrift(e.usage(), want); d != "" {
		a.drift(t, "call %s: tokens %s", call, d)
	}
}

// kinds is the events of the kinds named.
func kinds(evs []importedEvent, names ...string) []importedEvent {
	var out []importedEvent
	for _, e := range evs {
		for _, n := range names {
			if e.Kind == n {
				out = append(out, e)
			}
		}
	}
	return out
}

// checkPrompts holds the events of an agent's harness to the three
// prompts every script plays: one session, a run per prompt in order,
// the runs ending as outcomes says (comma-separated).
func checkPrompts(t *testing.T, evs []importedEvent, outcomes string) {
	t.Helper()
	var prompts, ends []string
	for _, e := range evs {
		if e.Session != evs[0].Session {
			t.Errorf("an event of session %s", e.Session)
		}
		switch e.Kind {
		case "user_message":
			prompts = append(prompts, strings.TrimPrefix(e.RunID, e.Session)+" "+e.Payload.Text)
		case "run_finished":
			ends = append(ends, e.Payload.Outcome)
		}
	}
	want := []string{"/1 list the files here", "/2 which one is shorter?", "/3 and the longer?"}
	if strings.Join(prompts, "\n") != strings.Join(want, "\n") || strings.Join(ends, ",") != outcomes {
		t.Errorf("prompts:\n%s\nwant\n%s\noutcomes %v, want %s", strings.Join(prompts, "\n"), strings.Join(want, "\n"), ends, outcomes)
	}
}

// played is what the server exchanged, once every step of its script was
// played and no request came that the script did not expect.
func played(t *testing.T, s *modelServer) []Exchange {
	t.Helper()
	if left := s.Left(); left != 0 {
		t.Fatalf("%d steps of the script not played; exchanges: %+v", left, s.Exchanges())
	}
	exchanges := s.Exchanges()
	for _, x := range exchanges {
		if x.Step < 0 {
			t.Errorf("a request the script did not expect: %.300s", x.Request.Body)
		}
	}
	return exchanges
}
