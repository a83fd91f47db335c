package evimport

import (
	"errors"
	"maps"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/output"
)

// The command's name, the prefix of its messages.
const name = "evimport"

// options are evimport's flags and arguments.
type options struct {
	From         string `name:"from" enum:"auto,${sources}" default:"auto" placeholder:"SOURCE" help:"The agent whose logs these are: ${sourceHelp}, or auto: found from each file's content. A file whose content is another agent's is skipped, not read as SOURCE's. Default: ${default}."`
	window.Range `embed:""`
	Prices       []string `name:"prices" placeholder:"FILE" sep:"none" help:"Add or replace model prices with FILE, a JSON table of the shape of the embedded one ({\"providers\":{PROVIDER:{MODEL:{\"input\":3,\"output\":15,...}}}}, USD per million tokens). May be repeated."`
	Follow       bool     `name:"follow" short:"F" help:"Keep reading, as tail -F: the files as they grow (through truncation and rotation), and the new session files of the folders given; a response is written once it is complete, a half-written line once it ends. Stop it with Ctrl-C."`

	cli.StateFlags `embed:""`
	Archive        string `name:"archive" placeholder:"DIR" help:"Sync into the archive DIR (--archive alone: ${archiveDir}): every event not archived yet is added to it, and kept there after the agents delete their logs; every evtools tool reads the folder. Writes nothing to stdout."`
	Host           string `name:"host" placeholder:"NAME" help:"The machine's name, as the events' host member and the archive's folder say it. Default: this machine's host name with --archive, else no host member."`
	Settle         string `name:"settle" default:"1h" placeholder:"DURATION" help:"With --state or --archive: a session's last run is written once its files have not changed for DURATION (an earlier run once the next begins). Default: ${default}."`

	output.Flags `embed:""` // --format of output.Events
	cli.Input    `embed:""`

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
	Files:   "Session files and folders to read (folders are walked for session files; - is stdin). Default: standard input when it is no terminal and not empty, else the session folders of every agent found for this user.",
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
	vars["saved"] = "state"
	vars["state"] = "Write only the events no earlier run with this state FILE wrote, reading only the files that changed, and save the new state at a clean end (for cron). A run is written once it is settled (see --settle)."
	vars["archiveDir"] = "$XDG_DATA_HOME/evtools, else ~/.local/share/evtools"
	return vars
}

// validateState refuses what does not go with --state, --defer and
// --commit.
func (o *options) validateState() error {
	switch {
	case o.StateFlags.Check(o.Input) != nil:
		return o.StateFlags.Check(o.Input)
	case o.State != "" && o.Archive != "":
		return errors.New("--archive keeps its state in the archive: not with --state")
	case (o.State != "" || o.Archive != "") && o.Follow:
		return errors.New("--state and --archive resume where the last run stopped, once: not with --follow (run them from cron)")
	case (o.State != "" || o.Archive != "") && slices.Contains(o.Files, "-"):
		return errors.New("- (standard input) cannot be resumed: --state and --archive read files, named or the default folders")
	case (o.State != "" || o.Archive != "") && o.Until != "":
		return errors.New("--until: not with --state or --archive, which remember the runs after it as written")
	case o.Archive != "" && o.Defer:
		return errors.New("--defer is for --state: an archive's sync commits its events and its state together")
	case o.Archive != "" && o.Format != "auto" && o.Format != output.JSONL.Name:
		return errors.New("--archive writes JSON Lines into the archive: not with --format " + o.Format)
	}
	return nil
}

// archiveArgs gives a bare --archive (before --, not followed by =DIR)
// the default folder: a flag whose value may be left out, which the
// parser has no way to say.
func archiveArgs(args []string, getenv func(string) string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "--archive" {
			out[i] = "--archive=" + defaultArchive(getenv)
		}
	}
	return out
}

// defaultArchive is where --archive keeps the archive: the platform's
// folder for a user's data, evtools in it.
func defaultArchive(getenv func(string) string) string {
	home := homeDir(getenv)
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "evtools")
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "evtools")
		}
	}
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "evtools")
	}
	return filepath.Join(home, ".local", "share", "evtools")
}
