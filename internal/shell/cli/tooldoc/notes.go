package tooldoc

// Notes is what a tool's page and scripts add to its model: the Tool's
// notes, and the values of the flags it checks itself.
type Notes struct {
	Env         []EnvVar
	Values      map[string]ValueSpec // by flag name: what its values are
	First       ValueSpec
	FirstUnless []string
	SeeAlso     []string
}

// EnvVar is an environment variable and what the tool does with it.
type EnvVar struct{ Name, Text string }

// ValueKind says how a flag's or an argument's values complete.
type ValueKind int

// The kinds of values, from nothing to offer to evfilter's named filters.
const (
	NoValues    ValueKind = iota // anything: nothing to offer
	FileValues                   // a file name
	OneOf                        // one word of a list
	ListOf                       // comma-separated words of a list
	FilterNames                  // evfilter's named filters: TOOL --list, at completion time
)

// ValueSpec is what a flag's or an argument's values are: their kind, and
// the words of a list.
type ValueSpec struct {
	Kind  ValueKind
	Words []string
}

// Commands is every evtools command, in the order the README lists them:
// the order of each page's SEE ALSO, and of tools.All, which pairs each
// name with its Main (package tools imports the tools, which import this
// package: the names are here).
var Commands = []string{"zot2gp", "evfilter", "evcursor", "evsum", "evimport", "ev2otlp"}

// ViewEnv is the environment the pretty view reads: that of every tool
// that writes it (--format pretty).
var ViewEnv = []EnvVar{
	{"NO_COLOR", "When set to anything but the empty string, --color auto writes no colour (no-color.org)."},
	{"TERM", "When dumb, --color auto writes no colour."},
	{"COLUMNS", "The width the pretty view is fitted to, when it is a positive number; otherwise the terminal's width (80 when that is not known)."},
	{"TZ", "The time zone of the times the pretty view shows."},
}

// NotesOf is the notes of t, with the values of the flags t checks
// itself (t.Words).
func NotesOf(t Tool) Notes {
	n := Notes{Env: t.Env, First: t.First, FirstUnless: t.FirstUnless, SeeAlso: t.SeeAlso}
	if t.Words == nil {
		return n
	}
	n.Values = map[string]ValueSpec{}
	for flag, w := range t.Words() {
		kind := OneOf
		if w.List {
			kind = ListOf
		}
		n.Values[flag] = ValueSpec{kind, w.Words}
	}
	return n
}
