// Package scripttest runs the golden tests of the tools: txtar scripts in a
// package's testdata folder, with every tool (internal/shell/tools) built into
// the test binary, so that a script can pipe one into another.
//
// Run the tests with -update to rewrite the expected output in the scripts
// (cmp stdout/stderr lines) from what the tools print now.
package scripttest

import (
	"flag"
	"os"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/archivetest"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/shell/tools"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden scripts")

// Main is the signature of every tool's entry point.
type Main func(args []string, stdio cli.Stdio) int

// commands turns the tools and helpers into testscript commands that run
// as the test binary itself, set up as the real binaries are (cli.Exec).
// Every package's scripts have mkarchive, which writes an archive's host
// folder (internal/devtools/archivetest), since every tool reads archives.
func commands(helpers map[string]Main) map[string]func() {
	m := make(map[string]func(), len(tools.All)+len(helpers)+1)
	for _, t := range tools.All {
		m[t.Name] = func() { cli.Exec(t.Main) }
	}
	m["mkarchive"] = func() { cli.Exec(archivetest.Main) }
	for name, run := range helpers {
		m[name] = func() { cli.Exec(run) }
	}
	return m
}

// Run runs every testdata/*.txtar script (or the ones in dir).
func Run(t *testing.T, dir string) {
	t.Helper()
	testscript.Run(t, testscript.Params{
		Dir:           dir,
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"age": age},
	})
}

// age DURATION FILE... sets the files' modification time DURATION back
// from now: a log its agent has not written to for that long.
func age(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: age DURATION FILE...")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	at := time.Now().Add(-d)
	for _, f := range args[1:] {
		ts.Check(os.Chtimes(ts.MkAbs(f), at, at))
	}
}

// RunMain is TestMain's body: it makes the test binary able to run as any
// of the tools, and as the helpers a package's scripts need (nil for none;
// a helper hides a program of the same name on PATH), then runs the tests.
func RunMain(m *testing.M, helpers map[string]Main) {
	testscript.Main(m, commands(helpers))
}
