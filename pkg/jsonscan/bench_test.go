package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
)

// benchLines are envelope events shaped like the shipped examples'
// (200-2000 bytes, mostly ASCII strings, some escapes, nested payloads).
var benchLines = func() []string {
	out := `total 48\ndrwxr-xr-x  5 dev dev 4096 Jun 21 22:36 .\ndrwxr-xr-x 12 dev dev 4096 Jun 21 22:30 ..\n` +
		`-rw-r--r--  1 dev dev  812 Jun 21 22:36 go.mod\n-rw-r--r--  1 dev dev 2311 Jun 21 22:36 \"main.go\"\n`
	text := `The kernel is FreeBSD 15.0-RELEASE-p10 \u2014 I ran ` + "`uname -a`" +
		` and it reported the release, the patch level and the build host. ` +
		`Nothing else in the output needs attention; the machine is up to date as of the last security advisory. `
	return []string{
		`{"seq":12,"ts":1758800000.12,"run_id":"r_9f3a2c71","agent_id":"code-reviewer","kind":"tool_call",` +
			`"payload":{"step":3,"tool":"bash","args":{"argv":["ls","-la","/home/dev/project"],"cwd":"/home/dev/project","timeout_s":30}}}`,
		`{"seq":13,"ts":1758800001.57,"run_id":"r_9f3a2c71","agent_id":"code-reviewer","kind":"tool_result",` +
			`"payload":{"step":3,"tool":"bash","ok":true,"exit_code":0,"output":"` + strings.Repeat(out, 4) + `","truncated":false}}`,
		`{"seq":14,"ts":1758800003.9,"run_id":"r_9f3a2c71","agent_id":"code-reviewer","kind":"model_result",` +
			`"payload":{"step":4,"decision_kind":"final","tokens":18422,"prompt_tokens":17893,"completion_tokens":529,` +
			`"cost_usd":0.0041835,"latency_ms":2318,"provider":"deepseek","model":"deepseek-v4-pro","shimmed":false}}`,
		`{"seq":15,"ts":1758800004.01,"run_id":"r_9f3a2c71","agent_id":"parent","kind":"assistant_message",` +
			`"payload":{"text":"` + strings.Repeat(text, 5) + `","output":null,"source":"synth"}}`,
		`{"seq":3,"ts":1758799990.5,"run_id":"r_9f3a2c71","agent_id":"code-reviewer","kind":"agent_spawned",` +
			`"payload":{"parent_id":"parent","role":"code-reviewer","bundle":null,"version":"1.4.2","intent":"review the diff for ` +
			`error handling and tests","depends_on":["planner","linter"],"tools":["read_file","grep","bash"],"require_tool":"read_file",` +
			`"model":{"provider":"deepseek","base_url":"https://api.deepseek.com/v1","model":"deepseek-v4-pro","source":"bundle",` +
			`"reason":"bundle default"},"budget":{"tokens":200000,"wall_seconds":600,"max_steps":40},"config":{"temperature":0.2,` +
			`"top_p":0.95,"stop":["\n\nHuman:","</answer>"]},"read_only":true}}`,
		`{"seq":7,"ts":1758799995.25,"run_id":"r_9f3a2c71","agent_id":"","kind":"message_end","payload":{"content":[{"args":` +
			`{"command":"uname -a"},"id":"call_00_b7e1f0","name":"bash","type":"tool_call"},{"text":"Let me check the kernel.",` +
			`"type":"text"}],"time":"2026-06-21T22:36:06.817Z","type":"assistant_message"}}`,
	}
}()

func benchData() ([][]byte, int64) {
	var lines [][]byte
	var n int64
	for _, l := range benchLines {
		if err := Check([]byte(l)); err != nil {
			panic("bench line is invalid: " + err.Error())
		}
		lines = append(lines, []byte(l))
		n += int64(len(l))
	}
	return lines, n
}

func BenchmarkCheck(b *testing.B) {
	lines, n := benchData()
	benchCheck(b, lines, n)
}

