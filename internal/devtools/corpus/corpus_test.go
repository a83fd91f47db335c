package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

type generator struct {
	name string
	gen  func(io.Writer, int64, uint64) error
}

var generators = []generator{{"zot", Zot}, {"envelope", Envelope}}

func generate(t testing.TB, g func(io.Writer, int64, uint64) error, n int64, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := g(&buf, n, seed); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// splitLines splits on \n only, as the tools do: a raw U+2028 stays inside
// its line.
func splitLines(b []byte) [][]byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.Split(b, []byte("\n"))
}

func TestDeterministic(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			a := generate(t, g.gen, 300<<10, 7)
			b := generate(t, g.gen, 300<<10, 7)
			if !bytes.Equal(a, b) {
				t.Fatal("two runs with the same seed differ")
			}
			c := generate(t, g.gen, 300<<10, 8)
			if bytes.Equal(a[:4096], c[:4096]) {
				t.Fatal("another seed gives the same start")
			}
			// a smaller size is a prefix of a larger one: whole runs, same stream
			small := generate(t, g.gen, 100<<10, 7)
			if !bytes.HasPrefix(a, small) {
				t.Fatal("the 100K corpus is not a prefix of the 300K one")
			}
		})
	}
}

func TestSizeAndWholeRuns(t *testing.T) {
	for _, g := range generators {
		for _, n := range []int64{0, 1, 5000, 64 << 10, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", g.name, n), func(t *testing.T) {
				b := generate(t, g.gen, n, 3)
				if int64(len(b)) < n {
					t.Fatalf("got %d bytes, want at least %d", len(b), n)
				}
				if n == 0 {
					if len(b) != 0 {
						t.Fatalf("size 0 gave %d bytes", len(b))
					}
					return
				}
				if b[len(b)-1] != '\n' {
					t.Fatal("output does not end with a newline")
				}
				lines := splitLines(b)
				last := lines[len(lines)-1]
				switch g.name {
				case "zot":
					if !bytes.Equal(last, []byte(`{"type":"done"}`)) && !bytes.Contains(last, []byte(`"success":false`)) {
						t.Fatalf("last line is not the end of a run: %s", last)
					}
				case "envelope":
					if !bytes.Contains(last, []byte(`"kind":"run_finished"`)) {
						t.Fatalf("last line is not run_finished: %s", last)
					}
				}
			})
		}
	}
}

func TestLinesAreJSONObjects(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			b := generate(t, g.gen, 2<<20, 11)
			for i, line := range splitLines(b) {
				if !utf8.Valid(line) {
					t.Fatalf("line %d is not valid UTF-8", i+1)
				}
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("line %d: %v: %.200s", i+1, err, line)
				}
			}
		})
	}
}

// keys returns the top-level keys of a JSON object in their order.
func keys(t *testing.T, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var ks []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return ks
}

type envEvent struct {
	Seq     int64                      `json:"seq"`
	TS      float64                    `json:"ts"`
	RunID   string                     `json:"run_id"`
	AgentID *string                    `json:"agent_id"`
	Kind    string                     `json:"kind"`
	Payload map[string]json.RawMessage `json:"payload"`
}

