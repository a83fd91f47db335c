// Command evfilter keeps the events for which a jq expression holds; see docs/evfilter.md.
package main

import (
	"os"

	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/evfilter"
)

func main() {
	os.Exit(evfilter.Main(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
