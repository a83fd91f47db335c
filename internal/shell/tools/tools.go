// Package tools is the one list of the evtools commands with their entry
// points. The tests that run the tools as processes (the script tests of
// every tool, the e2e tests) build all of them into the test binary from
// it, and its test checks that cmd/ has a main package for each and no
// other.
package tools

import (
	"fmt"

	"github.com/evtools/evtools/internal/filters/evcursor"
	"github.com/evtools/evtools/internal/filters/evfilter"
	"github.com/evtools/evtools/internal/folds/evsum"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
	"github.com/evtools/evtools/internal/sources/evimport"
	"github.com/evtools/evtools/internal/sources/zot2gp"
	"github.com/evtools/evtools/internal/views/ev2otlp"
)

// Tool is one command: its name and its entry point, which cmd/NAME hands
// the process to (cli.Exec).
type Tool struct {
	Name string
	Main func(args []string, stdio cli.Stdio) int
}

// mains is each command's entry point, by its name.
var mains = map[string]func(args []string, stdio cli.Stdio) int{
	"zot2gp":   zot2gp.Main,
	"evfilter": evfilter.Main,
	"evcursor": evcursor.Main,
	"evsum":    evsum.Main,
	"evimport": evimport.Main,
	"ev2otlp":  ev2otlp.Main,
}

// All is every command, in the order the README lists them: the order of
// tooldoc.Commands, the names the man pages' SEE ALSO list.
var All = pair(tooldoc.Commands, mains)

// pair is each name with its entry point, in the names' order; a name
// without one, or one without a name, is a bug of this file.
func pair(names []string, mains map[string]func([]string, cli.Stdio) int) []Tool {
	if len(names) != len(mains) {
		panic(fmt.Sprintf("tools: %d names of commands, %d entry points", len(names), len(mains)))
	}
	all := make([]Tool, len(names))
	for i, name := range names {
		main, ok := mains[name]
		if !ok {
			panic("tools: no entry point for " + name)
		}
		all[i] = Tool{name, main}
	}
	return all
}
