package evimport

// Claude Code's own account of a session's cost: since 2.1.3xx a
// cost-state record, written when the agent exits (each prompt of
// claude -p), holding what the session has cost so far, resumes included
// (totalCostUSD), and each model's tokens and cost (modelUsage). Its
// assistant lines no longer carry a costUSD of their own. docs/formats.md
// says how it is read.

// claudeCost is a cost-state record: the session's cost, and each
// model's part of it. (The models' tokens, read for the checks of the
// line, are those of every request, those the log does not show
// included.)
type claudeCost struct {
	total  float64
	models map[string]float64
	at     int // where it is in its session's main thread (claudeGroup.main)
}

// claudeCostLine is a cost-state line as its table reads it: the
// models' tokens are read for the checks of the line (one of the wrong
// type is its error), their costs kept.
type claudeCostLine struct {
	TotalCostUSD float64                     `json:"totalCostUSD"`
	ModelUsage   map[string]claudeModelUsage `json:"modelUsage"`
}

// claudeModelUsage is a model's member of modelUsage: a map by model,
// read as encoding/json reads one (its path names no model:
// modelUsage.costUSD).
type claudeModelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	CacheCreation1h          int64   `json:"cacheCreationEphemeral1hInputTokens"`
	CostUSD                  float64 `json:"costUSD"`
}

var claudeCostTable = tableFor[claudeCostLine]()

// claudeCostState reads a cost-state line (checked JSON): a member of the
// wrong type is the line's error, in the words of fields.go.
func claudeCostState(data []byte) (*claudeCost, error) {
	var l claudeCostLine
	d := &fields{}
	claudeCostTable.decode(d, data, &l)
	cs := &claudeCost{total: l.TotalCostUSD, models: map[string]float64{}}
	for model, u := range l.ModelUsage {
		cs.models[model] = u.CostUSD
	}
	return cs, d.err
}

// claudeRates is the cost of a call under the session's latest
// cost-state: each model's cost, spread over the model's calls that the
// cost-state covers (those the log holds before it) in proportion to what
// each would cost at the model's prices (claudeWeight), so that they add
// up to what Claude Code says the model cost. That cost includes
// requests the log does not show (a stream cut short, a compaction's
// summary): their part is carried by the calls that are shown, so that
// the session costs what the agent says, no dollar counted twice. A call
// after the cost-state (a session still running, or killed before it
// wrote another) is priced at the same rate. nil without a cost-state; a
// model it does not list, or lists at no cost for its tokens (Claude
// Code had no price for it), is priced as any other.
func (c *converter) claudeRates(g *claudeGroup) func(model string, u usage) (float64, bool) {
	cs := g.cost
	if cs == nil {
		return nil
	}
	// the covered calls: the main thread's responses before the
	// cost-state, a subagent's up to the main thread's line before it
	// (each response once: its last line has its usage)
	covered := map[respKey]claudeLine{}
	var until int64
	note := func(r claudeRec) {
		l := r.line
		if l.Type == "assistant" && l.Message != nil && !l.IsAPIError && l.Message.Model != "<synthetic>" {
			if k := claudeKey(l.Message, l.RequestID); k != (respKey{}) {
				covered[k] = l
			} else {
				covered[respKey{uuid: l.UUID}] = l
			}
		}
	}
	for _, r := range g.main[:cs.at] {
		note(r)
		until = max(until, r.ms)
	}
	for _, recs := range g.agents {
		for _, r := range recs {
			if r.ms <= until {
				note(r)
			}
		}
	}
	weights := map[string]float64{}
	for _, l := range covered {
		weights[l.Message.Model] += c.claudeWeight(l.Message.Model, claudeTokens(l.Message.Usage))
	}
	rates := map[string]float64{} // USD per unit of weight
	for model, cost := range cs.models {
		if w := weights[model]; w > 0 && cost > 0 {
			rates[model] = cost / w
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
	t := u.tokens()
	if p, ok := c.price("anthropic", model); ok {
		p.Tiers = nil
		return p.Cost(model, t)
	}
	uncached := t.Input - t.CacheRead - t.CacheWrite
	return float64(uncached) + 5*float64(t.Output) + 0.1*float64(t.CacheRead) +
		1.25*float64(t.CacheWrite-t.CacheWrite1h) + 2*float64(t.CacheWrite1h)
}
