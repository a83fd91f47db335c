package pretty

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// show renders lines (one event each) at width, without colour, in UTC.
func show(t *testing.T, width int, lines ...string) string {
	t.Helper()
	var out bytes.Buffer
	r := New(&out, Options{Width: width, Loc: time.UTC})
	if _, err := r.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func env(ts, agent, kind, payload string) string {
	return `{"seq":1,"ts":` + ts + `,"run_id":"r_1","agent_id":"` + agent + `","kind":"` + kind + `","payload":` + payload + `}`
}

// What a person reads for small streams: each case names the behaviour.
func TestScenarios(t *testing.T) {
	for _, tc := range []struct {
		name   string
		width  int
		lines  []string
		want   []string // lines of the output, each exactly as here
		absent []string // text the output must not have
	}{
		{
			name: "latency is the time since the turn began",
			lines: []string{
				`{"type":"turn_start","step":1,"time":"2026-11-01T09:00:00Z"}`,
				`{"type":"usage","input":10,"output":2,"time":"2026-11-01T09:00:02.5Z"}`,
			},
			want: []string{"09:00:02.500 model  in 10 out 2  2.50s"},
		},
		{
			name: "a turn without a time gives no latency",
			lines: []string{
				`{"type":"turn_start","step":1}`,
				`{"type":"usage","input":10,"output":2,"time":"2026-11-01T09:00:02.5Z"}`,
			},
			want: []string{"09:00:02.500 model  in 10 out 2"},
		},
		{
			name:  "a failed turn alone makes the run end in error",
			lines: []string{`{"type":"turn_end","stop":"error","error":"boom"}`, `{"type":"done"}`},
			want:  []string{"             ERROR  turn failed  boom", "             run    ERROR"},
		},
		{
			name:  "a model error alone makes the run end in error",
			lines: []string{env("0", "zot", "error", `{"message":"429"}`), env("0", "", "agent_end", `{"type":"done"}`)},
			want:  []string{"             run    ERROR"},
		},
		{
			name:  "a run that went well",
			lines: []string{`{"type":"turn_start","step":1}`, `{"type":"done"}`},
			want:  []string{"             run    ok  1 model call"},
		},
		{
			name: "a spawned agent is a sub-agent even before its parent shows",
			lines: []string{
				env("1793524442", "", "user_message", `{"text":"go"}`),
				env("1793524443", "helper", "agent_spawned", `{"role":"helper"}`),
				env("1793524444", "parent", "model_result", `{"input":1,"output":2}`),
				env("1793524445", "helper", "model_result", `{"input":1,"output":2}`),
			},
			want: []string{
				"09:14:04.000 model  in 1 out 2",
				"09:14:05.000   helper           model  in 1 out 2",
			},
		},
		{
			name: "a tool line left open gets its argument pieces when another event comes",
			lines: []string{
				`{"type":"tool_use_start","id":"c1","name":"bash"}`,
				`{"type":"tool_use_args","id":"c1","delta":"{\"command\":\"ls\"}"}`,
				`{"type":"text_delta","delta":"meanwhile"}`,
			},
			want: []string{"             tool   bash  ls", "             meanwhile"},
		},
		{
			name: "the complete call completes a start whose pieces never ended",
			lines: []string{
				`{"type":"tool_use_start","id":"c1","name":"bash"}`,
				`{"type":"tool_call","id":"c1","name":"bash","args":{"command":"make"}}`,
				`{"type":"tool_use_end","id":"c1"}`,
			},
			want: []string{"             tool   bash  make"},
		},
		{
			name: "a call restated after its line was shown adds nothing",
			lines: []string{
				`{"type":"tool_use_start","id":"c1","name":"bash"}`,
				`{"type":"tool_use_args","id":"c1","delta":"{\"command\":\"ls\"}"}`,
				`{"type":"tool_use_end","id":"c1"}`,
				`{"type":"tool_call","id":"c1","name":"bash","args":{"command":"ls"}}`,
			},
			want:   []string{"             tool   bash  ls"},
			absent: []string{"bash  ls\n             tool"},
		},
		{
			name: "a call that ends when it starts shows no duration",
			lines: []string{
				env("1793524443", "a", "tool_call", `{"tool":"grep","args":{"pattern":"x"}}`),
				env("1793524443", "a", "tool_result", `{"tool":"grep","ok":true}`),
			},
			want: []string{"09:14:03.000 ok     grep"},
		},
		{
			name: "a reply by another agent after a text flow is shown",
			lines: []string{
				env("0", "a", "message_update", `{"type":"text_delta","delta":"from a"}`),
				env("0", "b", "message_end", `{"content":[{"type":"text","text":"from b"}]}`),
			},
			want: []string{"             from a", "               b                from b"},
		},
		{
			name: "the whole text after its pieces is not shown twice",
			lines: []string{
				env("0", "a", "message_update", `{"type":"text_delta","delta":"once"}`),
				env("0", "a", "message_end", `{"content":[{"type":"text","text":"once"}]}`),
			},
			want: []string{"             once"},
		},
		{
			name:  "a flow starting with a space starts at its first word",
			lines: []string{`{"type":"text_delta","delta":" Hello"}`, `{"type":"text_delta","delta":" world"}`},
			want:  []string{"             Hello world"},
		},
		{
			name:  "a word longer than the line starts on the flow's line, not after a blank one",
			width: 40,
			lines: []string{`{"type":"text_delta","delta":"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"}`},
			want:  []string{"             abcdefghijklmnopqrstuvwxyza", "             bcdefghijklmnopqrstuvwxyz"},
		},
		{
			name:  "only text blocks are text",
			lines: []string{`{"type":"assistant_message","content":[{"type":"thinking","text":"secret plan"},{"type":"text","text":"answer"}]}`},
			want:  []string{"             answer"},
		},
		{
			name:  "arguments sent as a JSON text",
			lines: []string{env("0", "a", "tool_call", `{"tool":"bash","args":"{\"command\":\"uname\"}"}`)},
			want:  []string{"             tool   bash  uname"},
		},
		{
			name:  "an empty argv gives way to the next telling argument",
			lines: []string{env("0", "a", "tool_call", `{"tool":"edit","args":{"argv":[],"path":"main.go"}}`)},
			want:  []string{"             tool   edit  main.go"},
		},
		{
			name:  "an argv is its words",
			lines: []string{env("0", "a", "tool_call", `{"tool":"run","args":{"argv":["go","test","./..."]}}`)},
			want:  []string{"             tool   run  go test ./..."},
		},
		{
			name:   "a wall time that is not a time is left out",
			lines:  []string{env("0", "", "run_finished", `{"outcome":"ok","wall_seconds":-1}`)},
			want:   []string{"             run    ok"},
			absent: []string{"-1"},
		},
		{
			name:  "DEL is a control character",
			lines: []string{env("0", "", "user_message", `{"text":"a\u007fb"}`)},
			want:  []string{`             user   a\x7fb`},
		},
		{
			name:  "a shell's echo of its command is passed over",
			lines: []string{`{"type":"tool_result","id":"c9","content":[{"type":"text","text":"$ ls\nmain.go\nREADME"}]}`},
			want:  []string{"             ok     call c9  main.go …"},
		},
		{
			name:  "Codex's header of a command's output is passed over",
			lines: []string{env("0", "a", "tool_result", `{"tool":"exec_command","ok":false,"output":"Chunk ID: 4e1a\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\npatch rejected: main.go changed\n"}`)},
			want:  []string{"             FAILED exec_command  patch rejected: main.go changed"},
		},
		{
			name:  "output that only looks like a header is output",
			lines: []string{env("0", "a", "tool_result", `{"tool":"cat","ok":true,"output":"main.go: a file\nOutput:\nx"}`)},
			want:  []string{"             ok     cat  main.go: a file …"},
		},
		{
			name:  "an empty line of a text stays empty",
			lines: []string{`{"type":"text_delta","delta":"one\n\ntwo"}`},
			want:  []string{"             one", "", "             two"},
		},
		{
			name:  "a patch is the files it changes",
			lines: []string{env("0", "a", "tool_call", `{"tool":"apply_patch","args":{"input":"*** Begin Patch\n*** Update File: main.go\n@@\n-a\n+b\n*** Add File: flags.go\n+package main\n*** End Patch"}}`)},
			want:  []string{"             tool   apply_patch  update main.go, add flags.go"},
		},
		{
			name:  "output of one line is not followed by …",
			lines: []string{`{"type":"tool_result","id":"c9","content":"$ true"}`},
			want:  []string{"             ok     call c9  $ true"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			width := tc.width
			if width == 0 {
				width = 100
			}
			got := show(t, width, tc.lines...)
			lines := strings.Split(got, "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					if l == w {
						found = true
					}
				}
				if !found {
					t.Errorf("no line %q in:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("%q in:\n%s", a, got)
				}
			}
		})
	}
}

