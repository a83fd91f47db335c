package evimport

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/prices"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/pkg/jsonl"
	"github.com/rogpeppe/go-internal/txtar"
)

// fixtureSessions are the session files (.jsonl) of a fixture's home
// folder: path under it -> content.
func fixtureSessions(t *testing.T, script string) map[string][]byte {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range a.Files {
		if strings.HasPrefix(f.Name, "home/") && strings.HasSuffix(f.Name, ".jsonl") {
			files[f.Name] = f.Data
		}
	}
	if len(files) == 0 {
		t.Fatalf("%s: no session file", script)
	}
	return files
}

// calls are the model calls, tool calls and model results (tokens and
// cost) of events, as lines without their seq, by session, sorted: a
// subagent's events come in another order when followed (spliced in
// once their file is read), and seq counts events as written.
func calls(t *testing.T, events string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(events), "\n") {
		if l == "" {
			continue
		}
		var e map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		switch string(e["kind"]) {
		case `"model_call"`, `"tool_call"`, `"model_result"`:
		default:
			continue
		}
		delete(e, "seq")
		b, _ := json.Marshal(e)
		out[string(e["session"])] = append(out[string(e["session"])], string(b))
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// A session of each source, written in random pieces (cut anywhere,
// several files at once, follow's rounds in between), gives through
// --follow's rounds, once its last response is complete, the model
// calls, tool calls and tokens that a pass over the final files gives.
func TestFollowRoundsMatchAPass(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 6
	}
	for _, script := range []string{"claude.txtar", "claude-subagents.txtar", "codex.txtar", "codex-agents.txtar", "pi.txtar", "gemini.txtar", "gemini-agents.txtar", "copilot.txtar"} {
		t.Run(script, func(t *testing.T) {
			followMatchesPass(t, fixtureSessions(t, script), n)
		})
	}
}

// followMatchesPass writes files (path under a home folder -> content)
// in random pieces n times, following them, and checks that what the
// rounds wrote is, as calls, what a pass over the final files writes,
// less what is of a session's last run.
func followMatchesPass(t *testing.T, files map[string][]byte, n int) {
	t.Helper()
	names := sortedKeys(files)
	dir := t.TempDir()
	for _, name := range names {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, files[name], 0o644)
	}
	_, stdout, _ := runMain("", filepath.Join(dir, "home"))
	want := calls(t, stdout)
	for i := range n {
		rng := rand.New(rand.NewPCG(uint64(i), 31))
		got, stderr := followInPieces(t, rng, files, names)
		g := calls(t, got)
		extra := minus(flat(g), flat(want))
		var missed []string
		for _, l := range minus(flat(want), flat(g)) {
			if !inLastRun(l, want) {
				missed = append(missed, l)
			}
		}
		if len(extra) > 0 || len(missed) > 0 {
			t.Fatalf("schedule %d: followed, not in a pass:\n%s\nin a pass, not followed:\n%s\nstderr: %s", i, strings.Join(extra, "\n"), strings.Join(missed, "\n"), stderr)
		}
		// no run the pass has not (a run 0 begun for a subagent whose
		// place was not known yet)
		if r := minus(sortedKeys(runs(t, got)), sortedKeys(runs(t, stdout))); len(r) > 0 {
			t.Fatalf("schedule %d: runs followed, not in a pass: %s", i, strings.Join(r, " "))
		}
	}
}

// A Claude Code subagent whose file ends with its last response is
// over once the call that spawned it has its result: that response is
// followed (a later run, with a call, makes its run not the last), not
// held for ever for a line that never comes after it.
func TestFollowSubagentOver(t *testing.T) {
	files := fixtureSessions(t, "claude-subagents.txtar")
	main := "home/.claude/projects/-home-ana-src-api/c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18.jsonl"
	if !bytes.Contains(files[main], []byte(`"content":"add a per-client rate limit`)) {
		t.Fatalf("%s: not the session's main file", main)
	}
	// the second subagent's call (only its progress is in the log) gets
	// its result too, then a run with a response begins
	files[main] = append(bytes.Clone(files[main]), `{"parentUuid":"c3000000-0000-4000-8000-000000000007","isSidechain":false,"userType":"external","cwd":"/home/ana/src/api","sessionId":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18","version":"2.1.40","type":"user","uuid":"c3000000-0000-4000-8000-000000000010","timestamp":"2026-03-04T10:00:30.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_01Task2","type":"tool_result","content":"none"}]}}`+"\n"+
		`{"parentUuid":"c3000000-0000-4000-8000-000000000010","isSidechain":false,"userType":"external","cwd":"/home/ana/src/api","sessionId":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18","version":"2.1.40","type":"user","uuid":"c3000000-0000-4000-8000-000000000008","timestamp":"2026-03-04T10:01:00.000Z","message":{"role":"user","content":"now the tests"}}`+"\n"+
		`{"parentUuid":"c3000000-0000-4000-8000-000000000008","isSidechain":false,"userType":"external","cwd":"/home/ana/src/api","sessionId":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18","version":"2.1.40","type":"assistant","uuid":"c3000000-0000-4000-8000-000000000009","timestamp":"2026-03-04T10:01:04.000Z","requestId":"req_011CV1c","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01Tq9","type":"message","role":"assistant","content":[{"type":"text","text":"On it."}],"stop_reason":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":2}}}`+"\n"...)
	followMatchesPass(t, files, 10)
}