func TestEnvelopeInvariants(t *testing.T) {
	b := generate(t, Envelope, 1<<20, 5)
	wantKeys := "seq,ts,run_id,agent_id,kind,payload"
	seen := map[string]int{}
	runs := map[string]bool{}
	var prev envEvent
	finished := true  // no run open before the first line
	sizes := [3]int{} // lines under 150 bytes, 150-600, over 600
	for i, line := range splitLines(b) {
		if ks := strings.Join(keys(t, line), ","); ks != wantKeys {
			t.Fatalf("line %d: keys %s, want %s", i+1, ks, wantKeys)
		}
		var e envEvent
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case len(line) < 150:
			sizes[0]++
		case len(line) <= 600:
			sizes[1]++
		default:
			sizes[2]++
		}
		if e.Seq != int64(i+1) {
			t.Fatalf("line %d: seq %d, want %d", i+1, e.Seq, i+1)
		}
		if i > 0 && e.TS <= prev.TS {
			t.Fatalf("line %d: ts %v does not follow %v", i+1, e.TS, prev.TS)
		}
		if e.AgentID == nil || e.Payload == nil {
			t.Fatalf("line %d: agent_id or payload missing", i+1)
		}
		if finished {
			// a new run: a new id, never seen before
			if e.Kind != "user_message" || runs[e.RunID] {
				t.Fatalf("line %d: run %s starts with %s", i+1, e.RunID, e.Kind)
			}
			runs[e.RunID] = true
			finished = false
		} else if e.RunID != prev.RunID {
			t.Fatalf("line %d: run %s began before %s finished", i+1, e.RunID, prev.RunID)
		}
		if e.Kind == "run_finished" {
			if prev.RunID != e.RunID || (prev.Kind != "assistant_message" && prev.Kind != "run_error") {
				t.Fatalf("line %d: run_finished after %s of run %s", i+1, prev.Kind, prev.RunID)
			}
			finished = true
		}
		seen[e.Kind]++
		prev = e
	}
	if !finished {
		t.Fatal("the last run has no run_finished")
	}
	for _, k := range Kinds {
		if seen[k] == 0 {
			t.Errorf("kind %s never appears in 1 MB", k)
		}
	}
	if len(seen) != len(Kinds) {
		t.Errorf("kinds seen %v, want only the %d of the run-log vocabulary", seen, len(Kinds))
	}
	if seen["run_finished"] != len(runs) {
		t.Errorf("%d run_finished for %d runs", seen["run_finished"], len(runs))
	}
	if sizes[1] < 4*(sizes[0]+sizes[2]) || sizes[2] == 0 {
		t.Errorf("line sizes <150/150-600/>600: %v, want mostly 150-600 and some larger", sizes)
	}
}

type zotEvent struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Delta   string          `json:"delta"`
	Args    json.RawMessage `json:"args"`
	Stop    string          `json:"stop"`
	IsError *bool           `json:"is_error"`
	Success *bool           `json:"success"`
}

func TestZotArgsDeltasAreTheArgs(t *testing.T) {
	b := generate(t, Zot, 2<<20, 9)
	args := map[string]*strings.Builder{}
	calls := 0
	for i, line := range splitLines(b) {
		var e zotEvent
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "tool_use_start":
			args[e.ID] = &strings.Builder{}
		case "tool_use_args":
			sb := args[e.ID]
			if sb == nil {
				t.Fatalf("line %d: args for %s before its tool_use_start", i+1, e.ID)
			}
			sb.WriteString(e.Delta)
		case "tool_call":
			sb := args[e.ID]
			if sb == nil {
				t.Fatalf("line %d: tool_call %s never started", i+1, e.ID)
			}
			var streamed, complete any
			if err := json.Unmarshal([]byte(sb.String()), &streamed); err != nil {
				t.Fatalf("line %d: deltas of %s are not JSON: %v: %.200s", i+1, e.ID, err, sb.String())
			}
			if err := json.Unmarshal(e.Args, &complete); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(streamed) != fmt.Sprint(complete) {
				t.Fatalf("line %d: streamed args %v, tool_call args %v", i+1, streamed, complete)
			}
			calls++
		}
	}
	if calls < 100 {
		t.Fatalf("only %d tool calls in 2 MB", calls)
	}
}

func TestZotRunShapes(t *testing.T) {
	b := generate(t, Zot, 6<<20, 13)
	count := map[string]int{}
	var prev zotEvent
	inRun := false
	for i, line := range splitLines(b) {
		var e zotEvent
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Type == "response" && e.Success != nil && !*e.Success:
			count["refused"]++
			if inRun {
				t.Fatalf("line %d: refused prompt inside a run", i+1)
			}
		case e.Type == "response":
			if inRun {
				t.Fatalf("line %d: response inside a run", i+1)
			}
			inRun = true
		case !inRun:
			t.Fatalf("line %d: %s outside a run", i+1, e.Type)
		case e.Type == "done":
			inRun = false
		case e.Type == "error":
			if prev.Type != "turn_end" || prev.Stop != "error" {
				t.Fatalf("line %d: error after %s", i+1, prev.Type)
			}
			count["failed"]++
		case e.Type == "tool_result" && *e.IsError:
			count["tool error"]++
		}
		if len(line) > 20<<10 {
			count["long"]++
		}
		if bytes.Contains(line, []byte("\u2028")) {
			count["raw U+2028"]++
		}
		if bytes.Contains(line, []byte(`\u00`)) {
			count["escaped unicode"]++
		}
		count[e.Type]++
		prev = e
	}
	for _, want := range []string{"refused", "failed", "tool error", "long", "raw U+2028", "escaped unicode",
		"tool_progress", "text_delta", "usage", "assistant_start"} {
		if count[want] == 0 {
			t.Errorf("no %s in 6 MB: %v", want, count)
		}
	}
}

