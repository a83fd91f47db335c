// Package doctest is a made-up tool for the tests of the texts written
// about a command (the man page, the completion scripts, the builtin
// flags): a Tool whose texts have what roff must escape, and options with
// a flag of every kind.
package doctest

import (
	"testing"

	"github.com/alecthomas/kong"
	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/shell/cli/tooldoc"
)

// Options are the made-up tool's flags and arguments: an enum with a
// default, a FILE, a flag of two words, two that exclude each other, the
// files, and --color.
type Options struct {
	Mode  string   `enum:"fast,slow" default:"fast" placeholder:"MODE" help:"How to go."`
	Out   string   `short:"o" placeholder:"FILE" help:"Write to FILE (default: stdout)."`
	Pair  []string `name:"pair" placeholder:"NAME VALUE" help:"Bind NAME to VALUE."`
	A     bool     `short:"a" xor:"m" help:"Mode a."`
	B     bool     `xor:"m" help:"Mode b; a\\b."`
	Files []string `arg:"" optional:"" name:"FILE" help:"Inputs."`
	term.ColorFlag
}

// Hidden are flags --help does not list, as every tool's --completion and
// --man: no page nor script may list them either.
type Hidden struct {
	Completion string `name:"completion" hidden:"" placeholder:"SHELL" help:"Print the completion script."`
	Man        bool   `name:"man" hidden:"" help:"Print the man page."`
}

// Tool is the made-up tool's texts: lines that roff would read as
// requests, a backslash, an indented block, an example and exit statuses
// whose lines go on.
var Tool = tooldoc.Tool{
	Name:    "evtest",
	Summary: "Test the pages.",
	Details: `
.kind at the start of a line
is not a request, nor is
'quoted; a back\slash stays.

  an indented block
  stays as it is`,
	Examples: `
evtest -o out in            # a comment
.hidden -x`,
	Exit: `
0  fine
2  bad
   input
A note that
goes on.
130, 143  stopped`,
}

// Model is the kong model of opts (such as &Options{}) for a tool called
// name, with the Hidden flags.
func Model(t testing.TB, name string, opts any) *kong.Application {
	t.Helper()
	p, err := kong.New(opts, kong.Embed(&Hidden{}), kong.Name(name))
	if err != nil {
		t.Fatal(err)
	}
	return p.Model
}
