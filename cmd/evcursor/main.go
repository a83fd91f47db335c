// Command evcursor re-numbers seq, passes what comes after a cursor, and
// checks a stream's seq. See docs/evcursor.md.
package main

import (
	"github.com/evtools/evtools/internal/filters/evcursor"
	"github.com/evtools/evtools/internal/shell/cli"
)

func main() { cli.Exec(evcursor.Main) }