func benchCheck(b *testing.B, lines [][]byte, n int64) {
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if Check(l) != nil {
				b.Fatal("invalid")
			}
		}
	}
}

// BenchmarkJSONValid is the reference: encoding/json's validator on the same lines.
func BenchmarkJSONValid(b *testing.B) {
	lines, n := benchData()
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if !json.Valid(l) {
				b.Fatal("invalid")
			}
		}
	}
}

// BenchmarkMembers finds kind and seq the way evfilter and evcursor do.
func BenchmarkMembers(b *testing.B) {
	lines, n := benchData()
	benchMembers(b, lines, n)
}

func benchMembers(b *testing.B, lines [][]byte, n int64) {
	b.SetBytes(n)
	b.ReportAllocs()
	hits := 0
	fn := func(k, v []byte) {
		if KeyIs(k, "kind") && StringEquals(v, "tool_call") {
			hits++
		}
	}
	for b.Loop() {
		for _, l := range lines {
			if Members(l, fn) != nil {
				b.Fatal("invalid")
			}
		}
	}
	if hits == 0 {
		b.Fatal("no tool_call found")
	}
}

// BenchmarkLookup descends to a nested value without validating.
func BenchmarkLookup(b *testing.B) {
	lines, n := benchData()
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, ok := Lookup(l, "payload", "step"); !ok && KindOf(l) != Object {
				b.Fatal("not an object")
			}
		}
	}
}

// BenchmarkCheckLookupKind is evfilter's whole test for kind=="tool_call".
func BenchmarkCheckLookupKind(b *testing.B) {
	lines, n := benchData()
	b.SetBytes(n)
	b.ReportAllocs()
	hits := 0
	for b.Loop() {
		for _, l := range lines {
			if Check(l) != nil {
				b.Fatal("invalid")
			}
			if v, ok := Lookup(l, "kind"); ok && StringEquals(v, "tool_call") {
				hits++
			}
		}
	}
	if hits == 0 {
		b.Fatal("no tool_call found")
	}
}

// BenchmarkJSONUnmarshalKind is the slow way evtools avoids: decoding the envelope.
func BenchmarkJSONUnmarshalKind(b *testing.B) {
	lines, n := benchData()
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			var e struct{ Kind string }
			if err := json.Unmarshal(l, &e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// corpusLines are the lines of a generated envelope corpus (make bench's
// shape: ~290 bytes a line, short keys, numbers and strings), where the cost
// per token matters more than the cost per byte.
func corpusLines(b *testing.B) ([][]byte, int64) {
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, 4<<20, 1); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	return lines, int64(buf.Len())
}

func BenchmarkCheckCorpus(b *testing.B) {
	lines, n := corpusLines(b)
	benchCheck(b, lines, n)
}

// BenchmarkMembersCorpus is evfilter's kind=="tool_call" on the corpus.
func BenchmarkMembersCorpus(b *testing.B) {
	lines, n := corpusLines(b)
	benchMembers(b, lines, n)
}

// BenchmarkNestedCorpus is evsum's read of an event on the corpus.
func BenchmarkNestedCorpus(b *testing.B) {
	lines, n := corpusLines(b)
	b.SetBytes(n)
	for b.Loop() {
		for _, l := range lines {
			if Nested(l, func(key, value []byte) {}, func(parent, key, value []byte) {}) != nil {
				b.Fatal("invalid")
			}
		}
	}
}

// BenchmarkObjects reads a message's content blocks, a tool's long
// output among them: one walk (Objects) against Elements then Each, the
// way evimport read them before.
func BenchmarkObjects(b *testing.B) {
	out := strings.Repeat(`    41\t\tif err != nil {\n\t\t\treturn fmt.Errorf(\"read %s: %w\", name, err)\n`, 40)
	data := []byte(`[{"type":"text","text":"Looking at the file."},{"tool_use_id":"toolu_01","type":"tool_result","content":"` + out + `","is_error":false}]`)
	count := func(k, v []byte) bool { return len(k) > 0 }
	b.Run("objects", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			Objects(data, func(byte) {}, count)
		}
	})
	b.Run("elements-each", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			Elements(data, func(v []byte) bool {
				if v[0] == '{' {
					Each(v, count)
				}
				return true
			})
		}
	})
}

