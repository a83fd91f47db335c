// Command evfilter keeps the events for which a jq expression holds; see docs/evfilter.md.
package main

import (
	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/evfilter"
)

func main() { cli.Exec(evfilter.Main) }
