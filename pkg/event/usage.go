package event

import (
	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Token counters of a model result, in the order reports show them.
const (
	TokInput = iota
	TokOutput
	TokCacheRead
	TokCacheWrite
	TokTotal
	// TokReasoning is the part of the output that is reasoning, and
	// TokCacheWrite1h the part of the cache writes kept for an hour
	// (priced above the 5-minute ones), where the source says: parts,
	// never added to the total. They come after it so that the reports'
	// saved token arrays of before them read the same.
	TokReasoning
	TokCacheWrite1h
	NumTokens
)

// TokenNames are the reports' names of the token counters, in order.
var TokenNames = [NumTokens]string{"input", "output", "cache_read", "cache_write", "total", "reasoning", "cache_write_1h"}

// usageMembers are the payload members a model result's numbers go by,
// across providers and agents. For each counter the first spelling present
// counts; the others are ignored, so that a payload giving both
// prompt_tokens and input_tokens is not counted twice.
var usageMembers = []struct {
	name string
	slot int
}{
	{"input", TokInput}, {"input_tokens", TokInput}, {"prompt_tokens", TokInput},
	{"output", TokOutput}, {"output_tokens", TokOutput}, {"completion_tokens", TokOutput},
	{"cache_read", TokCacheRead}, {"cache_read_tokens", TokCacheRead},
	{"cache_read_input_tokens", TokCacheRead}, {"prompt_cache_hit_tokens", TokCacheRead},
	{"cache_write", TokCacheWrite}, {"cache_write_tokens", TokCacheWrite},
	{"cache_creation_input_tokens", TokCacheWrite},
	{"total", TokTotal}, {"total_tokens", TokTotal}, {"tokens", TokTotal},
	{"reasoning", TokReasoning}, {"reasoning_tokens", TokReasoning},
	{"cache_write_1h", TokCacheWrite1h},
	{"cost_usd", slotCost}, {"cost", slotCost},
}

const slotCost = NumTokens

// usageByLen indexes usageMembers by name length, so that a payload member
// is compared with the one or two names of its length, not with all.
var usageByLen = func() (idx [32][]int) {
	for i, m := range usageMembers {
		idx[len(m.name)] = append(idx[len(m.name)], i)
	}
	return idx
}()

// Usage is what a ModelResult says the call used.
type Usage struct {
	// Tokens by counter. The total is the payload's when it gives one,
	// else input plus output.
	Tokens   [NumTokens]int64
	CostNano int64 // cost in 10^-9 USD
	HasCost  bool
	// LatencyUS is the model's latency in microseconds, when the row
	// names a latency member and the payload has it.
	LatencyUS  int64
	HasLatency bool
	// Unpriced: the payload says "unpriced":true, a call whose model had
	// no price where its cost was worked out (evimport): its cost is not
	// known, which a sum must not pass off as 0.
	Unpriced bool
	// NoUsage: the payload says "no_usage":true, a call whose log records
	// no tokens (evimport): what it used is not known, not 0.
	NoUsage bool
	// OfSession: the payload says "usage_of":"session", a session's
	// totals where its log keeps no usage per call (evimport's Copilot
	// CLI): tokens and cost, but no call of its own.
	OfSession bool
	// OutOfRange names the first member read whose number does not fit
	// (20 digits, 1e400): it counts as absent, and "" when there is none.
	OutOfRange string
}

// Usage reads the tokens, cost and latency of a ModelResult event in one
// pass over its body. Roll-ups (a cumulative object, a run's total) are
// not read: only the body's own top-level numbers count.
func (e *Event) Usage() Usage {
	var u Usage
	if e.Meaning != ModelResult || len(e.Body) == 0 {
		return u
	}
	var have [NumTokens + 1]bool
	latency := e.Entry.members[Latency]
	e.eachBody(func(key, v []byte) bool {
		if jsonscan.KindOf(v) != jsonscan.Number {
			if string(key) == "usage_of" && string(v) == `"session"` {
				u.OfSession = true
			}
			if string(v) == "true" {
				switch string(key) {
				case "unpriced":
					u.Unpriced = true
				case "no_usage":
					u.NoUsage = true
				}
			}
			return true
		}
		for _, m := range latency {
			if string(key) == m && !u.HasLatency {
				u.LatencyUS, u.HasLatency = jsontext.ParseFixed(v, 3)
				u.outOfRange(m, u.HasLatency)
			}
		}
		if len(key) >= len(usageByLen) {
			return true
		}
		for _, i := range usageByLen[len(key)] {
			m := &usageMembers[i]
			if string(key) != m.name || have[m.slot] {
				continue
			}
			if m.slot == slotCost {
				u.CostNano, u.HasCost = jsontext.ParseFixed(v, 9)
				have[m.slot] = u.HasCost
				u.outOfRange(m.name, u.HasCost)
				break
			}
			n, ok := jsontext.ParseFixed(v, 0)
			if ok {
				u.Tokens[m.slot], have[m.slot] = n, true
			}
			u.outOfRange(m.name, ok)
			break
		}
		return true
	})
	if !have[TokTotal] {
		u.Tokens[TokTotal] = u.Tokens[TokInput] + u.Tokens[TokOutput]
	}
	return u
}

// outOfRange notes member name when its number, a JSON number, did not
// parse: it is too large for the counter.
func (u *Usage) outOfRange(name string, ok bool) {
	if !ok && u.OutOfRange == "" {
		u.OutOfRange = name
	}
}
