// Command zot2gp converts zot RPC events to envelope events; see docs/zot2gp.md.
package main

import (
	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/zot2gp"
)

func main() { cli.Exec(zot2gp.Main) }
