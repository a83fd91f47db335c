// Command evimport reads the session logs of Claude Code, Codex, pi and
// Gemini CLI as envelope events. See docs/evimport.md.
package main

import (
	"github.com/evtools/evtools/internal/cli"
	"github.com/evtools/evtools/internal/evimport"
)

func main() { cli.Exec(evimport.Main) }
