package evimport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// rotationSession is a Claude Code session made up for the rotation
// tests: prompts runs of steps responses, each a text line and a
// tool_use line (one response, its usage growing) and the tool's result,
// the last an answer; then a last prompt with no answer yet.
func rotationSession(prompts, steps int) []string {
	const id = "9a3c5e71-0b2d-4f48-8e6a-1c7d9f2b4e60"
	var lines []string
	n, parent := 0, "null"
	line := func(typ, rest string) {
		n++
		uuid := fmt.Sprintf("c9000000-0000-4000-8000-%012d", n)
		lines = append(lines, fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/lea/shop","sessionId":"%s","version":"2.1.40","type":"%s","uuid":"%s","timestamp":"2026-03-04T10:%02d:%02d.000Z",%s}`+"\n",
			parent, id, typ, uuid, n/60, n%60, rest))
		parent = `"` + uuid + `"`
	}
	usage := func(p, s, out int) string {
		return fmt.Sprintf(`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, 10*p+s, 100*p, 1000*s, out)
	}
	assistant := func(p, s int, content, stop string, out int) {
		line("assistant", fmt.Sprintf(`"requestId":"req_%d_%d","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_%d_%d","type":"message","role":"assistant","content":[%s],"stop_reason":%s,%s}`,
			p, s, p, s, content, stop, usage(p, s, out)))
	}
	for p := 1; p <= prompts; p++ {
		line("user", fmt.Sprintf(`"message":{"role":"user","content":"prompt %d"}`, p))
		for s := 1; s <= steps; s++ {
			assistant(p, s, fmt.Sprintf(`{"type":"text","text":"step %d.%d"}`, p, s), "null", 2)
			if s == steps {
				assistant(p, s, fmt.Sprintf(`{"type":"text","text":"answer %d"}`, p), `"end_turn"`, 40+s)
				continue
			}
			assistant(p, s, fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d_%d","name":"Bash","input":{"command":"make step%d.%d"}}`, p, s, p, s), `"tool_use"`, 30+s)
			line("user", fmt.Sprintf(`"message":{"role":"user","content":[{"tool_use_id":"toolu_%d_%d","type":"tool_result","content":"ok %d.%d"}]}`, p, s, p, s))
		}
	}
	line("user", `"message":{"role":"user","content":"thanks"}`)
	return lines
}

// evimport -F on a folder whose session file is rotated twice while the
// agent writes it, in each way the docs promise: renamed to a session
// name in the folder (s-1.jsonl, then s-2.jsonl) and continued in a new
// s.jsonl; moved out of the folder; copied and truncated (logrotate's
// copytruncate), the copy out of the walk or in the folder. What is
// followed is what a one-shot evimport of the files then writes, but for
// the last run, still open: each event once, the runs numbered
// from the prompts. Before, the new s.jsonl was converted before the
// rotated file, in a run 0 with no prompt, and the events of the rotated
// file written again or lost.
func TestFollowRotation(t *testing.T) {
	bin, err := exec.LookPath("evimport") // the test binary, set up by testscript
	if err != nil {
		t.Fatal(err)
	}
	lines := rotationSession(3, 3)
	// what is written, a part at a time, and an event to wait for; each
	// rotation cuts a run, first between a tool call and its result,
	// then between two lines of one response. What follows a truncation
	// is shorter than what was cut, as tail -F needs to see it.
	parts := []struct {
		end    int
		rotate bool
		wait   string
	}{
		{4, false, `"command":"make step1.1"`},
		{15, false, `"command":"make step2.2"`},
		{17, true, `"output":"ok 2.2"`},
		{20, false, `"text":"prompt 3"`},
		{22, true, `"output":"ok 3.1"`},
		{len(lines), false, `"text":"thanks"`},
	}
	for _, c := range []struct {
		name   string
		rotate func(t *testing.T, file, dir, away string, i int) string // returns the old file's new name
	}{
		{"renamed in the folder", func(t *testing.T, file, dir, away string, i int) string {
			old := filepath.Join(dir, fmt.Sprintf("s-%d.jsonl", i))
			rename(t, file, old)
			return old
		}},
		{"moved out of the folder", func(t *testing.T, file, dir, away string, i int) string {
			old := filepath.Join(away, fmt.Sprintf("s.jsonl.%d", i))
			rename(t, file, old)
			return old
		}},
		{"copied and truncated", func(t *testing.T, file, dir, away string, i int) string {
			return copyTruncate(t, file, filepath.Join(dir, fmt.Sprintf("s.jsonl.%d", i)))
		}},
		{"copied in the folder and truncated", func(t *testing.T, file, dir, away string, i int) string {
			return copyTruncate(t, file, filepath.Join(dir, fmt.Sprintf("s-%d.jsonl", i)))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, away := t.TempDir(), t.TempDir()
			file := filepath.Join(dir, "s.jsonl")
			var f *followed
			var old []string
			from := 0
			for _, p := range parts {
				if p.rotate {
					old = append(old, c.rotate(t, file, dir, away, len(old)+1))
				}
				appendTo(t, file, lines[from:p.end])
				from = p.end
				if f == nil {
					f = startFollow(t, dir)
				}
				if !f.waitFor(f.has(p.wait)) {
					t.Errorf("no event with %s after line %d", p.wait, p.end)
				}
			}
			oneShot, err := exec.Command(bin, append(old, dir)...).Output()
			if err != nil {
				t.Fatalf("evimport %s: %v", strings.Join(append(old, dir), " "), err)
			}
			compareFollowed(t, f.got, strings.Split(strings.TrimSpace(string(oneShot)), "\n"))
			if e := f.stderr.String(); e != "" {
				t.Errorf("stderr: %s", e)
			}
		})
	}
}

