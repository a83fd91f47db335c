package zot2gp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/devtools/picheck"
	"github.com/evtools/evtools/pkg/jsonscan"
)

func piConvert(t testing.TB, cfg config, clock bool, input string) (out string, p *piConverter) {
	t.Helper()
	c := mustConverter(t, cfg)
	c.startInput(clock)
	p = newPiConverter(c)
	var buf []byte
	for _, l := range strings.Split(input, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var err error
		if buf, _, err = p.convert(buf, []byte(l)); err != nil {
			t.Logf("bad line %q: %v", l, err)
		}
	}
	return string(p.finish(buf)), p
}

// On a live input, an event without a time of its own gets the clock's
// time, in milliseconds; one with a time keeps it.
func TestPiClock(t *testing.T) {
	out, _ := piConvert(t, config{SeqStart: "1", Agent: "zot"}, true,
		`{"content":[{"text":"hi","type":"text"}],"time":"2026-06-21T22:36:06.817Z","type":"user_message"}
{"type":"assistant_start"}
{"type":"done"}`)
	want := []string{`"timestamp":1782081366817}`, `"stopReason":"pending","timestamp":` + "1796000523456" + `}`}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("no %s in\n%s", w, out)
		}
	}
	if ms := millis([]byte("1782081366.8179")); ms != 1782081366817 {
		t.Errorf("millis = %d", ms)
	}
	if ms := millis([]byte("-0.5")); ms != -500 {
		t.Errorf("millis(-0.5) = %d", ms)
	}
}

// compact drops the whitespace of a JSON text, and only that.
func TestPiCompact(t *testing.T) {
	for in, want := range map[string]string{
		"{ \"a\" : [ 1, 2 ] ,\n\t\"b\":\"x y\\\" z\" }": `{"a":[1,2],"b":"x y\" z"}`,
		`{}`: `{}`,
	} {
		if got := string(compact(nil, []byte(in))); got != want {
			t.Errorf("compact(%q) = %s, want %s", in, got, want)
		}
	}
}

// A zot type in the dropped report: as it is when it is a plain name,
// quoted when it could mislead on a terminal or in a log.
func TestPiTypeName(t *testing.T) {
	for _, plain := range []string{"azAZ09_-.", "compaction", "a.b-c_D9"} {
		if got := typeName(plain); got != plain {
			t.Errorf("typeName(%q) = %s", plain, got)
		}
	}
	for _, odd := range []string{"`", "{", "@", "[", "/", ":", " ", "é", "a\nb", "a b", "x\x1b[31m"} {
		if got := typeName(odd); got[0] != '"' {
			t.Errorf("typeName(%q) = %s, want it quoted", odd, got)
		}
	}
}

// The model's name comes from a zot event that names it in a string.
func TestPiModel(t *testing.T) {
	out, _ := piConvert(t, config{SeqStart: "1", Agent: "zot", Stable: true}, false,
		`{"model":5,"type":"assistant_start"}
{"type":"done"}
{"model":"deepseek-chat","type":"assistant_start"}
{"type":"done"}`)
	if strings.Count(out, `"model":"unknown"`) != 4 || strings.Count(out, `"model":"deepseek-chat"`) != 4 {
		t.Errorf("models:\n%s", out)
	}
}

// FuzzPi: whatever zot lines come, in whatever order, --format pi writes
// what pi's protocol allows (every rule of picheck: one JSON object a
// line, runs, turns and messages nested and ended, each call started,
// ended and given its result once, texts the joined deltas).
func FuzzPi(f *testing.F) {
	seeds, _ := filepath.Glob("../../../examples/zot/*.jsonl")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\"type\":\"tool_result\",\"id\":\"x\"}\n{\"type\":\"tool_use_args\",\"delta\":\"{\\\"a\\\":1}\"}\n{\"type\":\"error\"}\n"))
	f.Add([]byte("{\"type\":\"assistant_message\",\"content\":[{\"type\":\"tool_call\",\"id\":\"a\",\"args\":\"{}\"},{\"type\":\"tool_call\",\"id\":\"a\"}]}\n{\"type\":\"turn_end\",\"stop\":7}\n"))
	// The three faults of issue 21: progress after done, a result twice,
	// a result after the next turn_start.
	f.Add([]byte(`{"type":"tool_use_start","id":"c","name":"bash"}
{"type":"assistant_message","content":[{"type":"tool_call","id":"c","name":"bash"}]}
{"type":"turn_end","stop":"tool_use"}
{"type":"tool_result","id":"c","content":"a"}
{"type":"tool_result","id":"c","content":"a"}
{"type":"turn_start","step":2}
{"type":"tool_result","id":"c","content":"a"}
{"type":"done"}
{"type":"tool_progress","id":"c","text":"a"}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _ := piConvert(t, config{SeqStart: "1", Agent: "zot", Stable: true}, false, string(data))
		if err := picheck.Check([]byte(out)); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	})
}

// A JSON string decoded and encoded again a piece at a time (appendText)
// is the string decoded and encoded whole, wherever pieceEnd splits it:
// escapes, surrogate pairs (whole, or halves alone), invalid UTF-8, runes
// of every length, U+2028, a string of escapes only.
func TestPiTextPieces(t *testing.T) {
	for _, raw := range []string{
		`""`, `"plain ascii"`, `"a\"b\\c\/d\n\t\u0041\u00e9"`, `"\ud83d\ude00 pair, \ud83d alone, \ude00 alone, \ud83d\u0041"`,
		"\"caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80 \xff\xfe bad \xe2\x82 cut\"", `"\n\n\n\n\n\n\n\n\n\n"`,
		`"\u2028\u2029\u0085\u007f"`, "\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\"",
	} {
		checkPieces(t, []byte(raw))
	}
}

func checkPieces(t *testing.T, raw []byte) {
	t.Helper()
	dec, ok := jsonscan.Unquote(nil, raw)
	if !ok {
		return
	}
	want := string(jsontext.AppendStringContent(nil, dec))
	p := &piConverter{}
	s := raw[1 : len(raw)-1]
	for n := 1; n <= 13; n++ {
		var got []byte
		for rest := s; len(rest) > 0; {
			k := pieceEnd(rest, n)
			if k < min(n, len(rest)) {
				t.Fatalf("%q: piece of %d bytes, want at least %d", raw, k, min(n, len(rest)))
			}
			got = p.appendPiece(got, rest[:k])
			rest = rest[k:]
		}
		if string(got) != want {
			t.Fatalf("%q in pieces of %d: %q, want %q", raw, n, got, want)
		}
	}
	if got := string(p.appendText(nil, raw)); got != want {
		t.Fatalf("appendText(%q) = %q, want %q", raw, got, want)
	}
}

// FuzzPiTextPieces: whatever a JSON string holds, pieces of it decode and
// encode to the whole's text.
func FuzzPiTextPieces(f *testing.F) {
	f.Add([]byte(`"\ud83d\ude00\n\u2028 caf` + "\xc3\xa9\xff" + `"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
			raw = append(append([]byte{'"'}, raw...), '"')
		}
		checkPieces(t, raw)
	})
}
