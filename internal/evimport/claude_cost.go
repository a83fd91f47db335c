package evimport

import (
	"github.com/evtools/evtools/internal/prices"
)

// Claude Code's own account of a session's cost: since 2.1.3xx a
// cost-state record, written when the agent exits (each prompt of
// claude -p), holding what the session has cost so far, resumes included
// (totalCostUSD), and each model's tokens and cost (modelUsage). Its
// assistant lines no longer carry a costUSD of their own. docs/formats.md
// says how it is read.

// claudeCost is a cost-state record.
type claudeCost struct {
	total  float64
	models map[string]claudeModelCost
}

// claudeModelCost is one model's part of a cost-state: its tokens as a
// usage (input with the cache, as evimport counts it) and its cost.
type claudeModelCost struct {
	u    usage
	cost float64
}

// claudeCostState reads a cost-state line (checked JSON): a member of the
// wrong type is the line's error, in the words of fields.go.
func claudeCostState(data []byte) (*claudeCost, error) {
	d := &fields{}
	cs := &claudeCost{models: map[string]claudeModelCost{}}
	d.each(data, func(k, v []byte) {
		switch string(k) {
		case "totalCostUSD":
			var f *float64
			if d.float(v, "totalCostUSD", &f); f != nil {
				cs.total = *f
			}
		case "modelUsage":
			if v[0] == 'n' {
				return
			}
			d.in(v, "modelUsage", func(model, v []byte) {
				// a map by model: as encoding/json reads one, its path
				// names no model (modelUsage.costUSD)
				var uncached, read, write, w1h, output int64
				var cost *float64
				switch v[0] {
				case 'n':
				case '{':
					d.each(v, func(k, v []byte) {
						switch string(k) {
						case "inputTokens":
							d.int(v, "inputTokens", &uncached)
						case "outputTokens":
							d.int(v, "outputTokens", &output)
						case "cacheReadInputTokens":
							d.int(v, "cacheReadInputTokens", &read)
						case "cacheCreationInputTokens":
							d.int(v, "cacheCreationInputTokens", &write)
						case "cacheCreationEphemeral1hInputTokens":
							d.int(v, "cacheCreationEphemeral1hInputTokens", &w1h)
						case "costUSD":
							d.float(v, "costUSD", &cost)
						}
					})
				default:
					d.path = d.path[:len(d.path)-1]
					d.wrong(v, "modelUsage", "object")
					d.path = append(d.path, "modelUsage")
				}
				m := claudeModelCost{u: cacheApart(uncached, read, write, output)}
				m.u.cacheWrite1h = w1h
				if cost != nil {
					m.cost = *cost
				}
				cs.models[string(model)] = m
			})
		}
	})
	return cs, d.err
}

// claudeRates is the cost of a call under the session's cost-state cs:
// each model's cost, spread over its calls in proportion to what each
// would cost at the model's prices (weight). The cost-state's tokens of
// a model are those of every call the session made with it, so its
// calls in the log cost together what it says, when the log holds them
// all; a call the log lacks (a side request of the agent's) keeps its
// part out, and a call after the last cost-state (a session killed
// before it could write one) gets the same rate. nil without a
// cost-state; a model it does not list, or lists at no cost for tokens
// (Claude Code had no price for it), is priced as any other.
func (c *converter) claudeRates(cs *claudeCost) func(model string, u usage) (float64, bool) {
	if cs == nil {
		return nil
	}
	rates := map[string]float64{} // USD per unit of weight
	for model, m := range cs.models {
		if w := c.claudeWeight(model, m.u); w > 0 && m.cost > 0 {
			rates[model] = m.cost / w
		}
	}
	return func(model string, u usage) (float64, bool) {
		r, ok := rates[model]
		if !ok {
			return 0, false
		}
		return r * c.claudeWeight(model, u), true
	}
}

// claudeWeight is what u would cost at the model's prices in the table,
// without long-context tiers (Claude Code prices no call above them
// higher); for a model the table lacks, at Anthropic's ratios, the
// input's price 1: output 5, a cache read 0.1, a 5-minute write 1.25, a
// 1-hour write 2. Only the ratios matter: the cost-state says the sum.
func (c *converter) claudeWeight(model string, u usage) float64 {
	t := prices.Tokens{Input: u.input, Output: u.output, CacheRead: u.cacheRead, CacheWrite: u.cacheWrite, CacheWrite1h: u.cacheWrite1h}
	if p, ok := c.price("anthropic", model); ok {
		p.Tiers = nil
		return p.Cost(model, t)
	}
	uncached := t.Input - t.CacheRead - t.CacheWrite
	return float64(uncached) + 5*float64(t.Output) + 0.1*float64(t.CacheRead) +
		1.25*float64(t.CacheWrite-t.CacheWrite1h) + 2*float64(t.CacheWrite1h)
}
