package pretty

import "github.com/evtools/evtools/internal/eventtext"

// The values the pretty view shows are read as the HTML transcript reads
// them (package eventtext).
var (
	textOf    = eventtext.Text
	callsOf   = eventtext.Calls
	modelName = eventtext.Model
	bestArg   = eventtext.BestArg
	compact   = eventtext.Compact
	oneLine   = eventtext.OneLine
	cost      = eventtext.Cost
)
