package prices

import (
	"math"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"claude-sonnet-4-5-20250929":                           "claude-sonnet-4-5-20250929",
		"Claude-Sonnet-4-5":                                    "claude-sonnet-4-5",
		"converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0": "claude-haiku-4-5-20251001",
		"us.anthropic.claude-opus-4-1-20250805-v1:0":           "claude-opus-4-1-20250805",
		"anthropic/claude-sonnet-4":                            "claude-sonnet-4",
		"claude-sonnet-4-5@20250929":                           "claude-sonnet-4-5-20250929",
		"openai/gpt-5-codex":                                   "gpt-5-codex",
		" gemini-2.5-pro ":                                     "gemini-2.5-pro",
	} {
		Normalize(in) // the second time, from what the first remembered
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// The models the four agents' logs name are found as the logs spell
// them, under the provider they give or under none.
func TestLookup(t *testing.T) {
	table := Default()
	for _, c := range []struct {
		provider, model string
		input, output   float64
	}{
		{"anthropic", "claude-sonnet-4-5-20250929", 3, 15},
		{"", "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", 1, 5},
		{"openai", "gpt-5-codex", 1.25, 10},
		{"", "gpt-5.3-codex", 1.75, 14},
		{"google", "gemini-2.5-pro", 1.25, 10},
		{"anthropic", "claude-opus-4-6", 5, 25},
		// only the dated name is listed for some: the date is dropped
		{"anthropic", "claude-sonnet-4-5-20991231", 3, 15},
	} {
		p, ok := table.Lookup(c.provider, c.model)
		if !ok || p.Input != c.input || p.Output != c.output {
			t.Errorf("Lookup(%q, %q) = %+v, %v; want input %v, output %v", c.provider, c.model, p, ok, c.input, c.output)
		}
	}
	for _, m := range []string{"", "acme-large-2", "<synthetic>"} {
		if p, ok := table.Lookup("", m); ok {
			t.Errorf("Lookup(%q) = %+v: want no price", m, p)
		}
	}
}

func TestAdd(t *testing.T) {
	table := Default()
	if err := table.Add([]byte(`{"providers":{"acme":{"acme-large-2":{"input":2,"output":10}},"anthropic":{"claude-opus-4-6":{"input":1,"output":2}}}}`)); err != nil {
		t.Fatal(err)
	}
	if p, ok := table.Lookup("", "acme-large-2"); !ok || p.Input != 2 {
		t.Errorf("added model: %+v, %v", p, ok)
	}
	if p, _ := table.Lookup("anthropic", "claude-opus-4-6"); p.Input != 1 || p.CacheRead != 0 {
		t.Errorf("replaced model: %+v, want the file's entry as it is", p)
	}
	for _, bad := range []string{`[]`, `{"models":{}}`, `{"providers":{"x":{"m":{"input":"2"}}}}`} {
		if err := table.Add([]byte(bad)); err == nil {
			t.Errorf("Add(%s): no error", bad)
		}
	}
}

func TestCost(t *testing.T) {
	sonnet := Price{Rates: Rates{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	tiered := Price{Rates: Rates{Input: 2, Output: 12, CacheRead: 0.2}, Tiers: []Tier{{AboveTokens: 200000, Rates: Rates{Input: 4, Output: 18, CacheRead: 0.4}}}}
	for _, c := range []struct {
		name  string
		price Price
		model string
		tok   Tokens
		want  float64
	}{
		{"uncached, cache read and write, output", sonnet, "claude-sonnet-4-5",
			Tokens{Input: 16085, Output: 143, CacheRead: 11872, CacheWrite: 4210}, (3*3 + 11872*0.3 + 4210*3.75 + 143*15) / 1e6},
		// 1-hour writes at twice the input price for Anthropic's models
		{"1-hour cache writes", sonnet, "claude-sonnet-4-5",
			Tokens{Input: 1000, CacheWrite: 1000, CacheWrite1h: 400}, (600*3.75 + 400*6) / 1e6},
		{"1-hour writes of another maker at the 5-minute rate", Price{Rates: Rates{Input: 1, CacheWrite: 1.5}}, "glm-4.6",
			Tokens{Input: 100, CacheWrite: 100, CacheWrite1h: 100}, 100 * 1.5 / 1e6},
		{"no cache price: the input price", Price{Rates: Rates{Input: 2, Output: 120}}, "gemini-3-pro-image-preview",
			Tokens{Input: 1000, CacheRead: 500, Output: 10}, (1000*2 + 10*120) / 1e6},
		{"at the tier's size: the base price", tiered, "gemini-3-pro-preview",
			Tokens{Input: 200000, Output: 100}, (200000*2 + 100*12) / 1e6},
		{"above it: the whole call at the tier's", tiered, "gemini-3-pro-preview",
			Tokens{Input: 200001, CacheRead: 1, Output: 100}, (200000*4 + 0.4 + 100*18) / 1e6},
	} {
		if got := c.price.Cost(c.model, c.tok); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// Every model name the agents' logs were seen to write, and those the
// corpus generator writes, maps to the entry the lookup rule says, or to
// none: Copilot's dotted claude-sonnet-4.5, Gemini CLI's gemini-3-pro
// (priced as gemini-3-pro-preview), Bedrock's and OpenRouter's prefixes,
// dated names.
func TestLookupLoggedNames(t *testing.T) {
	table := Default()
	for _, c := range []struct {
		model         string
		input, output float64 // 0, 0: unpriced
	}{
		// names seen in real session logs
		{"claude-sonnet-4-5", 3, 15},
		{"claude-sonnet-4-5-20250929", 3, 15},
		{"claude-opus-4-6", 5, 25},
		{"converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", 1, 5},
		{"claude-sonnet-4.5", 3, 15}, // Copilot CLI
		{"claude-sonnet-4.6", 3, 15},
		{"gpt-5.1-codex", 1.25, 10},
		{"gpt-5.3-codex", 1.75, 14},
		{"gemini-3-pro-image-preview", 2, 12}, // text output, not the $120 of images
		// the corpus generator's
		{"claude-haiku-4-5-20251001", 1, 5},
		{"claude-opus-4-5-20251101", 5, 25},
		{"claude-sonnet-4-6", 3, 15},
		{"gpt-5-codex", 1.25, 10},
		{"gpt-5.1-codex-mini", 0.25, 2},
		{"gpt-5.1-mini", 0, 0}, // no such model: gpt-5-mini is not taken for it
		{"gemini-2.5-pro", 1.25, 10},
		{"gemini-2.5-flash", 0.3, 2.5},
		{"deepseek-v4-pro", 0.435, 0.87},
		{"deepseek-v4-flash", 0.14, 0.28},
		// the rule's other cases
		{"gemini-3-pro", 2, 12}, // as Gemini CLI logs it
		{"gemini-3-flash", 0.5, 3},
		{"models/gemini-3-pro-preview", 2, 12},
		{"us.anthropic.claude-opus-4-1-20250805-v1:0", 15, 75},
		{"anthropic/claude-sonnet-4.5", 3, 15},
		{"claude-opus-4-5@20251101", 5, 25},
		{"gemini-3.1-flash-lite-preview", 0.25, 1.5},
	} {
		p, ok := table.Lookup("", c.model)
		if c.input == 0 && c.output == 0 {
			if ok {
				t.Errorf("Lookup(%q) = %+v: want no price", c.model, p)
			}
			continue
		}
		if !ok || p.Input != c.input || p.Output != c.output {
			t.Errorf("Lookup(%q) = %+v, %v; want input %v, output %v", c.model, p, ok, c.input, c.output)
		}
	}
}
