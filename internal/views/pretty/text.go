package pretty

import "github.com/evtools/evtools/internal/views/eventtext"

// The values the pretty view shows are read, and its costs and durations
// written, as the HTML transcript's are (package eventtext).
var (
	textOf    = eventtext.Text
	callsOf   = eventtext.Calls
	modelName = eventtext.Model
	bestArg   = eventtext.BestArg
	compact   = eventtext.Compact
	oneLine   = eventtext.OneLine
	cost      = eventtext.Cost
	nonEmpty  = eventtext.NonEmpty
	number    = eventtext.Number
	duration  = eventtext.Duration
	seconds   = eventtext.Seconds
)
