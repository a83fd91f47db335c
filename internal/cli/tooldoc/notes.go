package tooldoc

import "maps"

// What the man pages and the completion scripts need to know about each
// tool that its kong model does not say: the environment it reads, and
// what its first argument is. Everything else (the flags, their help,
// placeholders, enums and defaults, the examples, the exit statuses, and
// the values of the flags a tool checks itself: Tool.Words, from the
// tool's own tables) comes from the model and the Tool, as --help does.

// Notes is what a tool's page and scripts add to its model.
type Notes struct {
	Env    []EnvVar
	Values map[string]ValueSpec // by flag name: what its values are
	// First is what the first positional argument is (nothing set: the
	// same as the others, files); after one of FirstUnless it is a file
	// like the others (evfilter -f FILE: every argument is a file).
	First       ValueSpec
	FirstUnless []string
	SeeAlso     []string // pages beyond the other tools and evtools(7)
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

var (
	envNoColor = EnvVar{"NO_COLOR", "When set to anything but the empty string, --color auto writes no colour (no-color.org)."}
	envTerm    = EnvVar{"TERM", "When dumb, --color auto writes no colour."}
	envColumns = EnvVar{"COLUMNS", "The width the pretty view is fitted to, when it is a positive number; otherwise the terminal's width (80 when that is not known)."}
	envTZ      = EnvVar{"TZ", "The time zone of the times the pretty view shows."}
)

var toolNotes = map[string]Notes{
	"zot2gp": {Env: []EnvVar{envNoColor, envTerm, envColumns, envTZ}},
	"evfilter": {
		Env: []EnvVar{
			{"EVTOOLS_FILTERS", "Folders (colon-separated) whose *.jq files define named filters besides the built-in ones: every def in them can be called by name in EXPR, and evfilter --list lists them. A later def of the same name and number of arguments hides an earlier one."},
			envNoColor, envTerm, envColumns, envTZ,
		},
		First:       ValueSpec{Kind: FilterNames},
		FirstUnless: []string{"from-file"},
		SeeAlso:     []string{"jq(1)"},
	},
	"evcursor": {Env: []EnvVar{envNoColor, envTerm, envColumns, envTZ}},
	"evsum": {
		Env: []EnvVar{
			envNoColor,
			{"TERM", "When dumb, --color auto writes no colour and --live auto does not redraw."},
			{"COLUMNS", "The width the table is fitted to on a terminal, when it is a positive number; otherwise the terminal's width (80 when that is not known)."},
			{"LINES", "The height of the terminal the live table keeps to, when it is a positive number; otherwise the terminal's height."},
			{"TZ", "The zone of --tz Local."},
		},
	},
	"evimport": {
		Env: []EnvVar{
			// HOME and the agents' own variables: from evimport's table of sources
			envNoColor, envTerm, envColumns, envTZ,
		},
	},
	"ev2otlp": {
		Env: []EnvVar{
			{"OTEL_SERVICE_NAME", "The service.name of the traces when --service does not say it, as in every OpenTelemetry SDK."},
			{"OTEL_EXPORTER_OTLP_HEADERS", "With --endpoint, headers of every request, as the OpenTelemetry exporters read them: NAME=VALUE pairs separated by commas, the values URL-encoded. A --header of the same name wins. Keeps a key off the command line, where ps shows it."},
			{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "The same, for traces only; it wins over OTEL_EXPORTER_OTLP_HEADERS."},
		},
	},
}

// NotesOf is the notes of t (none for a tool that has none, such as a
// test's), with the values of the flags t checks itself (t.Words).
func NotesOf(t Tool) Notes {
	n := toolNotes[t.Name]
	if t.Env != nil {
		n.Env = append(t.Env(), n.Env...)
	}
	if t.Words == nil {
		return n
	}
	n.Values = maps.Clone(n.Values)
	if n.Values == nil {
		n.Values = map[string]ValueSpec{}
	}
	for flag, w := range t.Words() {
		kind := OneOf
		if w.List {
			kind = ListOf
		}
		n.Values[flag] = ValueSpec{kind, w.Words}
	}
	return n
}
