// Command evsum summarises agent runs; see pkg/evsum and docs/evsum.md.
package main

import (
	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/evsum"
)

func main() { cli.Exec(evsum.Main) }
