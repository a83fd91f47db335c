package evfilter

import (
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
	"github.com/evtools/evtools/internal/views/output"
)

// The command's name, the prefix of its messages.
const name = "evfilter"

// options are evfilter's flags and arguments. --arg and --argjson take two
// values each, which kong does not do: Main takes them out of the arguments
// first, and the fields are here for the help text.
type options struct {
	Invert       bool     `short:"v" name:"invert-match" help:"Select the events that do not pass (with -v, an event whose evaluation failed is selected)."`
	Count        bool     `short:"c" name:"count" help:"Print only the number of selected events."`
	MaxCount     int      `short:"m" name:"max-count" default:"-1" placeholder:"N" help:"Stop after N selected events, and stop reading (by default, never)."`
	Quiet        bool     `short:"q" name:"quiet" help:"Print nothing; stop at the first selected event. The exit status says whether there was one."`
	FromFile     string   `short:"f" name:"from-file" placeholder:"FILE" help:"Read the expression from FILE; every argument is then an input file."`
	Arg          []string `name:"arg" placeholder:"NAME VALUE" help:"Bind $NAME to the string VALUE."`
	ArgJSON      []string `name:"argjson" placeholder:"NAME JSON" help:"Bind $NAME to the JSON value JSON."`
	Grep         string   `name:"grep" placeholder:"PATTERN" help:"Keep the events whose texts (prompts, replies, thinking, tool arguments and outputs, error messages; never keys, ids or numbers) match PATTERN, a regular expression (Go's RE2 syntax; ^ and $ at the lines of a text). With an EXPR too, an event must pass both. On a terminal each hit is shown with its session and the command that reopens it."`
	FixedStrings bool     `name:"fixed-strings" help:"With --grep: PATTERN is a literal string, not a regular expression."`
	IgnoreCase   bool     `short:"i" name:"ignore-case" help:"With --grep: letters match whatever their case."`
	List         bool     `name:"list" help:"List the named filters: how to call each, where it comes from, what it selects."`
	Strict       bool     `name:"strict" help:"Stop at the first bad line or evaluation error."`

	output.Flags `embed:""` // --format of formats

	Args []string `arg:"" optional:"" name:"EXPR [FILE]" help:"The jq expression, then the files to read (- for stdin; gzip and zstd are recognised; a folder is an archive evimport --archive wrote). Default: stdin."`

	vars    map[string]any // the bindings of --arg and --argjson
	grepSet bool           // --grep was given, even as --grep ''

}

// formats are what --format takes: the events' formats, jsonl being the
// lines as they were read, not lines evfilter makes.
var formats = output.Set{What: "the selected events", Formats: []output.Format{output.JSONL.As("the lines as read"), output.Pretty, output.HTML}}

// Main runs evfilter with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int {
	stdio = stdio.Safe()
	var opts options
	err := parse(args, stdio, &opts)
	if err == nil {
		err = run(&opts, stdio)
	}
	return cli.Report(name, stdio.Err, err)
}

var tool = cli.Tool{
	Name: name,
	Env: append([]cli.EnvVar{
		{Name: "EVTOOLS_FILTERS", Text: "Folders (colon-separated) whose *.jq files define named filters besides the built-in ones: every def in them can be called by name in EXPR, and evfilter --list lists them. A later def of the same name and number of arguments hides an earlier one."},
	}, cli.ViewEnv...),
	First:       tooldoc.ValueSpec{Kind: tooldoc.FilterNames},
	FirstUnless: []string{"from-file"},
	SeeAlso:     []string{"jq(1)"},
	Vars:        formats.Vars,
	Usage:       "[flags] EXPR [FILE ...]",
	Summary:     "Keep the events for which a jq expression holds, byte for byte.",
	Details: `
EXPR is jq (gojq). An event passes when EXPR yields a value that is neither
false nor null; the line is written out exactly as read.

Shorthand: a bare name reads a field of its input, so kind=="tool_call" is
.kind=="tool_call" and payload.tool is .payload.tool. A bare name that a
named filter or a def in EXPR defines calls it; type and error read the
field where the input is the event (type=="tool_result" on raw zot lines)
and are jq's builtins after a pipe (payload | type); other builtins (not,
length, empty, ...) stay builtins. Plain jq (.kind, select(...)) works too.

Named filters (evfilter --list): failed, tools, tool(NAME), agent(ID),
costly(USD), slow(MS), lifecycle, and every def in the *.jq files of the
folders in EVTOOLS_FILTERS (colon-separated).

--grep PATTERN searches the texts of the events instead (the prompts,
replies, thinking, tool arguments and outputs, error messages), never
their keys or ids: --grep session does not match every line for its
"session" key. PATTERN is a regular expression (RE2), a plain word is
searched as such; --fixed-strings takes it literally, -i ignores case.
EXPR is then optional: a first argument that names a file or a folder (an
archive) is an input.

An error while evaluating an event (say test on a null) makes it not pass;
their number is reported at the end (--strict: the first one stops the run).`,
	Examples: `
zot --rpc | zot2gp | evfilter 'kind=="tool_call"'
evfilter 'payload.tool=="bash" and agent_id=="code-reviewer"' run.jsonl
evfilter -v 'kind | IN("message_update","tool_execution_update")' events.jsonl.gz
evfilter failed events.jsonl                      # a named filter
evfilter 'type=="tool_result" and is_error' zot-rpc.jsonl
evfilter 'failed and agent_id=="parent"' run.jsonl
evfilter -c tools run.jsonl                       # how many tool calls
evfilter -m 1 'kind=="run_error"' run.jsonl       # the first run error, then stop
evfilter -q failed run.jsonl && echo "something failed"
evfilter --arg tool bash 'payload.tool == $tool' run.jsonl
evfilter --argjson ms 5000 'payload.latency_ms > $ms' run.jsonl
evfilter -f long-filter.jq run.jsonl
evfilter --redact failed run.jsonl > issue.jsonl  # secrets out: [REDACTED:RULE]
evfilter 'run_id=="r_7"' log.jsonl                # on a terminal: the run as a transcript
evfilter --format pretty --color always failed log.jsonl | less -R
evfilter --format html 'run_id=="r_7"' log.jsonl > r_7.html   # the run as a page
EVTOOLS_FILTERS=~/.evfilters evfilter --list
evimport | evfilter --grep 'login bug'            # which session was it?
evimport | evfilter -i --grep 'login bug' 'source=="claude"'
evfilter --grep 'panic: .*nil map' archive.jsonl.zst
evfilter --fixed-strings --grep 'a.b(c)' events.jsonl
evfilter -c --grep TODO events.jsonl              # how many events say TODO`,
	Exit: `
0  an event was selected (with -q, also when there were errors)
1  no event was selected
2  a bad expression (also kind = "x", which assigns, an object, a named
   filter without its arguments or with a string for a number,
   slow("10s"), a file where EXPR goes), a named filter's argument read
   as a field null in every event (tool(Bash)), an unreadable file, bad
   input lines (reported as evfilter: FILE:LINE: reason; the other lines
   are still filtered), or with --strict the first bad line or evaluation
   error
A bare name read as a field that is null in every event is a warning at
the end; it does not change the status.
130, 143  stopped by SIGINT or SIGTERM, after the last whole line`,
}