// Continuation lines of a text keep at most half the width for the
// prefix, so a narrow terminal with long labels still has room for text.
func TestFlowIndentAtMostHalf(t *testing.T) {
	got := show(t, 40,
		env("1793524443", "a-long-agent-name", "model_call", `{"step":1}`),
		env("1793524444", "another-long-name", "message_update", `{"type":"text_delta","delta":"one two three four five six seven eight nine ten"}`),
	)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	last := lines[len(lines)-1]
	if indent := len(last) - len(strings.TrimLeft(last, " ")); indent > 20 {
		t.Errorf("a continuation line indented %d in 40 columns:\n%s", indent, got)
	}
}

// However the bytes are split between writes, the rendering is the same:
// a line may arrive in pieces, and the last one without its newline.
func TestChunkedWrites(t *testing.T) {
	for _, in := range inputs {
		data := readInput(t, in.path, in.section)
		want := render(t, data, 80, true)
		for _, size := range []int{1, 7, 100, 4096} {
			var out bytes.Buffer
			r := New(&out, Options{Width: 80, Color: true, Loc: time.UTC})
			rest := bytes.TrimSuffix(data, []byte("\n")) // the last line unterminated
			for len(rest) > 0 {
				n := min(size, len(rest))
				if _, err := r.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s in writes of %d bytes:\n%s", in.name, size, diffLines(string(want), out.String()))
			}
		}
	}
}

