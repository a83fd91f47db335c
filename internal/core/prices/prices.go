// Package prices is the price table evimport computes costs from: a dated
// snapshot of models.dev's table (prices.json, made by gen from models.dev;
// README.md says where it comes from and how to regenerate it), plus the
// prices a user adds with --prices FILE in the same shape.
package prices

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

//go:embed prices.json
var snapshot []byte

// Rates are prices in USD per million tokens. A zero cache price means
// the table does not say (see Price.Cost for what is used then).
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read,omitempty"`
	CacheWrite   float64 `json:"cache_write,omitempty"`
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
}

// Price is one model's prices.
type Price struct {
	Rates
	// Tiers are the prices of a call whose prompt is above a size, lowest
	// size first.
	Tiers []Tier `json:"tiers,omitempty"`
}

// Tier is the price of a call whose prompt (every input token, cached or
// not) is above AboveTokens.
type Tier struct {
	AboveTokens int64 `json:"above_tokens"`
	Rates
}

// File is the JSON shape of prices.json and of a --prices file.
type File struct {
	Source    string                      `json:"source,omitempty"`
	Unit      string                      `json:"unit,omitempty"`
	Providers map[string]map[string]Price `json:"providers"`
}

// Table looks models up by provider and name.
type Table struct {
	providers map[string]map[string]Price
	order     []string // providers searched when the hint has no match
}

// Default returns the table of the embedded snapshot.
func Default() *Table {
	t, err := parse(snapshot)
	if err != nil {
		panic("prices.json: " + err.Error()) // checked by the package's test
	}
	return t
}

func parse(data []byte) (*Table, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Providers == nil {
		return nil, fmt.Errorf(`no "providers" object`)
	}
	t := &Table{providers: map[string]map[string]Price{}}
	t.add(f)
	return t, nil
}

// Add reads a --prices file (the shape of prices.json) over the table:
// its models are added, and replace the table's of the same provider and
// name.
func (t *Table) Add(data []byte) error {
	extra, err := parse(data)
	if err != nil {
		return err
	}
	t.add(File{Providers: extra.providers})
	return nil
}

func (t *Table) add(f File) {
	for prov, models := range f.Providers {
		prov = strings.ToLower(prov)
		if t.providers[prov] == nil {
			t.providers[prov] = map[string]Price{}
		}
		for name, p := range models {
			sort.Slice(p.Tiers, func(i, j int) bool { return p.Tiers[i].AboveTokens < p.Tiers[j].AboveTokens })
			t.providers[prov][strings.ToLower(name)] = p
		}
	}
	t.order = t.order[:0]
	for prov := range t.providers {
		t.order = append(t.order, prov)
	}
	sort.Slice(t.order, func(i, j int) bool {
		ri, rj := rank(t.order[i]), rank(t.order[j])
		if ri != rj {
			return ri < rj
		}
		return t.order[i] < t.order[j]
	})
}

// firstProviders are searched first, in this order, when a model is not
// found under the provider the log names: the makers of the models the
// four agents run.
var firstProviders = []string{"anthropic", "openai", "google"}

func rank(prov string) int {
	for i, p := range firstProviders {
		if p == prov {
			return i
		}
	}
	return len(firstProviders)
}

var (
	dateSuffix     = regexp.MustCompile(`-(20\d{6}|\d{4}-\d{2}-\d{2})$`)
	versionSuffix  = regexp.MustCompile(`-v\d+(:\d+)?$`)
	regionPrefix   = regexp.MustCompile(`^(us|eu|jp|apac|au|ca|global|us-gov)\.`)
	vendorPrefixes = []string{"anthropic.", "google.", "openai."}
)

// Normalize is the model name as the table spells it: lower case, without
// a routing prefix (converse/..., openrouter's anthropic/...), a cloud
// region and vendor prefix (Bedrock's us.anthropic.), a Bedrock version
// suffix (-v1:0), and with Vertex's @ before a date made a dash
// (claude-sonnet-4-5@20250929).
func Normalize(model string) string {
	if n, ok := normalized.Load(model); ok {
		return n.(string)
	}
	n := normalize(model)
	if normalizedCount.Add(1) <= maxNormalized {
		normalized.Store(model, n)
	}
	return n
}

