// Command evsum summarises agent runs; see internal/evsum and docs/evsum.md.
package main

import (
	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/evsum"
)

func main() { cli.Exec(evsum.Main) }
