package transcript

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// render writes the page of the stream, with the options.
func render(t *testing.T, stream string, o Options) string {
	t.Helper()
	o.Loc = time.UTC
	var b bytes.Buffer
	w := New(&b, o)
	if _, err := w.Write([]byte(stream)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A model call that failed before its result is a model call, as evsum
// counts it: the page and evsum's model_calls say the same number.
func TestModelCallsAsEvsumCountsThem(t *testing.T) {
	const stream = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"","kind":"model_call","payload":{"step":1,"model":"m"}}
{"seq":3,"ts":1780000002,"run_id":"r1","agent_id":"","kind":"model_result","payload":{"step":1,"model":"m","input":10,"output":2,"total":12}}
{"seq":4,"ts":1780000003,"run_id":"r1","agent_id":"","kind":"model_call","payload":{"step":2,"model":"m"}}
{"seq":5,"ts":1780000004,"run_id":"r1","agent_id":"","kind":"model_error","payload":{"step":2,"message":"overloaded"}}
{"seq":6,"ts":1780000005,"run_id":"r1","agent_id":"","kind":"run_finished","payload":{"outcome":"error"}}
`
	page := render(t, stream, Options{})
	if !strings.Contains(page, "2 model calls") {
		t.Errorf("the page does not say 2 model calls:\n%s", headlines(page))
	}
}

// headlines are the page's lines that say model calls, for a failure's
// message.
func headlines(page string) string {
	var b strings.Builder
	for _, l := range strings.Split(page, "\n") {
		if strings.Contains(l, "model call") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// A reply of nothing but blank lines ("\n\n", as Claude Code writes one
// before its tool calls), whole or in pieces, is no entry: an empty box
// says nothing.
func TestBlankRepliesAreNoEntries(t *testing.T) {
	const stream = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"","kind":"assistant_message","payload":{"text":"\n\n"}}
{"seq":3,"ts":1780000002,"run_id":"r1","agent_id":"","kind":"message_update","payload":{"type":"text_delta","delta":"\n"}}
{"seq":4,"ts":1780000002,"run_id":"r1","agent_id":"","kind":"message_update","payload":{"type":"text_delta","delta":" \n"}}
{"seq":5,"ts":1780000003,"run_id":"r1","agent_id":"","kind":"tool_call","payload":{"id":"c1","tool":"bash","args":{"command":"ls"}}}
{"seq":6,"ts":1780000004,"run_id":"r1","agent_id":"","kind":"assistant_message","payload":{"text":"done"}}
`
	page := render(t, stream, Options{})
	if n := strings.Count(page, `<li class="e reply">`); n != 1 {
		t.Errorf("%d replies on the page, want 1 (done)", n)
	}
}

// The run list of a page of many sessions (evimport of a whole HOME) says
// each run's agent, project and session, which the imported events carry:
// without them 200 runs read alike.
func TestRunListSaysWhere(t *testing.T) {
	const stream = `{"seq":1,"ts":1780000000,"run_id":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18/1","agent_id":"","kind":"user_message","payload":{"text":"fix it"},"session":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18","project":"/home/ana/src/api","source":"claude"}
{"seq":2,"ts":1780000001,"run_id":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18/1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"},"session":"c4a81f02-6e3b-47d9-b2a5-0f9d3e7c6b18","project":"/home/ana/src/api","source":"claude"}
{"seq":3,"ts":1780000002,"run_id":"019c8a53-a0dd-7130-bcd7-95445d84846a/1","agent_id":"","kind":"user_message","payload":{"text":"fix it"},"session":"019c8a53-a0dd-7130-bcd7-95445d84846a","project":"/home/ana/src/web","source":"codex"}
`
	page := render(t, stream, Options{})
	i, j := strings.Index(page, `<nav class="runs"`), strings.Index(page, "</nav>")
	if i < 0 || j < i {
		t.Fatal("no run list")
	}
	list := page[i:j]
	for _, want := range []string{"claude · /home/ana/src/api · c4a81f02", "codex · /home/ana/src/web · 019c8a53"} {
		if !strings.Contains(list, want) {
			t.Errorf("the run list does not say %q:\n%s", want, list)
		}
	}
}

// What evimport files before a session's first prompt (SESSION/0: Claude
// Code's warm-up agents) is named as such, in the run list and in its
// heading, not left as a run without a prompt.
func TestRunBeforeFirstPrompt(t *testing.T) {
	const stream = `{"seq":1,"ts":1780000000,"run_id":"s/0","agent_id":"warmup:1","kind":"model_call","payload":{"step":1,"model":"m"}}
{"seq":2,"ts":1780000001,"run_id":"s/0","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"}}
{"seq":3,"ts":1780000002,"run_id":"s/1","agent_id":"","kind":"user_message","payload":{"text":"fix the build"}}
{"seq":4,"ts":1780000003,"run_id":"s/1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"}}
`
	page := render(t, stream, Options{})
	if n := strings.Count(page, "before the first prompt"); n != 2 {
		t.Errorf("the page names the run before the first prompt %d times, want 2 (list and heading)", n)
	}
	if strings.Contains(page, "(no prompt in the stream)") {
		t.Error("the run before the first prompt is listed as having no prompt")
	}
}

// A call whose log kept no usage is not shown as "in 0, out 0".
func TestNoUsageNotShownAsFree(t *testing.T) {
	const stream = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"","kind":"model_call","payload":{"step":1,"model":"m"}}
{"seq":3,"ts":1780000002,"run_id":"r1","agent_id":"","kind":"model_result","payload":{"step":1,"model":"m","no_usage":true}}
{"seq":4,"ts":1780000003,"run_id":"r1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"}}
`
	page := render(t, stream, Options{})
	if strings.Contains(page, "in 0") || !strings.Contains(page, "usage not recorded") {
		t.Errorf("the call without usage is not said to be so:\n%s", page)
	}
}

// A session's totals without a call of their own (Copilot CLI's, from
// evimport) are named so, and draw no bar: the timeline shows the calls.
func TestSessionTotalsAreNoCall(t *testing.T) {
	const stream = `{"seq":1,"ts":1780000000,"run_id":"r1","agent_id":"","kind":"user_message","payload":{"text":"hi"}}
{"seq":2,"ts":1780000001,"run_id":"r1","agent_id":"main","kind":"model_call","payload":{"step":1,"model":"m"}}
{"seq":3,"ts":1780000003,"run_id":"r1","agent_id":"main","kind":"model_result","payload":{"step":1,"model":"m","output":80}}
{"seq":4,"ts":1780000004,"run_id":"r1","agent_id":"main","kind":"tool_call","payload":{"id":"c1","tool":"bash","args":{"command":"ls"}}}
{"seq":5,"ts":1780000005,"run_id":"r1","agent_id":"main","kind":"tool_result","payload":{"id":"c1","tool":"bash","ok":true}}
{"seq":6,"ts":1780000009,"run_id":"r1","agent_id":"main","kind":"model_result","payload":{"step":1,"model":"m","input":48000,"output":0,"usage_of":"session"}}
{"seq":7,"ts":1780000010,"run_id":"r1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok"}}
`
	page := render(t, stream, Options{})
	if !strings.Contains(page, "session totals") {
		t.Error("the session's totals are not named so")
	}
	if n := strings.Count(page, `<rect class="m"`); n != 1 {
		t.Errorf("%d model bars on the timeline, want the one call's", n)
	}
}