// Every Write draws what it completed before returning: a live reader
// sees each event at once.
func TestEachWriteIsDrawn(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Options{Width: 80, Loc: time.UTC})
	r.Write([]byte(env("1793524443", "a", "error", `{"message":"first"}`) + "\n"))
	if !strings.Contains(out.String(), "ERROR  first") {
		t.Fatalf("after one write: %q", out.String())
	}
	r.Write([]byte(`{"type":"text_delta","delta":"half way`))
	if strings.Contains(out.String(), "half") {
		t.Errorf("a line without its end was drawn: %q", out.String())
	}
	r.Write([]byte("\"}\n"))
	if !strings.HasSuffix(out.String(), "half") {
		t.Errorf("the words of a text piece wait for more: %q", out.String())
	}
	// The last word may go on in the next piece: it waits for it, to be
	// placed whole.
	if strings.Contains(out.String(), "way") {
		t.Errorf("the last word of a piece was drawn before its end: %q", out.String())
	}
	r.Close()
	if !strings.HasSuffix(out.String(), "half way\n") {
		t.Errorf("Close does not end the open line: %q", out.String())
	}
	// The end of the turn ends its text, though its line is not shown.
	out.Reset()
	r = New(&out, Options{Width: 80, Loc: time.UTC})
	r.Write([]byte(`{"type":"text_delta","delta":"all done"}` + "\n" + `{"type":"turn_end","stop":"end"}` + "\n"))
	if !strings.HasSuffix(out.String(), "all done\n") {
		t.Errorf("the turn's end leaves its text's last word waiting: %q", out.String())
	}
}

type failingWriter struct{ n int }

var errFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errFull
	}
	return len(p), nil
}

// A write error is returned, then returned again for every later write
// and by Close, without drawing anything more.
func TestWriteErrors(t *testing.T) {
	fw := &failingWriter{n: 1}
	r := New(fw, Options{Width: 80})
	line := []byte(env("1793524443", "a", "error", `{"message":"x"}`) + "\n")
	if _, err := r.Write(line); err != nil {
		t.Fatalf("first write: %v", err)
	}
	if _, err := r.Write(line); !errors.Is(err, errFull) {
		t.Fatalf("second write: %v, want %v", err, errFull)
	}
	if n, err := r.Write(line); n != 0 || !errors.Is(err, errFull) {
		t.Errorf("after the error: %d, %v", n, err)
	}
	if err := r.Close(); !errors.Is(err, errFull) {
		t.Errorf("Close: %v", err)
	}
}

