// Command evcursor re-numbers seq, passes what comes after a cursor, and
// checks a stream's seq. See docs/evcursor.md.
package main

import (
	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/evcursor"
)

func main() { cli.Exec(evcursor.Main) }
