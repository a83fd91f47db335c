package evsum

import (
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
	"github.com/evtools/evtools/internal/shell/cli"
)

// The command's name, the prefix of its messages.
const name = "evsum"

// options are evsum's flags and arguments.
type options struct {
	By           string   `short:"b" default:"run" placeholder:"KEYS" help:"Group by ${by}, or a field path (payload.model); comma-separated for several (a week is an ISO week: 2026-W45). Default: ${default}."`
	Sort         sortFlag `placeholder:"FIELD" help:"Order the groups by a numeric field of the record (${sort}, outcomes.NAME, tools.NAME.calls, tools.NAME.failed) or by its column's name (cost, wall_p50), lowest first; -FIELD highest first (--sort -cost_usd). Default: by first event time."`
	Top          int      `placeholder:"N" help:"Only the first N groups (after --sort), the rest folded into one \"other\" group so that the groups still add up to the total; 0 keeps all."`
	Breakdown    string   `placeholder:"KEY" help:"Break each group (and the total) down by KEY, which is model (or none): one sub-row per model under it in table, md and html, a last member \"models\" with each model's record in jsonl and json, a breakdown.model column in csv. Give it to --partial, not --merge."`
	window.Range `embed:""`
	Format       string        `placeholder:"FORMAT" help:"Output format: ${format} (html: a self-contained page with charts; default: table on a terminal or with --columns, --width, --wide or --live always; jsonl otherwise)."`
	Columns      string        `placeholder:"LIST" help:"The table's (and md's and html's) columns, comma-separated, in this order: group (or ${keys}, ...), ${columns}."`
	Width        int           `placeholder:"N" help:"Fit the table to N columns, as it is fitted to a terminal's width (least important columns dropped, long values condensed)."`
	Wide         bool          `help:"Every column of the table, not fitted to the terminal's width (as in a pipe)."`
	Live         string        `enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Redraw the table in place as events arrive: auto (when stdout is a terminal and an input a pipe, FIFO or terminal), always or never. Default: ${default}."`
	Partial      bool          `help:"Write the summary state as JSON Lines for a later --merge instead of a report."`
	Merge        bool          `help:"Read partial states (from --partial) instead of events and report on all of them together."`
	Check        bool          `help:"Exit 1 when any problem (broken invariant) was found."`
	Running      time.Duration `default:"10m" placeholder:"WINDOW" help:"A run without its end whose last event is at most WINDOW before now is running, not incomplete, and no problem; 0 turns it off. Default: ${default}."`
	NoCache      bool          `name:"no-cache" help:"Read every segment of an archive folder named, instead of the states of the segments an earlier report read (kept in $$EVTOOLS_CACHE_DIR/evsum, by default the user's cache folder: ~/.cache/evtools/evsum)."`

	term.TableColorFlag `embed:""`
	cli.Input           `embed:""`
}

// Main runs evsum with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