// normalized remembers what Normalize made of the first maxNormalized
// names it was given: a log names the same few models in every response,
// and Cost asks for each (two regular expressions a call, a tenth of
// evimport's allocations before).
var (
	normalized      sync.Map // model -> its normalized name
	normalizedCount atomic.Int64
)

const maxNormalized = 4096

func normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = regionPrefix.ReplaceAllString(m, "")
	for _, p := range vendorPrefixes {
		m = strings.TrimPrefix(m, p)
	}
	m = versionSuffix.ReplaceAllString(m, "")
	return strings.ReplaceAll(m, "@", "-")
}

// Lookup finds the price of model, as a log spells it, preferring
// provider's entry (a hint: "" for none). The rule, in this order: the
// normalized name (Normalize); without its date suffix
// (claude-sonnet-4-5-20250929 as claude-sonnet-4-5 where only that is
// listed); with a dot between two digits made a dash (Copilot's
// claude-sonnet-4.5 is Anthropic's claude-sonnet-4-5); with -preview added
// (Gemini CLI logs gemini-3-pro, which Google prices as
// gemini-3-pro-preview) or, when it has one, taken off. Each name is tried
// under the provider, then under every provider in a fixed order, before
// the next. ok is false when no entry matches: the model is unpriced.
func (t *Table) Lookup(provider, model string) (p Price, ok bool) {
	name := Normalize(model)
	if name == "" {
		return Price{}, false
	}
	provs := []string{strings.ToLower(provider)}
	provs = append(provs, t.order...)
	for _, n := range candidates(name) {
		for _, prov := range provs {
			if p, ok := t.providers[prov][n]; ok {
				return p, true
			}
		}
	}
	return Price{}, false
}

var versionDot = regexp.MustCompile(`(\d)\.(\d)`)

// candidates are the names a normalized model name is looked up as, in
// the order Lookup tries them.
func candidates(name string) []string {
	names := []string{name}
	add := func(n string) {
		for _, m := range names {
			if m == n {
				return
			}
		}
		names = append(names, n)
	}
	add(dateSuffix.ReplaceAllString(name, ""))
	add(versionDot.ReplaceAllString(name, "$1-$2"))
	if short, ok := strings.CutSuffix(name, "-preview"); ok {
		add(short)
	} else {
		add(name + "-preview")
	}
	return names
}

// Tokens are the counts a cost is computed from. Input is every prompt
// token; CacheRead and CacheWrite (with CacheWrite1h, its 1-hour part)
// are parts of it.
type Tokens struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h int64
}

// Cost is the cost of one call in USD. A call whose prompt is above a
// tier's size is priced wholly at that tier, as Anthropic and Google bill
// it. A price the table lacks falls back: cache reads and 5-minute cache
// writes to the input price (a provider that lists no cache price bills
// cached tokens as others), 1-hour cache writes to twice the input price
// for Anthropic's models (Anthropic's rate; models.dev does not list it)
// and to the 5-minute rate for the others.
func (p Price) Cost(model string, t Tokens) float64 {
	r := p.Rates
	for _, tier := range p.Tiers {
		if t.Input > tier.AboveTokens {
			r = tier.Rates
		}
	}
	in, out, read, write, write1h := r.Input, r.Output, r.CacheRead, r.CacheWrite, r.CacheWrite1h
	if read == 0 {
		read = in
	}
	if write == 0 {
		write = in
	}
	if write1h == 0 {
		write1h = write
		if strings.Contains(Normalize(model), "claude") {
			write1h = 2 * in
		}
	}
	uncached := t.Input - t.CacheRead - t.CacheWrite
	if uncached < 0 {
		uncached = 0
	}
	write5m := t.CacheWrite - t.CacheWrite1h
	if write5m < 0 {
		write5m = 0
	}
	usd := float64(uncached)*in + float64(t.CacheRead)*read + float64(write5m)*write +
		float64(t.CacheWrite1h)*write1h + float64(t.Output)*out
	return usd / 1e6
}