// A huge line's buffer is not kept for the rest of the run, and output
// of many lines in one write goes out in pieces, not held whole.
func TestBuffersStayBounded(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Options{Width: 80})
	big := []byte(env("0", "a", "user_message", `{"text":"`+strings.Repeat("x", 2<<20)+`"}`))
	r.Write(big[:len(big)/2])
	r.Write(append(big[len(big)/2:], '\n'))
	if kept := r.lines.Rest(); cap(kept) > 1<<20 {
		t.Errorf("the pending buffer keeps %d bytes after a huge line", cap(kept))
	}
	var many bytes.Buffer
	for range 2000 {
		many.WriteString(env("0", "a", "error", `{"message":"`+strings.Repeat("e", 60)+`"}`) + "\n")
	}
	cw := &countingWriter{}
	r = New(cw, Options{Width: 80})
	r.Write(many.Bytes())
	if cw.writes < 2 || cw.max > 80<<10 {
		t.Errorf("2000 lines in one write went out in %d writes, the largest %d bytes", cw.writes, cw.max)
	}
}

type countingWriter struct{ writes, max int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	c.max = max(c.max, len(p))
	return len(p), nil
}

// The narrowest width is 30; 0 is 80.
func TestWidths(t *testing.T) {
	line := env("0", "", "user_message", `{"text":"`+strings.Repeat("x", 300)+`"}`)
	for _, tc := range []struct{ width, want int }{{0, 80}, {10, 30}, {30, 30}, {31, 31}} {
		got := show(t, tc.width, line)
		longest := 0
		for _, l := range strings.Split(got, "\n") {
			longest = max(longest, len([]rune(l)))
		}
		if longest != tc.want {
			t.Errorf("width %d: longest line %d, want %d:\n%s", tc.width, longest, tc.want, got)
		}
	}
}

// A reply of nothing but blank lines, in pieces or whole, draws nothing:
// no line of a time alone, no blank line.
func TestBlankRepliesDrawNothing(t *testing.T) {
	got := show(t, 80,
		env("1780000000", "", "user_message", `{"text":"hi"}`),
		env("1780000001", "", "assistant_message", `{"text":"\n\n"}`),
		env("1780000002", "", "message_update", `{"type":"text_delta","delta":"\n"}`),
		env("1780000002", "", "message_update", `{"type":"text_delta","delta":" \n"}`),
		env("1780000003", "", "tool_call", `{"id":"c1","tool":"bash","args":{"command":"ls"}}`),
		env("1780000004", "", "message_update", `{"type":"text_delta","delta":"\n\ndone"}`),
	)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if strings.TrimSpace(l) == "" || len(strings.Fields(l)) == 1 && strings.Contains(l, ":") {
			t.Errorf("a line of nothing, %q, in:\n%s", l, got)
		}
	}
	if !strings.Contains(got, "done") {
		t.Errorf("the reply is not shown:\n%s", got)
	}
}

