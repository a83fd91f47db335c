// Command evimport reads the session logs of coding agents as envelope
// events; evimport --help lists the agents. See docs/evimport.md.
package main

import (
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/evimport"
)

func main() { cli.Exec(evimport.Main) }