var tool = cli.Tool{
	Name: name,
	Env: []cli.EnvVar{
		cli.ViewEnv[0],
		{Name: "TERM", Text: "When dumb, --color auto writes no colour and --live auto does not redraw."},
		{Name: "COLUMNS", Text: "The width the table is fitted to on a terminal, when it is a positive number; otherwise the terminal's width (80 when that is not known)."},
		{Name: "LINES", Text: "The height of the terminal the live table keeps to, when it is a positive number; otherwise the terminal's height."},
		{Name: "TZ", Text: "The zone of --tz Local."},
	},
	Summary: "Summarise agent runs: outcomes, tokens, cost, time, tools, errors.",
	Files:   "Inputs (gzip and zstd are recognised; a folder is an archive evimport --archive wrote, whose segments are read once for each question: see --no-cache); none or - is stdin.",
	Details: `
Reads envelope events (seq, ts, run_id, agent_id, kind, payload) in either
vocabulary: the glasspane kinds zot2gp writes, with zot payloads, and the
run-log kinds of a multi-agent run log. Writes one record per group, then
a total record with "group":{} last. Problems are broken invariants, such as
a run without run_finished or a tool call that never ended.

Tokens and cost come from the per-call events only (model_result, usage),
never from roll-ups, and each tool call counts once. A call marked
"unpriced":true (its model had no price) is counted in unpriced_calls and
unpriced_tokens, which the table shows beside the cost when there are
some, never as $0. See docs/evsum.md for every field.

A folder named is an archive (evimport --archive): its segments never
change, so the state of each segment's events is kept for each question
(grouping, breakdown, zone, window), and the report too: a question asked
again reads only the segments synced since, and none when nothing was.
The report is the one of all the events read in one pass.

On a terminal the table fits its width (the least important columns give
way first, wall times read 1m52s, token counts 1.2M) and, while a pipe
feeds it, is redrawn in place as events arrive, runs still going marked
running; the final table stays. In a pipe or a file every format is as it
always was.`,
	Examples: `
zot2gp < run.jsonl | evsum                        # a table on a terminal
evsum --by agent,tool events.jsonl.gz
evsum --by day --since 2026-11-01 --format md logs/*.jsonl > report.md
evsum --by day --format html logs/*.jsonl > report.html   # charts, for a mail or a browser
evsum --by week --breakdown model events.jsonl    # cost and tokens per week, per model
evsum --by agent --sort -cost_usd --top 5 events.jsonl  # the 5 costliest agents, then the rest
evsum --format jsonl events.jsonl | evfilter 'cost_usd > 1'
evsum --columns run_id,outcomes,cost,wall_p50 events.jsonl
tail -f events.jsonl | evsum --by agent           # redrawn live on a terminal
evsum --by none --check --since 24h events.jsonl  # cron: exit 1 on problems
evsum --by day ~/.local/share/evtools             # an archive: only new segments are read
parallel --pipe -k --block 50M evsum --partial < big.jsonl | evsum --merge`,
	Vars:  helpVars,
	Words: flagWords,
	Exit: `
0  the summary was written
1  --check found problems
2  usage error, unreadable input, or bad input lines (reported on stderr)
130, 143  stopped by SIGINT or SIGTERM, after the last whole line`,
}

// helpVars are the lists of --help, made from the tables they list: the
// formats (formats), the groupings (summary.ByWords), the fields' columns
// (record.Fields) and the fields --sort takes.
func helpVars() map[string]string {
	fs := formats
	return map[string]string{
		"format":  strings.Join(fs[:len(fs)-1], ", ") + " or " + fs[len(fs)-1],
		"by":      strings.Join(summary.ByWords(), ", "),
		"keys":    strings.Join(keyColumnWords(), ", "),
		"columns": strings.Join(columnNames(), ", "),
		"sort":    strings.Join(record.SortNames(), ", "),
		"tzAlso":  " and of day, hour, week and month groups",
	}
}

// flagWords are the values of the flags evsum checks itself, for the man
// page and the completion scripts: the lists of helpVars, and each
// --sort field also with the - that sorts highest first.
func flagWords() map[string]cli.Words {
	sorts := record.SortNames()
	for _, f := range record.SortNames() {
		sorts = append(sorts, "-"+f)
	}
	return map[string]cli.Words{
		"format":    {Words: formats},
		"by":        {List: true, Words: summary.ByWords()},
		"columns":   {List: true, Words: append(append([]string{"group"}, keyColumnWords()...), columnNames()...)},
		"tz":        {Words: []string{"UTC", "Local"}},
		"breakdown": {Words: summary.BreakdownWords()},
		"sort":      {Words: sorts},
	}
}

// keyColumnWords are the key columns --columns names otherwise than by
// their --by word (run_id for run).
func keyColumnWords() []string {
	var names []string
	for _, w := range summary.ByWords() {
		if keys, err := summary.ParseBy(w); err == nil && len(keys) == 1 && keys[0].Name != w {
			names = append(names, keys[0].Name)
		}
	}
	return names
}
