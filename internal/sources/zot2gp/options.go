package zot2gp

import (
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/output"
)

// The command's name, the prefix of its messages.
const name = "zot2gp"

// options are zot2gp's flags and arguments.
type options struct {
	UI       bool   `name:"ui" help:"Keep only the events glasspane classifies: drop successful responses, usage, tool_call and unknown types."`
	SeqStart string `name:"seq-start" default:"1" placeholder:"N" help:"First seq number (a non-negative integer of any length). Default: ${default}."`
	RunID    string `name:"run-id" placeholder:"ID" help:"run_id of the first run; later runs in the stream are ID.2, ID.3, ... (default: r_1, r_2, ... with --ts=stable, else r_<random>_1, ...)."`
	Agent    string `name:"agent" default:"zot" placeholder:"NAME" help:"agent_id of the agent's events (session-level events have an empty agent_id). Default: ${default}."`
	TS       string `name:"ts" enum:"auto,now,recorded,stable" default:"auto" placeholder:"MODE" help:"ts of events without a time of their own: auto (recorded for a regular file, named or redirected to stdin; now for a pipe or terminal, recorded while its recorded times are far from the clock), now (the moment the event is read), recorded (0: no time known), stable (the last time seen in the same input, else 0; same input gives the same output). Default: ${default}."`

	output.Flags `embed:""` // --format of formats

	cli.Input `embed:""`
}

// formats are what --format takes: the envelopes, the zot objects, pi's
// events (JSON Lines all three, of shapes the converter makes) and the
// views.
var formats = output.Set{What: "the events", Formats: []output.Format{
	output.Lines("envelope", "seq, ts, run_id, agent_id, kind, payload"),
	output.Lines("bare", "the zot object with type set to the kind and zot_type added"),
	output.Pretty,
	output.Lines("pi", "the events of pi's RPC protocol, for pi's clients"),
	output.HTML,
}}

// Main runs zot2gp with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

var tool = cli.Tool{
	Name:    name,
	Env:     cli.ViewEnv,
	Vars:    formats.Vars,
	Summary: "Convert zot RPC events to envelope events classified by glasspane's mapping.",
	Files:   "zot RPC JSONL files to read (- for stdin; gzip and zstd are recognised). Default: stdin.",
	Details: `
Reads zot's RPC output (one JSON object with a "type" a line) and writes one
envelope a line: {"seq":..,"ts":..,"run_id":..,"agent_id":..,"kind":..,"payload":{..}}.
kind is glasspane's type for the event (turn_start, message_update,
tool_execution_start, ...); a response with success:false is an error;
events glasspane does not map (response, usage, tool_call, unknown types)
keep their zot type. payload is the zot object exactly as read. Each prompt
is a run, from zot's response to it (or the first event) through done.
ts is the event's own time where it has one. For the others it depends on
the input (--ts auto): a regular file (zot2gp run.jsonl, zot2gp < run.jsonl)
is a stored transcript, and their ts is 0, meaning no time known (the
replay clock would make a 2-second run last months); a pipe or terminal is
live, and their ts is the moment zot2gp read them, unless the recorded
times are more than 60 s from the clock (cat run.jsonl | zot2gp): then 0,
as from the file. Each input starts afresh.`,
	Examples: `
zot --rpc < prompts.jsonl | zot2gp                    # on a terminal: the pretty view, live
zot --rpc < prompts.jsonl | zot2gp > run.gp.jsonl     # in a file: envelopes
zot2gp run.jsonl | evfilter 'kind=="tool_call"'       # the complete tool calls
zot2gp --ui run.jsonl                                 # exactly glasspane's stream
zot2gp --ts=stable --run-id nightly-42 run.jsonl.gz   # reproducible conversion
zot2gp --seq-start 1001 --agent coder run.jsonl       # continue a log, name the agent
zot2gp --format bare run.jsonl                        # zot objects, type = kind
zot2gp --redact run.jsonl > share.gp.jsonl            # secrets out: [REDACTED:RULE]
zot2gp --format pretty --color always run.jsonl | less -R
zot --rpc < prompts.jsonl | zot2gp --format html > session.html   # a page to read it in
sh -c 'zot --rpc | zot2gp --format pi'                # zot as an agent of any pi RPC client`,
	Exit: `
0  all input converted (or the reader of stdout went away: | head)
2  usage error, an unreadable input, or bad input lines (reported as
   zot2gp: FILE:LINE: reason; the others are still converted); with
   --format pi, lines out of zot's order too (reported, dropped or repaired)
130, 143  stopped by SIGINT or SIGTERM, after the last whole line`,
}
