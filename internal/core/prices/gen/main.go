// Command gen makes internal/core/prices/prices.json from models.dev's price
// table: either models.dev's api.json (https://models.dev/api.json, every
// provider with its models and their "cost") or a file of the
// {"providers":{PROVIDER:{MODEL:{input,output,...}}}} shape made from the
// TOML files of the models.dev repository (providers/*/models/**/*.toml,
// their [cost] tables). It keeps the providers evimport needs and only
// the prices, so that the snapshot stays small. scripts/prices.sh runs it.
//
//	go run ./internal/core/prices/gen -source 'models.dev, commit ..., date' FILE > internal/core/prices/prices.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/evtools/evtools/internal/core/prices"
)

// kept are the providers of the models the four agents run, and of the
// models pi and the others are most often pointed at.
var kept = []string{"anthropic", "openai", "google", "deepseek", "xai", "mistral", "zai", "moonshotai"}

// textOutput corrects models.dev's output price of Google's image models,
// which is the price of an image's tokens, ten times or more that of text:
// the agents' logs count text and thinking, and no log tells image tokens
// apart, so output is priced at the text rate Google bills
// (gemini-3-pro-image-preview's text at $12, not $120).
var textOutput = map[string]float64{
	"google/gemini-2.5-flash-image":     2.5,
	"google/gemini-3-pro-image-preview": 12,
}

// cost is a [cost] table as models.dev writes it.
type cost struct {
	tierish
	Tiers           []tier   `json:"tiers"`
	ContextOver200k *tierish `json:"context_over_200k"`
}

type tier struct {
	AboveTokens int64 `json:"above_tokens"`
	tierish
}

// tierish is the prices of a [cost] table or of one of its tiers.
type tierish struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

func (t tierish) rates() prices.Rates {
	return prices.Rates{Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite}
}

func main() {
	source := flag.String("source", "", "where the table comes from (its commit and date), written into the snapshot")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen -source TEXT FILE (api.json or the providers table)")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	costs, err := read(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, flag.Arg(0)+":", err)
		os.Exit(1)
	}
	out := prices.File{Source: *source, Unit: "USD per 1,000,000 tokens", Providers: map[string]map[string]prices.Price{}}
	for _, prov := range kept {
		for name, c := range costs[prov] {
			if out.Providers[prov] == nil {
				out.Providers[prov] = map[string]prices.Price{}
			}
			p := convert(c)
			if text, ok := textOutput[prov+"/"+name]; ok {
				p.Output = text
			}
			out.Providers[prov][name] = p
		}
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}

// read takes either shape: {"providers":{p:{m:cost}}} or api.json's
// {p:{"models":{m:{"cost":cost}}}}.
func read(data []byte) (map[string]map[string]cost, error) {
	var table struct {
		Providers map[string]map[string]cost `json:"providers"`
	}
	if err := json.Unmarshal(data, &table); err == nil && table.Providers != nil {
		return table.Providers, nil
	}
	var api map[string]struct {
		Models map[string]struct {
			Cost *cost `json:"cost"`
		} `json:"models"`
	}
	if err := json.Unmarshal(data, &api); err != nil {
		return nil, err
	}
	out := map[string]map[string]cost{}
	for prov, p := range api {
		for name, m := range p.Models {
			if m.Cost == nil {
				continue
			}
			if out[prov] == nil {
				out[prov] = map[string]cost{}
			}
			out[prov][name] = *m.Cost
		}
	}
	return out, nil
}

func convert(c cost) prices.Price {
	p := prices.Price{Rates: c.tierish.rates()}
	tiers := c.Tiers
	if c.ContextOver200k != nil {
		tiers = append(tiers, tier{AboveTokens: 200000, tierish: *c.ContextOver200k})
	}
	sort.Slice(tiers, func(i, j int) bool { return tiers[i].AboveTokens < tiers[j].AboveTokens })
	for _, t := range tiers {
		p.Tiers = append(p.Tiers, prices.Tier{AboveTokens: t.AboveTokens, Rates: t.rates()})
	}
	return p
}