// runs are the run ids of events.
func runs(t *testing.T, events string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(events), "\n") {
		var e struct {
			Run string `json:"run_id"`
		}
		if err := json.Unmarshal([]byte(l), &e); l != "" && err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if e.Run != "" {
			out[e.Run] = true
		}
	}
	return out
}

// inLastRun reports whether the event line l is of its session's last
// run in the pass's calls, which --follow keeps open: its last response
// is not known to be complete until a line after it comes.
func inLastRun(l string, pass map[string][]string) bool {
	var e struct {
		Session string
		Run     string `json:"run_id"`
	}
	json.Unmarshal([]byte(l), &e)
	last := ""
	for _, m := range pass[strconv.Quote(e.Session)] {
		var x struct {
			Run string `json:"run_id"`
		}
		json.Unmarshal([]byte(m), &x)
		if runNumber(x.Run) > runNumber(last) {
			last = x.Run
		}
	}
	return e.Run == last
}

func runNumber(run string) int {
	n, _ := strconv.Atoi(run[strings.LastIndexByte(run, '/')+1:])
	return n
}

// minus is a without b's lines, as multisets.
func minus(a, b []string) []string {
	n := map[string]int{}
	for _, l := range b {
		n[l]++
	}
	var out []string
	for _, l := range a {
		if n[l] > 0 {
			n[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

func flat(m map[string][]string) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, m[k]...)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// followInPieces writes files (in names' order at first) a random piece
// of a random file at a time, running follow's rounds in between, and
// returns what the rounds wrote, and said on stderr.
func followInPieces(t *testing.T, rng *rand.Rand, files map[string][]byte, names []string) (string, string) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	out := jsonl.NewWriter(&stdout)
	in := &jsonl.Input{Tool: name, Stderr: &stderr, Out: out}
	o := &options{Input: cli.Input{Files: []string{filepath.Join(dir, "home")}}, From: "auto"}
	os.MkdirAll(filepath.Join(dir, "home"), 0o755)
	table := prices.Default()
	fl := newFollower(o, in, out, window.Window{}, func() *converter { return newConverter(table) })
	written := map[string]int{}
	for {
		var left []string
		for _, name := range names {
			if written[name] < len(files[name]) {
				left = append(left, name)
			}
		}
		if len(left) == 0 {
			break
		}
		name := left[0]
		if rng.IntN(3) == 0 {
			name = left[rng.IntN(len(left))]
		}
		data := files[name]
		from := written[name]
		to := min(len(data), from+1+rng.IntN(300))
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data[from:to])
		f.Close()
		written[name] = to
		if rng.IntN(2) == 0 {
			if err := fl.round(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 2 {
		if err := fl.round(); err != nil {
			t.Fatal(err)
		}
	}
	return stdout.String(), stderr.String()
}

// --follow says the notes a pass says at its end as they come up, each
// once: its end is a signal, after which nothing is said.
func TestFollowSaysNotes(t *testing.T) {
	const id = "5b1c0d2e-7f3a-4c9b-8e6d-1a2b3c4d5e6f"
	line := func(uuid, parent, kind, ts, message string) string {
		return `{"parentUuid":` + parent + `,"isSidechain":false,"type":"` + kind + `","uuid":"` + uuid + `","sessionId":"` + id +
			`","cwd":"/home/ana/src/notes","version":"2.1.40","timestamp":"` + ts + `","message":` + message + "}\n"
	}
	var log strings.Builder
	for i, model := range []string{"claude-imaginary-9", "claude-imaginary-9", "claude-imaginary-10"} {
		n := strconv.Itoa(i)
		log.WriteString(line("u"+n, "null", "user", "2026-03-03T16:4"+n+":00.000Z", `{"role":"user","content":"question `+n+`"}`))
		log.WriteString(line("a"+n, `"u`+n+`"`, "assistant", "2026-03-03T16:4"+n+":03.000Z",
			`{"model":"`+model+`","id":"msg_`+n+`","type":"message","role":"assistant","content":[{"type":"text","text":"answer"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}}`))
		log.WriteString(`{"type":"mystery-record","sessionId":"` + id + `","detail":{"depth":` + n + "}}\n")
	}
	name := "home/.claude/projects/-home-ana-src-notes/" + id + ".jsonl"
	_, stderr := followInPieces(t, rand.New(rand.NewPCG(3, 4)), map[string][]byte{name: []byte(log.String())}, []string{name})
	for _, want := range []string{
		"evimport: no price for model claude-imaginary-9 (",
		"evimport: no price for model claude-imaginary-10 (",
		"evimport: claude mystery-record (",
	} {
		if n := strings.Count(stderr, want); n != 1 {
			t.Errorf("%q said %d times, want once; stderr:\n%s", want, n, stderr)
		}
	}
	if !strings.Contains(stderr, "members detail.depth, sessionId, type") {
		t.Errorf("the unknown type's members not said; stderr:\n%s", stderr)
	}
}
