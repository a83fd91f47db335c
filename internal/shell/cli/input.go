package cli

import (
	"errors"
	"fmt"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/filters/cursor"
)

// Input is what every tool that reads event files takes: the files (the
// tool's Files says what they are) and --strict. It comes last in a
// tool's options, so --strict is the last flag of every help.
type Input struct {
	Files  []string `arg:"" optional:"" name:"FILE" help:"${files}"`
	Strict bool     `name:"strict" help:"Stop at the first bad line."`
}

// StateFlags are --state, --defer and --commit, as evcursor and evimport
// take them: a run resumes after what the last one saved, and a consumer
// that may fail gets a save in two steps. ${saved} is what the state
// holds (a cursor, the files read).
type StateFlags struct {
	State  string `name:"state" placeholder:"FILE" xor:"mode" help:"${state}"`
	Defer  bool   `name:"defer" help:"With --state: save the new ${saved} as pending only; --commit makes it current (after the consumer succeeded)."`
	Commit string `name:"commit" placeholder:"FILE" xor:"mode" help:"Make the pending ${saved} in FILE current, then exit (after a --defer run whose consumer succeeded)."`
}

// Check refuses what does not go with the state flags whatever the tool.
func (s StateFlags) Check(in Input) error {
	switch {
	case s.Defer && s.State == "":
		return errors.New("--defer needs --state FILE")
	case s.Commit != "" && len(in.Files) > 0:
		return errors.New("--commit FILE reads no input: remove the FILE arguments")
	case s.Commit != "" && in.Strict:
		return errors.New("--strict does not go with --commit")
	}
	return nil
}

// NothingToCommit is --commit of a state file (given; path, resolved)
// that does not exist, leaving no lock file behind: expected after a
// --defer run that had nothing to save (handedOver: its handover says
// so), else a typo in a cron line, which must not pass unseen while the
// real state never moves.
func NothingToCommit(tool, given, path, saved string, handedOver bool, stdio Stdio) error {
	if handedOver {
		cursor.RemoveHandover(path)
		fmt.Fprintf(stdio.Err, "%s: %s: no state file, nothing to commit: the --defer run before saved nothing\n", tool, term.Escape(given))
		return nil
	}
	return fmt.Errorf("%s: no state file, nothing committed: no --defer run just before this --commit saved a %s there (a typo in the name?)", term.Escape(given), saved)
}