// BenchmarkUnquote decodes a tool's output as logs hold it: lines of
// code and prose, a newline escaped every forty bytes or so.
func BenchmarkUnquote(b *testing.B) {
	var s strings.Builder
	s.WriteByte('"')
	for range 200 {
		s.WriteString(`\tif err := run(ctx, \"checkout\"); err != nil {\n\t\treturn fmt.Errorf(\"run: %w\", err)\n\t}\n`)
	}
	s.WriteByte('"')
	data := []byte(s.String())
	b.SetBytes(int64(len(data)))
	var dst []byte
	for b.Loop() {
		var ok bool
		if dst, ok = Unquote(dst[:0], data); !ok {
			b.Fatal("not a JSON string")
		}
	}
}

// BenchmarkTape checks a Gemini CLI line whose tool call's output is four
// levels down, then reads that output: from a tape the check filled, or
// walking the levels again with Objects and Each, as evimport did
// before the tape.
func BenchmarkTape(b *testing.B) {
	out := strings.Repeat(`ok  \tgithub.com/acme/colibri/internal/cache\t0.214s\n`, 200)
	line := []byte(`{"id":"m1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"go test ./..."},"status":"success","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"` + out + `"}}}]}],"tokens":{"input":10,"output":2}}`)
	calls, _ := Lookup(line, "toolCalls")
	b.Run("tape", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		var tape Tape
		in := Inner{Spans: make([]Span, 0, 64), Deep: &tape}
		// find reports whether the keys of path ("" for an element) lead
		// down from the container v, read from the tape
		var find func(v []byte, path ...string) bool
		find = func(v []byte, path ...string) bool {
			spans, _ := tape.Container(line, v)
			for _, sp := range spans {
				key := ""
				if sp.KeyStart >= 0 {
					key = string(line[sp.KeyStart:sp.KeyEnd])
				}
				if key == path[0] && (len(path) == 1 || find(line[sp.ValueStart:sp.ValueEnd], path[1:]...)) {
					return true
				}
			}
			return false
		}
		for b.Loop() {
			if NestedSpans(line, func(k, v []byte) {}, &in) != nil {
				b.Fatal("invalid")
			}
			if !find(calls, "", "result", "", "functionResponse", "response", "output") {
				b.Fatal("no output on the tape")
			}
		}
	})
	// the check noting plain strings (NotePlain), and the output found
	// plain from it: what evimport pays instead of a Canonical walk
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		tape := Tape{NotePlain: true}
		in := Inner{Spans: make([]Span, 0, 64), Deep: &tape}
		at := bytes.Index(line, []byte(`"output":`)) + len(`"output":`)
		output := line[at : at+len(out)+2]
		for b.Loop() {
			if NestedSpans(line, func(k, v []byte) {}, &in) != nil {
				b.Fatal("invalid")
			}
			if !tape.Plain(line, output) {
				b.Fatal("the output is not found plain")
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		in := Inner{Spans: make([]Span, 0, 64)}
		for b.Loop() {
			if NestedSpans(line, func(k, v []byte) {}, &in) != nil {
				b.Fatal("invalid")
			}
			found := false
			Objects(calls, func(byte) {}, func(k, v []byte) bool {
				if string(k) == "result" {
					Objects(v, func(byte) {}, func(k, v []byte) bool {
						Each(v, func(k, v []byte) bool {
							Each(v, func(k, v []byte) bool { found = found || string(k) == "output"; return true })
							return true
						})
						return true
					})
				}
				return true
			})
			if !found {
				b.Fatal("no output walked to")
			}
		}
	})
}
