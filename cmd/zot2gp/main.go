// Command zot2gp converts zot RPC events to envelope events; see docs/zot2gp.md.
package main

import (
	"os"

	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/zot2gp"
)

func main() {
	os.Exit(zot2gp.Main(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
