package cli

// What the man pages and the completion scripts need to know about each
// tool that its kong model does not say: the environment it reads, and
// the values of a flag that kong does not check (evsum --format and --by
// are checked by evsum, so they have no enum tag). Everything else (the
// flags, their help, placeholders, enums and defaults, the examples, the
// exit statuses) comes from the model and the Tool, as --help does.
//
// The values here are what evsum accepts; internal/e2e's completion tests
// check that evsum accepts each, and that every value evsum --help lists
// is here, so a new value fails a test until it is added.

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

// Commands is every evtools command, in the order the README lists them:
// the order of each page's SEE ALSO, and of tools.All, which pairs each
// name with its Main (package tools imports the tools, which import this
// package: the names are here).
var Commands = []string{"zot2gp", "evfilter", "evcursor", "evsum"}

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
		values: map[string]valueSpec{
			"format": {oneOf, []string{"table", "jsonl", "json", "md", "csv", "html"}},
			"by":     {listOf, []string{"run", "agent", "tool", "model", "kind", "day", "hour", "week", "month", "none"}},
			"columns": {listOf, []string{"group", "run_id", "agent_id", "first", "last", "runs", "events", "outcomes",
				"model_calls", "model_errors", "tokens", "tokens_in", "tokens_out", "cache_read", "cache_write", "cost",
				"tool_calls", "failed", "errors", "guardrails", "kills", "wall_p50", "wall_p95", "wall_max", "wall_sum",
				"latency_p50", "latency_p95", "latency_max", "problems"}},
			"tz":        {oneOf, []string{"UTC", "Local"}},
			"breakdown": {oneOf, []string{"model", "none"}},
			"sort":      {oneOf, sortFields},
		},
	},
}

// sortFields are the fields evsum --help names for --sort, lowest first
// and (-FIELD) highest first; any numeric field of the record sorts.
var sortFields = func() []string {
	f := []string{"runs", "events", "tokens", "tokens.input", "cost_usd", "tool_failures", "errors", "wall_seconds.p50", "latency_ms.p95", "problems"}
	for _, w := range f[:len(f):len(f)] {
		f = append(f, "-"+w)
	}
	return f
}()
