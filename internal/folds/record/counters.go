package record

import "cmp"

// Counter names one event-level counter of a group: an int64 that merging
// adds up. Every counter is described once, by its row in Counters; the
// fold's merge, frozen form and partial state (package summary) are
// derived from that table, and the report (its record, csv, table and
// sort fields) from its row in Fields. Adding a plain counter is a
// constant here, a row there and one in Fields (and the line of
// summary's State.count that counts it).
//
// The counters are written in this order, in every format.
type Counter uint8

// The counters of a group.
const (
	Events Counter = iota
	ModelCalls
	ModelErrors
	TokInput // the tokens object, in its order
	TokOutput
	TokCacheRead
	TokCacheWrite
	TokTotal
	TokReasoning // parts of output and cache_write, after total as in pkg/event
	TokCacheWrite1h
	CostNano       // cost in 10^-9 USD
	UnpricedCalls  // model results marked unpriced: their cost is not in CostNano
	UnpricedTokens // and their tokens (total)
	NoUsageCalls   // model results marked no_usage: their tokens and cost are not known
	ToolCalls
	ToolFailures
	Errors
	Guardrails
	Kills
	NumCounters
)

// CounterInfo describes a counter.
type CounterInfo struct {
	// Name is its member in the report; a counter of an object (tokens)
	// has Object set and Name is its member there.
	Name   string
	Object string
	// Column is its column's name in the table, md and html, which
	// --columns and --sort take too, when it is not Name: tokens for
	// tokens.total. Every view that names a counter's column reads it.
	Column string
	// Partial is its member in the partial state when it differs from
	// Name. A counter of an object is written there as an array element.
	Partial string
	// Scale: the counter holds units of 10^-Scale (cost: 9, nano-dollars);
	// the report prints it as a decimal.
	Scale int
	// Always: written in the partial state even when zero.
	Always bool
}

// Counters describes every counter, indexed by Counter.
var Counters = [NumCounters]CounterInfo{
	Events:          {Name: "events", Always: true},
	ModelCalls:      {Name: "model_calls"},
	ModelErrors:     {Name: "model_errors"},
	TokInput:        {Name: "input", Column: "tokens_in", Object: "tokens"},
	TokOutput:       {Name: "output", Column: "tokens_out", Object: "tokens"},
	TokCacheRead:    {Name: "cache_read", Object: "tokens"},
	TokCacheWrite:   {Name: "cache_write", Object: "tokens"},
	TokTotal:        {Name: "total", Column: "tokens", Object: "tokens"},
	TokReasoning:    {Name: "reasoning", Object: "tokens"},
	TokCacheWrite1h: {Name: "cache_write_1h", Object: "tokens"},
	CostNano:        {Name: "cost_usd", Column: "cost", Partial: "cost_nano_usd", Scale: 9},
	UnpricedCalls:   {Name: "unpriced_calls"},
	UnpricedTokens:  {Name: "unpriced_tokens"},
	NoUsageCalls:    {Name: "no_usage_calls"},
	ToolCalls:       {Name: "tool_calls"},
	ToolFailures:    {Name: "tool_failures", Column: "failed"},
	Errors:          {Name: "errors"},
	Guardrails:      {Name: "guardrails"},
	Kills:           {Name: "kills"},
}

// Path is the flat name of the counter, as the record's field and csv
// name it: tokens.input.
func (c Counter) Path() string {
	if o := Counters[c].Object; o != "" {
		return o + "." + Counters[c].Name
	}
	return Counters[c].Name
}

// ColumnName is the name of the counter's column (see CounterInfo.Column).
func (c Counter) ColumnName() string {
	return cmp.Or(Counters[c].Column, Counters[c].Name)
}
