package pretty

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/event"
	"github.com/mattn/go-runewidth"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden renderings in testdata/golden")

// The inputs of the golden tests: one per vocabulary, one of data meant to
// break a terminal, and what evimport writes of the sessions of Claude
// Code (with subagents), Codex (with a spawned agent) and pi (with a
// compaction): the expected outputs of evimport's own tests (a file of a
// txtar archive when section is set).
var inputs = []struct{ name, path, section string }{
	{"zot", "../../../examples/zot/uname.jsonl", ""},
	{"zot-error", "../../../examples/zot/auth-401.jsonl", ""},
	{"glasspane", "../../../examples/output/zot/uname.gp.jsonl", ""},
	{"glasspane-error", "../../../examples/output/zot/auth-401.gp.jsonl", ""},
	{"runlog", "../../../examples/events/multiagent.jsonl", ""},
	{"hostile", "testdata/hostile.jsonl", ""},
	{"claude", "../../sources/evimport/testdata/claude.txtar", "want-shop.jsonl"},
	{"claude-subagents", "../../sources/evimport/testdata/claude-subagents.txtar", "want.jsonl"},
	{"codex", "../../sources/evimport/testdata/codex.txtar", "want.jsonl"},
	{"codex-agents", "../../sources/evimport/testdata/codex-agents.txtar", "want.jsonl"},
	{"pi", "../../sources/evimport/testdata/pi.txtar", "want.jsonl"},
}

// readInput reads an input of the golden tests.
func readInput(t testing.TB, path, section string) []byte {
	t.Helper()
	if section == "" {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name == section {
			return f.Data
		}
	}
	t.Fatalf("%s has no file %s", path, section)
	return nil
}

func render(t *testing.T, in []byte, width int, color bool) []byte {
	t.Helper()
	return renderWith(t, in, Options{Width: width, Color: color})
}

func renderWith(t *testing.T, in []byte, o Options) []byte {
	t.Helper()
	var out bytes.Buffer
	o.Loc = time.UTC
	r := New(&out, o)
	if _, err := r.Write(in); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Every input renders as its golden file says, at 60, 80 and 120
// columns, in colour at 120, and with every event (Options.All) at 80.
// go test ./internal/views/pretty -update rewrites them; read the diff before
// committing it.
func TestGolden(t *testing.T) {
	for _, in := range inputs {
		data := readInput(t, in.path, in.section)
		for _, o := range []Options{{Width: 60}, {Width: 80}, {Width: 120}, {Width: 120, Color: true}, {Width: 80, All: true}} {
			name := fmt.Sprintf("%s.w%d", in.name, o.Width)
			if o.Color {
				name += ".color"
			}
			if o.All {
				name += ".all"
			}
			t.Run(name, func(t *testing.T) {
				got := renderWith(t, data, o)
				golden := filepath.Join("testdata", "golden", name+".txt")
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update to write it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("rendering differs from %s (go test -update rewrites it):\n%s", golden, diffLines(string(want), string(got)))
				}
			})
		}
	}
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// What reaches the terminal: no line wider than the width, no control
// character but the newline and the colours the renderer writes itself,
// and colour only when asked for.
func TestNothingEscapesOrOverflows(t *testing.T) {
	for _, in := range inputs {
		data := readInput(t, in.path, in.section)
		for _, width := range []int{30, 60, 80, 120} {
			for _, color := range []bool{false, true} {
				out := string(render(t, data, width, color))
				if !color && strings.Contains(out, "\x1b") {
					t.Errorf("%s w%d: an escape without colour", in.name, width)
				}
				plain := sgr.ReplaceAllString(out, "")
				for i, line := range strings.Split(strings.TrimSuffix(plain, "\n"), "\n") {
					if w := runewidth.StringWidth(line); w > width {
						t.Errorf("%s w%d color=%v: line %d is %d wide: %q", in.name, width, color, i+1, w, line)
					}
					for _, c := range line {
						if c == utf8.RuneError || unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c) || c == '\u2028' || c == '\u2029' {
							t.Errorf("%s w%d: line %d sends %U to the terminal: %q", in.name, width, i+1, c, line)
						}
					}
				}
			}
		}
	}
}

// The hostile input shows its escapes as text: the reader sees that they
// were there.
func TestEscapesShownEscaped(t *testing.T) {
	data, err := os.ReadFile("testdata/hostile.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := string(render(t, data, 200, false))
	for _, want := range []string{`\x1b[31mred`, `\u009b2J`, `\u2028next`, `\u202eevil`, `\x1b]0;title\a`, `\ufffd`, `mystery`, `custom_metric`, `[1,2,3]`} {
		if !strings.Contains(out, want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
}

// Every kind of every vocabulary, and every conditional row, is in the
// golden inputs: a row added to a vocabulary needs an event here.
func TestInputsCoverEveryKind(t *testing.T) {
	seen := map[*event.Entry]bool{}
	for _, in := range inputs {
		data := readInput(t, in.path, in.section)
		var ev event.Event
		for _, line := range bytes.Split(data, []byte("\n")) {
			if ev.Read(line) == nil && ev.Entry != nil {
				seen[ev.Entry] = true
			}
		}
	}
	for _, v := range event.Vocabularies() {
		for i := range v.Entries {
			e := &v.Entries[i]
			if !seen[e] {
				t.Errorf("%s: no golden input has %s (type %q, needs %d)", v.Name, e.Kind, e.Type, e.Needs)
			}
		}
	}
}

// diffLines shows the first lines that differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			if n++; n == 5 {
				break
			}
		}
	}
	return b.String()
}

// Whatever the input, the renderer does not panic, writes no control
// character of the data, and keeps every line within the width.
func FuzzRender(f *testing.F) {
	for _, in := range inputs {
		data := readInput(f, in.path, in.section)
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line, uint8(40))
		}
	}
	f.Add([]byte(`{"kind":"message_update","payload":{"type":"text_delta","delta":"\u001b[2J\u2028 x"}}`), uint8(30))
	f.Fuzz(func(t *testing.T, line []byte, w uint8) {
		width := 30 + int(w)%100
		var out bytes.Buffer
		r := New(&out, Options{Width: width, Loc: time.UTC})
		// Twice: the second line continues what the first left open.
		r.Write(append(append([]byte{}, line...), '\n'))
		r.Write(line)
		r.Close()
		for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if n := runewidth.StringWidth(l); n > width {
				t.Fatalf("line %d is %d wide, more than %d: %q", i+1, n, width, l)
			}
			for _, c := range l {
				if c == utf8.RuneError || unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c) || c == '\u2028' || c == '\u2029' {
					t.Fatalf("line %d sends %U: %q", i+1, c, l)
				}
			}
		}
	})
}