func TestAppendFixed(t *testing.T) {
	for _, c := range []struct {
		v    int64
		dec  int
		want string
	}{
		{0, 3, "0.0"},
		{1793491200000, 3, "1793491200.0"},
		{1793491200120, 3, "1793491200.12"},
		{1793491200007, 3, "1793491200.007"},
		{41230, 8, "0.0004123"},
		{123456789, 8, "1.23456789"},
		{-250, 2, "-2.5"},
	} {
		if got := string(appendFixed(nil, c.v, c.dec)); got != c.want {
			t.Errorf("appendFixed(%d, %d) = %s, want %s", c.v, c.dec, got, c.want)
		}
	}
}

// FuzzAppendForeign checks that both foreign spellings give JSON that
// reads back as the same string, and that each is the spelling it claims:
// spellASCII has no byte above 0x7f, spellRaw escapes nothing but what
// JSON requires (a raw U+2028 stays raw, unlike evtools' own quoting).
func FuzzAppendForeign(f *testing.F) {
	for _, s := range []string{"", "plain", "tab\tquote\"back\\slash", "\x1b[31m", "größe\u2028日本🚀", "\x00\x7f\u009b", "\U00010000\uffff\U0010ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip()
		}
		for _, sp := range []spelling{spellRaw, spellASCII} {
			b := appendForeign(nil, s, sp)
			var got string
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("spelling %d: %v: %s", sp, err, b)
			}
			if got != s {
				t.Fatalf("spelling %d: read back %q, want %q", sp, got, s)
			}
			switch sp {
			case spellASCII:
				for _, c := range b {
					if c >= utf8.RuneSelf {
						t.Fatalf("ascii output has byte %#x: %s", c, b)
					}
				}
			case spellRaw:
				for _, r := range s {
					if r >= utf8.RuneSelf && !bytes.ContainsRune(b, r) {
						t.Fatalf("raw output escaped %U: %s", r, b)
					}
				}
			}
		}
	})
}

// The package promises the same bytes for the same seed, forever, so that
// benchmark corpora can be remade instead of stored: these digests hold
// it. A change to the generator that moves them changes every corpus and
// every figure measured on one; make it on purpose, and update them.
func TestSameBytesForever(t *testing.T) {
	for _, g := range generators {
		want := map[string]string{
			"zot":      "dfb8417253c79fa479824e62fde8bb583dfbc365a43ea9686ba3cd90d9ff6d48",
			"envelope": "3ee94c7b670f4ef1d4e8ec61f038137b1347cc8b3481d0b78ba7b04b82db8b49",
		}[g.name]
		var buf bytes.Buffer
		if err := g.gen(&buf, 1<<20, 7); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(buf.Bytes())); got != want {
			t.Errorf("%s, 1 MB, seed=7: sha256 %s, want %s", g.name, got, want)
		}
	}
	// Seed 1092 holds a long bash output whose lines reach its drawn size
	// exactly, the edge of the loop that writes them.
	var buf bytes.Buffer
	if err := Zot(&buf, 64<<10, 1092); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%x", sha256.Sum256(buf.Bytes())), "b4b373db3e2c5339ceacec302ad7bc67bf917d2f83aa19e3e1420f16ff1d3719"; got != want {
		t.Errorf("zot, 64 KB, seed=1092: sha256 %s, want %s", got, want)
	}
}

func BenchmarkGenerate(b *testing.B) {
	const n = 16 << 20
	for _, g := range generators {
		b.Run(g.name, func(b *testing.B) {
			var size int64
			for i := 0; i < b.N; i++ {
				cw := &countWriter{}
				if err := g.gen(cw, n, uint64(i)); err != nil {
					b.Fatal(err)
				}
				size = cw.n
			}
			b.SetBytes(size)
		})
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
