// Command evsum summarises agent runs; see internal/folds/evsum and docs/evsum.md.
package main

import (
	"github.com/evtools/evtools/internal/folds/evsum"
	"github.com/evtools/evtools/internal/shell/cli"
)

func main() { cli.Exec(evsum.Main) }
