// Command evfilter keeps the events for which a jq expression holds; see docs/evfilter.md.
package main

import (
	"github.com/evtools/evtools/internal/filters/evfilter"
	"github.com/evtools/evtools/internal/shell/cli"
)

func main() { cli.Exec(evfilter.Main) }
