// Package scripttest runs the golden tests of the tools: txtar scripts in a
// package's testdata folder, with the tools built into the test binary.
//
// Run the tests with -update to rewrite the expected output in the scripts
// (cmp stdout/stderr lines) from what the tools print now.
package scripttest

import (
	"flag"
	"testing"

	"github.com/evtools/evtools/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden scripts")

// Main is the signature of every tool's entry point.
type Main func(args []string, stdio cli.Stdio) int

// Commands turns tools into testscript commands that run as the test binary
// itself, set up as the real binaries are (cli.Exec): call it from TestMain.
func Commands(tools map[string]Main) map[string]func() {
	m := make(map[string]func(), len(tools))
	for name, run := range tools {
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
	})
}

// RunMain is TestMain's body.
func RunMain(m *testing.M, tools map[string]Main) {
	testscript.Main(m, Commands(tools))
}
