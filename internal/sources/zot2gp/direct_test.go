package zot2gp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/shell/cli"
)

// With a direct writer, convert writes a long raw part of the line (the
// payload, or a stretch of the bare object) straight from the input; what
// comes out, the direct writes then the rest returned, is the very line
// convert builds without one.
func TestDirectWritesTheSameBytes(t *testing.T) {
	defer func(n int) { directMin = n }(directMin)
	var lines [][]byte
	for _, name := range []string{"auth-401.jsonl", "uname.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "zot", name))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	}
	// A long delta with escapes, before and after its type; types in
	// several places (bare replaces each); an unmapped type; a bad line.
	long := strings.Repeat(`a\"b\\c\n\u00e9\u2028 {}[],:`, 9000)
	lines = append(lines,
		[]byte(`{"delta":"`+long+`","type":"text_delta"}`),
		[]byte(`{"type":"text_delta","delta":"`+long+`"}`),
		[]byte(`  {"type":"tool_result","result":{"type":"x","out":"`+long+`"},"type":"tool_result"}  `),
		[]byte(`{"type":"no_such_type","x":"`+long+`"}`),
		[]byte(`{"type":"text_delta","delta":"`+long+`"`),
	)
	for _, cfg := range []config{{SeqStart: "1", Stable: true}, {SeqStart: "7", Stable: true, Bare: true}, {SeqStart: "1", Stable: true, UI: true}} {
		for _, min := range []int{1, 2, 64 << 10} {
			directMin = min
			plain, direct := mustConverter(t, cfg), mustConverter(t, cfg)
			var out bytes.Buffer
			direct.direct = &out
			for i, l := range lines {
				want, wrote, werr := plain.convert(nil, l)
				got, gwrote, gerr := direct.convert(nil, l)
				if wrote != gwrote || (werr == nil) != (gerr == nil) {
					t.Fatalf("%+v min %d line %d: written %v, %v; err %v, %v", cfg, min, i, wrote, gwrote, werr, gerr)
				}
				if !gwrote && out.Len() > 0 {
					t.Fatalf("%+v min %d line %d: %d bytes written for a line not written", cfg, min, i, out.Len())
				}
				out.Write(got)
				if !bytes.Equal(out.Bytes(), want) {
					t.Fatalf("%+v min %d line %d: direct gives\n%.300q\nwant\n%.300q", cfg, min, i, out.Bytes(), want)
				}
				out.Reset()
			}
		}
	}
}

// zot2gp gives the same bytes for events whose payload it writes straight
// from the input (longer than directMin) as convert builds whole.
func TestMainLongPayloads(t *testing.T) {
	unit := `x\"y\\z\n`
	long := strings.Repeat(unit, 40000)
	var in bytes.Buffer
	for i := range 6 {
		in.WriteString(`{"step":1,"type":"turn_start"}` + "\n")
		in.WriteString(`{"delta":"` + long[:len(long)-i*len(unit)] + `","type":"text_delta"}` + "\n")
	}
	in.WriteString(`{"type":"done"}` + "\n")
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"envelope", "bare"} {
		c := mustConverter(t, config{SeqStart: "1", Stable: true, Bare: format == "bare", RunID: "r", Agent: "zot"})
		var want []byte
		for _, l := range bytes.SplitAfter(in.Bytes(), []byte("\n")) {
			if len(l) > 0 {
				want, _, _ = c.convert(want, bytes.TrimSuffix(l, []byte("\n")))
			}
		}
		var out, errb bytes.Buffer
		if code := Main([]string{"--ts=stable", "--run-id=r", "--format=" + format, path}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 || errb.Len() > 0 {
			t.Fatalf("%s: exit %d, stderr %q", format, code, errb.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: %d bytes out, want %d: not the lines convert builds", format, out.Len(), len(want))
		}
	}
}