// A run's footer wraps at the width, its parts whole, instead of being
// cut: at 80 columns the tool calls and their failures are still read.
func TestRunFooterWraps(t *testing.T) {
	got := show(t, 80,
		env("1780000000", "", "run_started", `{"model":"deepseek-v4-pro"}`),
		env("1780000001", "", "model_call", `{"step":1,"model":"deepseek-v4-pro"}`),
		env("1780000002", "", "model_result", `{"step":1,"input":123456,"output":7890,"total":131346,"cost_usd":12.3456}`),
		env("1780000003", "", "tool_call", `{"id":"c1","tool":"bash","args":{"command":"make"}}`),
		env("1780000004", "", "tool_result", `{"id":"c1","tool":"bash","ok":false}`),
		env("1780000005", "", "model_call", `{"step":2,"model":"deepseek-v4-pro"}`),
		env("1780000006", "", "model_result", `{"step":2,"input":10,"output":2,"total":12,"cost_usd":0.0001}`),
		env("1780000007", "", "run_finished", `{"outcome":"error","wall_seconds":1234.5}`),
	)
	if strings.Contains(got, "…") {
		t.Errorf("a line is cut:\n%s", got)
	}
	footer := got[strings.LastIndex(got, " run "):]
	for _, part := range []string{"ERROR", "20m35s", "$12.3457", "131,358 tokens", "2 model calls", "1 tool call (1 failed)"} {
		if !strings.Contains(footer, part) {
			t.Errorf("the footer has no %q:\n%s", part, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
}

// A call whose log kept no usage (evimport's "no_usage":true) is not shown
// as "in 0 out 0": the line and the run's footer say it is not known.
func TestNoUsageNotShownAsFree(t *testing.T) {
	got := show(t, 80,
		env("1780000000", "", "run_started", `{"model":"gpt-5-codex"}`),
		env("1780000001", "", "model_call", `{"step":1,"model":"gpt-5-codex"}`),
		env("1780000002", "", "model_result", `{"step":1,"model":"gpt-5-codex","no_usage":true}`),
		env("1780000003", "", "run_finished", `{"outcome":"ok","wall_seconds":3}`),
	)
	if strings.Contains(got, "in 0 out 0") {
		t.Errorf("a call without usage is shown as free:\n%s", got)
	}
	for _, want := range []string{"usage not recorded", "1 model call (1 without usage)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the view does not say %q:\n%s", want, got)
		}
	}
}

// A run's footer counts the model calls made, as evsum and the transcript
// do: one that failed before its result is counted, and a result that is
// no call (Copilot CLI's session totals, "usage_of":"session") is not; nor
// is the time since the last call shown as its latency.
func TestModelCallsCountedAsEvsum(t *testing.T) {
	got := show(t, 80,
		env("1780000000", "", "run_started", `{"model":"claude-sonnet-4.6"}`),
		env("1780000001", "", "model_call", `{"step":1,"model":"claude-sonnet-4.6"}`),
		env("1780000002", "", "model_result", `{"step":1,"model":"claude-sonnet-4.6","input":0,"output":79,"total":79}`),
		env("1780000003", "", "model_call", `{"step":2,"model":"claude-sonnet-4.6"}`),
		env("1780000004", "", "model_error", `{"step":2,"error":"overloaded"}`),
		env("1780000005", "", "model_call", `{"step":3,"model":"claude-sonnet-4.6"}`),
		env("1780000006", "", "model_error", `{"step":3,"error":"overloaded"}`),
		env("1780000009", "", "model_result", `{"step":2,"model":"claude-sonnet-4.6","input":48243,"output":0,"total":48243,"usage_of":"session"}`),
		env("1780000010", "", "run_finished", `{"outcome":"ok","wall_seconds":10}`),
	)
	footer := got[strings.LastIndex(got, " run "):]
	if !strings.Contains(footer, "3 model calls") {
		t.Errorf("the footer does not count the 3 model calls made:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.Contains(l, "48,243") && strings.Contains(l, "4.00s") {
			t.Errorf("a result without its call is given a latency: %q", l)
		}
	}
}

// A session's totals without a call of their own (evimport's Copilot CLI
// "usage_of":"session") are said to be so, not shown as one more call.
func TestSessionTotalsNamed(t *testing.T) {
	got := show(t, 80,
		env("1780000000", "", "run_started", `{"model":"claude-sonnet-4.6"}`),
		env("1780000001", "", "model_call", `{"step":1,"model":"claude-sonnet-4.6"}`),
		env("1780000002", "", "model_result", `{"step":1,"model":"claude-sonnet-4.6","output":80}`),
		env("1780000003", "", "model_result", `{"step":1,"model":"claude-sonnet-4.6","input":48000,"output":0,"usage_of":"session"}`),
		env("1780000004", "", "run_finished", `{"outcome":"ok","wall_seconds":3}`),
	)
	if !strings.Contains(got, "session totals") || !strings.Contains(got, "1 model call") {
		t.Errorf("the session's totals are not said to be so:\n%s", got)
	}
}
