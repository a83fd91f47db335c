// Command evsum summarises agent runs; see pkg/evsum and docs/evsum.md.
package main

import (
	"os"

	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/evsum"
)

func main() {
	os.Exit(evsum.Main(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
