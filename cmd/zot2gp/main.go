// Command zot2gp converts zot RPC events to envelope events; see docs/zot2gp.md.
package main

import (
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

func main() { cli.Exec(zot2gp.Main) }
