// Command mkarchive writes an evtools archive's host folder of the
// events it reads, for benchmarks of the tools that read archives:
//
//	evimport ~/.claude/projects | go run ./internal/devtools/cmd/mkarchive -day ARCHIVE/laptop
//
// See internal/devtools/archivetest.Main for its flags.
package main

import (
	"os"

	"github.com/evtools/evtools/internal/devtools/archivetest"
	"github.com/evtools/evtools/internal/shell/cli"
)

func main() {
	os.Exit(archivetest.Main(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
