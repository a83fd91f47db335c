package expr

import (
	"strings"
	"testing"
)

// A user's filters file that parses but does not compile must be blamed,
// not the expression that happens to be compiled with it.
func TestLibraryAddNamesTheFile(t *testing.T) {
	for _, src := range []string{"def x: nosuch(1);\n", "def x: $nope;\n"} {
		lib := builtinLib(t)
		if err := lib.Add("mine.jq", src); err != nil {
			t.Fatal(err)
		}
		_, err := Compile(`kind == "tool_call"`, Options{Library: lib})
		if err == nil || !strings.HasPrefix(err.Error(), "mine.jq: ") {
			t.Errorf("%q: Compile error %v, want one naming mine.jq", src, err)
		}
	}
	// A global variable is the user's to bind: with it, the file compiles.
	lib := builtinLib(t)
	if err := lib.Add("mine.jq", "def over: payload.cost_usd > $max;\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(`over`, Options{Library: lib, Vars: map[string]any{"max": 1}}); err != nil {
		t.Errorf("a def reading --argjson max: %v", err)
	}
	// The expression's own mistakes are still the expression's.
	if _, err := Compile(`nosuch(2)`, Options{Library: lib, Vars: map[string]any{"max": 1}}); err == nil ||
		!strings.HasPrefix(err.Error(), "bad expression: ") {
		t.Errorf("nosuch(2): %v, want a bad expression", err)
	}

	tests := []struct {
		src  string
		want string // the error starts with the file name and holds this
	}{
		{".kind\n", "a filters file holds only defs"},
		{"def x: kind;\n.kind\n", "a filters file holds only defs"},
		{"def broken: (;\n", "mine.jq: "},
	}
	for _, tt := range tests {
		lib := &Library{}
		err := lib.Add("mine.jq", tt.src)
		if err == nil || !strings.HasPrefix(err.Error(), "mine.jq: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Add(%q) = %v, want mine.jq: ...%s", tt.src, err, tt.want)
		}
	}
	// The file blamed is the one with the bad def, not the last one loaded.
	lib = builtinLib(t)
	for _, f := range []struct{ name, src string }{{"a.jq", "def x: nosuch(1);\n"}, {"b.jq", "def y: true;\n"}} {
		if err := lib.Add(f.name, f.src); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Compile(`y`, Options{Library: lib}); err == nil || !strings.HasPrefix(err.Error(), "a.jq: ") {
		t.Errorf("a bad def in a.jq before b.jq: %v, want an error naming a.jq", err)
	}
	// A def may use the filters loaded before it.
	lib = builtinLib(t)
	if err := lib.Add("mine.jq", "def mine: failed and tool(\"bash\");\n"); err != nil {
		t.Errorf("a def using the library: %v", err)
	}
}

// Each def gets the comment right above it, whatever comes between defs.
func TestLibraryDescriptions(t *testing.T) {
	src := `# first one
def a: kind == "x";
# an indented def
  def b: kind == "y";
# the third, with a nested def at the start of a line
def c:
def inner: kind == "z";
  inner;

def d($x): kind == $x;
# e, after an undescribed def
def e: true;
# two of one name
def d: true;
# names of every letter and digit
def zero_Z9: true;
# capitals
def Alpha0: true;
`
	lib := &Library{}
	if err := lib.Add("mine.jq", src); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "first one", "b": "an indented def", "c": "the third, with a nested def at the start of a line",
		"d($x)": "", "e": "e, after an undescribed def", "d": "two of one name",
		"zero_Z9": "names of every letter and digit", "Alpha0": "capitals",
	}
	if len(lib.Defs) != len(want) {
		t.Fatalf("%d defs, want %d", len(lib.Defs), len(want))
	}
	for _, d := range lib.Defs {
		if got := d.Description; got != want[d.Signature()] {
			t.Errorf("%s: description %q, want %q", d.Signature(), got, want[d.Signature()])
		}
	}
}
