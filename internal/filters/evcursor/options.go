package evcursor

import (
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/output"
)

// The command's name, the prefix of its messages.
const name = "evcursor"

// options are evcursor's flags. The modes (re-number, --after, --state,
// --check, --commit) exclude each other.
type options struct {
	cli.StateFlags `embed:""`

	Start string `placeholder:"N" help:"Re-number from N instead of 1 (any size: every digit is kept)."`
	After string `placeholder:"N" xor:"mode" help:"Pass only the events whose seq is above N, unchanged."`
	Check bool   `xor:"mode" help:"Pass the events unchanged and report gaps, repeats and seq going back on stderr (a bad line is reported and not passed)."`

	output.Flags `embed:""` // --format of output.Events
	cli.Input    `embed:""`
}

// Main runs evcursor with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, run) }

var tool = cli.Tool{
	Name:    name,
	Env:     cli.ViewEnv,
	Summary: "Re-number seq, pass what comes after a cursor, check a stream's seq.",
	Files:   "Event logs to read, in order (default: stdin; - is stdin; a folder is an archive evimport --archive wrote).",
	Vars:    helpVars,
	Details: `
Without a mode flag evcursor re-numbers seq from 1 (or --start N): only the
seq value changes, every other byte of the line stays; an event without seq
gets one as its first member.

--state FILE resumes after the event saved in FILE and, at a clean end (all
input read, no bad line, output still open), saves the cursor of the last
event passed; it is written atomically and under a lock (FILE.lock). A run
that ends otherwise leaves FILE as it was, so the next run sees the same
events again. See docs/evcursor.md for the resume rules.`,
	Examples: `
evcursor run.jsonl                          # seq 1, 2, 3, ...
evfilter 'kind=="tool_call"' run.jsonl | evcursor --start 100
evcursor --after 1200 events.jsonl          # events with seq > 1200, unchanged
evcursor --state seen.cursor events.jsonl   # on a terminal: what is new, for people
evcursor --state daily.cursor events.jsonl | evsum
evcursor --state S --defer events.jsonl | evsum > report && evcursor --commit S
evcursor --check events.jsonl > /dev/null   # gaps, repeats, restarts on stderr
evcursor --redact run.jsonl > share.jsonl   # re-numbered, secrets out: [REDACTED:RULE]
evcursor --format html --state S events.jsonl > new.html   # what is new, as a page`,
	Exit: `
0  success (--check: no anomaly)
1  --check found an anomaly
2  usage error, unreadable input or state file, bad input lines
3  the state file is locked by another evcursor run: nothing was passed
130, 143  stopped by SIGINT or SIGTERM, after the last whole line`,
}

// helpVars are the help's variables: those of --format and of the state
// flags.
func helpVars() map[string]string {
	vars := output.Events.Vars()
	vars["saved"] = "cursor"
	vars["state"] = "Pass only the events after the cursor saved in FILE, and save the cursor of the last one at a clean end (journalctl --cursor-file)."
	return vars
}