// waitFor reads events until done holds, for ten seconds at most, and
// reports whether it does: what was written is compared after.
func (f *followed) waitFor(done func() bool) bool {
	deadline := time.After(10 * time.Second)
	for !done() {
		select {
		case l := <-f.lines:
			f.got = append(f.got, l)
		case <-deadline:
			return false
		}
	}
	return true
}

func appendTo(t *testing.T, file string, lines []string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// one write: a look sees all of it or none
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// copyTruncate rotates file as logrotate's copytruncate does: a copy,
// then the file truncated, the writer going on in it.
func copyTruncate(t *testing.T, file, copy string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copy, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	return copy
}

// compareFollowed checks that the events followed are those of the
// one-shot conversion, seq aside, each once, less those of the last run,
// still open, but its prompt (its run_started waits for the model to
// answer, its end for the next prompt); the figures say what differs.
func compareFollowed(t *testing.T, followed, oneShot []string) {
	t.Helper()
	type event struct {
		RunID   string `json:"run_id"`
		Kind    string
		Payload struct{ Input, Output int64 }
	}
	figures := func(lines []string) string {
		kinds := map[string]int{}
		runs := map[string]bool{}
		var input, output int64
		for _, l := range lines {
			var e event
			json.Unmarshal([]byte(l), &e)
			kinds[e.Kind]++
			runs[e.RunID] = true
			if e.Kind == "model_result" {
				input, output = input+e.Payload.Input, output+e.Payload.Output
			}
		}
		ids := make([]string, 0, len(runs))
		for r := range runs {
			ids = append(ids, r[strings.LastIndexByte(r, '/')+1:])
		}
		sort.Strings(ids)
		return fmt.Sprintf("%d events, %d model calls, %d model results, %d tool calls, %d input and %d output tokens, runs %s",
			len(lines), kinds["model_call"], kinds["model_result"], kinds["tool_call"], input, output, strings.Join(ids, " "))
	}
	// an event, seq aside
	key := func(l string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		delete(m, "seq")
		b, _ := json.Marshal(m)
		return string(b)
	}
	want := map[string]int{}
	var last string
	for _, l := range oneShot {
		want[key(l)]++
		var e event
		json.Unmarshal([]byte(l), &e)
		last = e.RunID
	}
	var wrong []string
	for _, l := range followed {
		k := key(l)
		if want[k] == 0 {
			wrong = append(wrong, "written but not in the one-shot output, or once too often: "+l)
			continue
		}
		want[k]--
	}
	for _, l := range oneShot {
		var e event
		json.Unmarshal([]byte(l), &e)
		if k := key(l); want[k] > 0 {
			want[k]--
			if e.RunID != last || e.Kind == "user_message" {
				wrong = append(wrong, "not written: "+l)
			}
		}
	}
	if len(wrong) > 0 {
		t.Errorf("followed: %s\none-shot: %s\n%s", figures(followed), figures(oneShot), strings.Join(wrong, "\n"))
	}
}
