// Command evcursor re-numbers seq, passes what comes after a cursor, and
// checks a stream's seq. See docs/evcursor.md.
package main

import (
	"os"

	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/evcursor"
)

func main() {
	os.Exit(evcursor.Main(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
