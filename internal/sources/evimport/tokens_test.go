package evimport

import (
	"encoding/json"
	"testing"

	"github.com/evtools/evtools/internal/core/prices"
)

// tokens are the counts of a usage as evimport defines them.
type tokens struct{ input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning int64 }

func countsOf(u usage) tokens {
	return tokens{u.input, u.output, u.cacheRead, u.cacheWrite, u.cacheWrite1h, u.reasoning}
}

// Each source's counts mapped to one definition: input is every prompt
// token, the cache counts are parts of it, output every generated token,
// reasoning a part of it.
func TestTokenMapping(t *testing.T) {
	var claude claudeUsage
	json.Unmarshal([]byte(`{"input_tokens":3,"cache_creation_input_tokens":4210,"cache_read_input_tokens":11872,
		"cache_creation":{"ephemeral_5m_input_tokens":4000,"ephemeral_1h_input_tokens":210},"output_tokens":143}`), &claude)
	var pi piUsage
	json.Unmarshal([]byte(`{"input":900,"output":60,"cacheRead":5200,"cacheWrite":30,"cost":{"total":0.5}}`), &pi)
	gemini := geminiTokens{Input: 8200, Output: 45, Cached: 6100, Thoughts: 120, Tool: 7}
	for _, c := range []struct {
		source string
		got    usage
		want   tokens
	}{
		{"claude: input_tokens leave the cache out", claudeTokens(&claude), tokens{16085, 143, 11872, 4210, 210, 0}},
		{"claude: no usage", claudeTokens(nil), tokens{}},
		{"pi: input leaves the cache out", piTokens(&pi), tokens{6130, 60, 5200, 30, 0, 0}},
		{"gemini: input holds the cache; thoughts and tool prompts apart", gemini.usage(), tokens{8207, 165, 6100, 0, 0, 120}},
	} {
		if got := countsOf(c.got); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.source, got, c.want)
		}
	}
	if u := piTokens(&pi); !u.hasCost || u.cost != 0.5 {
		t.Errorf("pi's recorded cost: %+v", u)
	}
	json.Unmarshal([]byte(`{"input":300,"output":5,"cost":{"total":0}}`), &pi)
	if u := piTokens(&pi); u.hasCost {
		t.Errorf("pi's cost 0 for a call with tokens was taken as the cost: %+v", u)
	}
}

// Codex writes token_count records again with unchanged totals; a count is
// new only when total_token_usage moves.
func TestCodexTokenCounts(t *testing.T) {
	c := newConverter(prices.Default())
	s := &session{id: "s", tools: map[string]int{}}
	b := newBuilder(c, s, mainAgent, false)
	st := &codexState{}
	count := func(total, last *codexTokens) {
		c.codexTokens(b, st, codexRec{typ: "event_msg token_count", p: codexPayload{Info: &codexTokenInfo{Total: total, Last: last}}})
	}
	tk := func(in, cached, out, total int64) *codexTokens {
		return &codexTokens{Input: in, Cached: cached, Output: out, Total: total}
	}
	count(tk(100, 10, 5, 105), tk(100, 10, 5, 105))   // counted
	count(tk(100, 10, 5, 105), tk(100, 10, 5, 105))   // the same totals again: not
	c.codexTokens(b, st, codexRec{p: codexPayload{}}) // a heartbeat without info: not
	count(tk(250, 90, 12, 262), tk(150, 80, 7, 157))  // counted: its last
	count(tk(300, 90, 20, 320), nil)                  // counted: the step of the totals
	var got []tokens
	for _, e := range b.out {
		if e.kind == "model_result" {
			var p struct{ Input, Output, Cache_read int64 }
			json.Unmarshal(e.payload, &p)
			got = append(got, tokens{input: p.Input, output: p.Output, cacheRead: p.Cache_read})
		}
	}
	want := []tokens{{input: 100, output: 5, cacheRead: 10}, {input: 150, output: 7, cacheRead: 80}, {input: 50, output: 8, cacheRead: 0}}
	if len(got) != len(want) {
		t.Fatalf("counted %d calls %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
}
