// Command evcursor re-numbers seq, passes what comes after a cursor, and
// checks a stream's seq. See docs/evcursor.md.
package main

import (
	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/evcursor"
)

func main() { cli.Exec(evcursor.Main) }
