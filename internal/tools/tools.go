// Package tools is the one list of the evtools commands. The tests that
// run the tools as processes (the script tests of every tool, the e2e
// tests) build all of them into the test binary from it, and its test
// checks that cmd/ has a main package for each and no other.
package tools

import (
	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/evcursor"
	"github.com/evtools/evtools/internal/evfilter"
	"github.com/evtools/evtools/internal/evimport"
	"github.com/evtools/evtools/internal/evsum"
	"github.com/evtools/evtools/internal/zot2gp"
)

// Tool is one command: its name and its entry point, which cmd/NAME hands
// the process to (cli.Exec).
type Tool struct {
	Name string
	Main func(args []string, stdio cli.Stdio) int
}

// All is every command, in the order the README lists them.
var All = []Tool{
	{"zot2gp", zot2gp.Main},
	{"evfilter", evfilter.Main},
	{"evcursor", evcursor.Main},
	{"evsum", evsum.Main},
	{"evimport", evimport.Main},
}
