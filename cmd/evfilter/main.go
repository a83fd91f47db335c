// Command evfilter keeps the events for which a jq expression holds; see docs/evfilter.md.
package main

import (
	"github.com/evtools/evtools/pkg/cli"
	"github.com/evtools/evtools/pkg/evfilter"
)

func main() { cli.Exec(evfilter.Main) }
