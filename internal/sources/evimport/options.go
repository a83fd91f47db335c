package evimport

import (
	"maps"

	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/output"
)

// The command's name, the prefix of its messages.
const name = "evimport"

// options are evimport's flags and arguments.
type options struct {
	Files []string `arg:"" optional:"" name:"FILE" help:"Session files and folders to read (folders are walked for session files; - is stdin). Default: standard input when it is no terminal and not empty, else the session folders of every agent found for this user."`

	From         string `name:"from" enum:"auto,${sources}" default:"auto" placeholder:"SOURCE" help:"The agent whose logs these are: ${sourceHelp}, or auto: found from each file's content. A file whose content is another agent's is skipped, not read as SOURCE's. Default: ${default}."`
	window.Range `embed:""`
	Prices       []string `name:"prices" placeholder:"FILE" sep:"none" help:"Add or replace model prices with FILE, a JSON table of the shape of the embedded one ({\"providers\":{PROVIDER:{MODEL:{\"input\":3,\"output\":15,...}}}}, USD per million tokens). May be repeated."`
	Strict       bool     `name:"strict" help:"Stop at the first bad line."`
	Follow       bool     `name:"follow" short:"F" help:"Keep reading, as tail -F: the files as they grow (through truncation and rotation), and the new session files of the folders given; a response is written once it is complete, a half-written line once it ends. Stop it with Ctrl-C."`

	State   string `name:"state" placeholder:"FILE" help:"Write only the events no earlier run with this state FILE wrote, reading only the files that changed, and save the new state at a clean end (for cron). A run is written once it is settled (see --settle)."`
	Defer   bool   `name:"defer" help:"With --state: save the new state as pending only; --commit makes it current (after the consumer succeeded)."`
	Commit  string `name:"commit" placeholder:"FILE" help:"Make the pending state in FILE current, then exit (after a --defer run whose consumer succeeded)."`
	Archive string `name:"archive" placeholder:"DIR" help:"Sync into the archive DIR (--archive alone: ${archiveDir}): every event not archived yet is added to it, and kept there after the agents delete their logs; every evtools tool reads the folder. Writes nothing to stdout."`
	Host    string `name:"host" placeholder:"NAME" help:"The machine's name, as the events' host member and the archive's folder say it. Default: this machine's host name with --archive, else no host member."`
	Settle  string `name:"settle" default:"1h" placeholder:"DURATION" help:"With --state or --archive: a session's last run is written once its files have not changed for DURATION (an earlier run once the next begins). Default: ${default}."`

	output.Flags `embed:""` // --format of output.Events

	inc *incremental // --state or --archive: the state the pass starts from
}

// Main runs evimport with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int {
	return cli.Run(tool, archiveArgs(args, getenv), stdio, run)
}

var tool = cli.Tool{
	Name:    name,
	Summary: "Read the session logs of " + sourceTitles("and") + " as envelope events.",
	Vars:    helpVars,
	Env:     append(sourceEnv(), cli.ViewEnv...),
	Details: `
Reads the session logs that coding agents keep on disk and writes them as
envelope events in the run-log vocabulary (docs/formats.md): one run per
user prompt (user_message, run_started, model_call, model_result,
tool_call, tool_result, assistant_message, run_error, run_finished), the
subagents as agents of their parent's run (agent_spawned ...
agent_finished), each event with the session, project and source agent as
top-level members (session, project, source).

Each model_result counts tokens once, under one definition for every
agent: input is every prompt token, cached or not; cache_read, cache_write
(and cache_write_1h) are parts of it; output is every generated token,
reasoning its part. The duplicates the agents write (Claude's streamed
lines of one response, subagent replays, Codex's repeated and forked
token counts, Gemini's rewritten and rewound messages, Copilot's copies
of a session) are counted once; Copilot CLI logs no call's input tokens:
its session.shutdown totals per model are a model_result of their own;
docs/evimport.md says how. cost_usd is the log's where it records one
(cost_source "log"), else computed from the embedded models.dev price
table (cost_source "prices"); a model with no price is "unpriced":true,
never $0, and named on stderr.

Without FILE evimport reads standard input when it is no terminal and
holds something (cat session.jsonl | evimport); else (a terminal, or an
empty standard input, as cron and CI give) it reads those of these
that exist: ` + sourceFolders() + `. The
output is the same bytes for the same files: run ids come from the session
id and the prompt's place, seq counts each session's events from 1, and
events of all sessions are written in time order, so evcursor --state
resumes on it. With --since, a file last modified before it is not read.`,
	Examples: `
evimport | evsum --by day                          # tokens and cost of every agent, by day
evimport ~/.claude/projects/-home-sam-src-app       # one project's sessions, on a terminal: readable
evimport --since 7d | evsum --by model              # the last week, by model
evimport session.jsonl | evfilter 'kind=="tool_result" and .payload.ok==false'
evimport -F ~/.claude/projects/-home-sam-src-app   # live: the session being worked on
evimport --from codex rollout.jsonl.zst             # say the format instead of finding it
evimport --prices my-prices.json | evsum            # prices of models the table lacks
evimport --redact ~/.pi/agent/sessions > share.jsonl
evimport --format html session.jsonl > session.html   # the session as a page to read
evimport --archive                                  # cron: keep every session in ~/.local/share/evtools
evsum --by day ~/.local/share/evtools               # ... and report over all of it
evimport --state S --defer | evsum --partial > p.json && evimport --commit S   # each event once`,
	Exit: `
0  all input converted (records of unknown types are skipped and counted
   on stderr, not an error)
2  usage error, an unreadable input, a file in no known format, JSON or
   text, or of another agent than --from names (named once on stderr and
   skipped), or bad input lines (reported as evimport: FILE:LINE: reason;
   the rest is still converted)
3  --state, --commit or --archive: another run holds the lock of the
   state file or of the archive's host folder; nothing written
130, 143  stopped by SIGINT or SIGTERM (the way --follow ends)`,
}

// helpVars are the help's variables: the sources' and those of --format.
func helpVars() map[string]string {
	vars := sourceVars()
	maps.Copy(vars, output.Events.Vars())
	vars["tzAlso"] = ""
	vars["archiveDir"] = "$XDG_DATA_HOME/evtools, else ~/.local/share/evtools"
	return vars
}
