package cli

import "maps"

// What the man pages and the completion scripts need to know about each
// tool that its kong model does not say: the environment it reads, and
// what its first argument is. Everything else (the flags, their help,
// placeholders, enums and defaults, the examples, the exit statuses, and
// the values of the flags a tool checks itself: Tool.Words, from the
// tool's own tables) comes from the model and the Tool, as --help does.

// notes is what a tool's page and scripts add to its model.
type notes struct {
	env    []envVar
	values map[string]valueSpec // by flag name: what its values are
	// first is what the first positional argument is (nothing set: the
	// same as the others, files); after one of firstUnless it is a file
	// like the others (evfilter -f FILE: every argument is a file).
	first       valueSpec
	firstUnless []string
	seeAlso     []string // pages beyond the other tools and evtools(7)
}

// envVar is an environment variable and what the tool does with it.
type envVar struct{ name, text string }

// valueKind says how a flag's or an argument's values complete.
type valueKind int

const (
	noValues    valueKind = iota // anything: nothing to offer
	fileValues                   // a file name
	oneOf                        // one word of a list
	listOf                       // comma-separated words of a list
	filterNames                  // evfilter's named filters: TOOL --list, at completion time
)

type valueSpec struct {
	kind  valueKind
	words []string
}

// toolOrder is the order of the tools in SEE ALSO, as the README lists them.
var toolOrder = []string{"zot2gp", "evfilter", "evcursor", "evsum"}

var (
	envNoColor = envVar{"NO_COLOR", "When set to anything but the empty string, --color auto writes no colour (no-color.org)."}
	envTerm    = envVar{"TERM", "When dumb, --color auto writes no colour."}
	envColumns = envVar{"COLUMNS", "The width the pretty view is fitted to, when it is a positive number; otherwise the terminal's width (80 when that is not known)."}
	envTZ      = envVar{"TZ", "The time zone of the times the pretty view shows."}
)

var toolNotes = map[string]notes{
	"zot2gp": {env: []envVar{envNoColor, envTerm, envColumns, envTZ}},
	"evfilter": {
		env: []envVar{
			{"EVTOOLS_FILTERS", "Folders (colon-separated) whose *.jq files define named filters besides the built-in ones: every def in them can be called by name in EXPR, and evfilter --list lists them. A later def of the same name and number of arguments hides an earlier one."},
			envNoColor, envTerm, envColumns, envTZ,
		},
		first:       valueSpec{kind: filterNames},
		firstUnless: []string{"from-file"},
		seeAlso:     []string{"jq(1)"},
	},
	"evcursor": {env: []envVar{envNoColor, envTerm, envColumns, envTZ}},
	"evsum": {
		env: []envVar{
			envNoColor,
			{"TERM", "When dumb, --color auto writes no colour and --live auto does not redraw."},
			{"COLUMNS", "The width the table is fitted to on a terminal, when it is a positive number; otherwise the terminal's width (80 when that is not known)."},
			{"LINES", "The height of the terminal the live table keeps to, when it is a positive number; otherwise the terminal's height."},
			{"TZ", "The zone of --tz Local."},
		},
	},
}

// notesOf is the notes of t with the values of the flags t checks itself.
func notesOf(t Tool) notes {
	n := toolNotes[t.Name]
	if t.Words == nil {
		return n
	}
	n.values = maps.Clone(n.values)
	if n.values == nil {
		n.values = map[string]valueSpec{}
	}
	for flag, w := range t.Words() {
		kind := oneOf
		if w.List {
			kind = listOf
		}
		n.values[flag] = valueSpec{kind, w.Words}
	}
	return n
}
