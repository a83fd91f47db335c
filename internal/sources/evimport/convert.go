package evimport

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/evtools/evtools/internal/core/prices"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/pkg/jsonl"
)

// converter holds what every source's conversion shares: the price
// table, and the counts reported on stderr at the end.
type converter struct {
	table    *prices.Table
	host     string         // the events' host member (--host), "" for none
	unpriced map[string]int // model -> calls with tokens and no price
	unknown  map[string]int // "source type" -> records skipped
	// shapes: "source type" -> the members of those records, said with
	// the count, so that a new type's shape is known without the log
	shapes map[string]*memberSet
	// rec is the record being converted (decodeWith), whose members
	// skip notes when its type is unknown
	rec     []byte
	noUsage map[string]int // file -> model calls whose usage it does not record
	// copilotUntold: file -> Copilot CLI calls after its last
	// session.shutdown whose output only is known
	copilotUntold map[string]int
	// bad reports a record that is JSON but not of the shape its source
	// writes (a number where a string goes).
	bad  func(r record, reason error)
	stop error // the error that ends the run (--strict), once bad has said why
	keep bool  // keep the files' records once decoded (--follow reads them again)

	prices   map[[2]string]knownPrice // what price looked up
	missed   bool                     // a line named a session its file's scan did not find (claude)
	payloads arena                    // where the events' payloads are made (obj)
	// spare is the events of a session spooled, for the next session's
	// (a session's events are let go once spooled); codexLines the
	// records of rollouts converted, for the next group's
	spare      []event
	codexLines [][]codexRec
	fields     *fields // see takeFields
	// arena is what a worker's group of files is read into, one file
	// after the other, and read into again once the group is converted.
	arena []byte
}

func newConverter(table *prices.Table) *converter {
	return &converter{table: table, unpriced: map[string]int{}, unknown: map[string]int{}, shapes: map[string]*memberSet{}, noUsage: map[string]int{},
		copilotUntold: map[string]int{}, bad: func(record, error) {}}
}

// readFile reads the file called name, of about size bytes (as the scan
// found it), whole into the arena, after the files of its group read
// before it; when they do not leave room for it, into a new arena, the
// old one kept by their records until the group is converted.
func (c *converter) readFile(name string, size int) ([]byte, error) {
	rest := c.arena[len(c.arena):]
	if size >= cap(rest) {
		rest = make([]byte, 0, max(2*cap(c.arena), size+1, 64<<10))
		c.arena = rest
	}
	data, err := jsonl.ReadFile(name, rest)
	if cap(data) == cap(rest) { // read into the arena, not a buffer of its own
		c.arena = c.arena[:len(c.arena)+len(data)]
	}
	return data[:len(data):len(data)], err
}

// readSession reads the lines of f, a session of a database, into the
// arena, as readFile reads a file's.
func (c *converter) readSession(f *logFile) ([]byte, error) {
	rest := c.arena[len(c.arena):]
	data, err := f.db.database.export(f.name, f.sess, rest)
	if cap(data) == cap(rest) {
		c.arena = c.arena[:len(c.arena)+len(data)]
	} else {
		c.arena = data // a new array, grown by append: the next session is read after it
	}
	return data[:len(data):len(data)], err
}

// price is the price table's price of a model, looked up once per
// converter: a log names the same few models in every response.
func (c *converter) price(provider, model string) (prices.Price, bool) {
	k := [2]string{provider, model}
	if p, ok := c.prices[k]; ok {
		return p.Price, p.ok
	}
	p, ok := c.table.Lookup(provider, model)
	if c.prices == nil {
		c.prices = map[[2]string]knownPrice{}
	}
	c.prices[k] = knownPrice{p, ok}
	return p, ok
}

type knownPrice struct {
	prices.Price
	ok bool
}

// obj begins a payload with room for about n bytes: in the arena, which
// the worker resets once its group's events are spooled; on the heap for
// --follow, whose events are kept from one round to the next.
func (c *converter) obj(n int) *object {
	if c.keep {
		return sized(n)
	}
	return c.payloads.object(n)
}

// merge adds the counts of a worker's converter to c's.
func (c *converter) merge(w *converter) {
	addCounts(c.unpriced, w.unpriced)
	addCounts(c.unknown, w.unknown)
	addCounts(c.noUsage, w.noUsage)
	addCounts(c.copilotUntold, w.copilotUntold)
	for k, m := range w.shapes {
		into := c.shape(k)
		for n := range m.names {
			into.add(n)
		}
		into.more = into.more || m.more
	}
}

// addCounts adds the counts of from to into's.
func addCounts(into, from map[string]int) {
	for k, n := range from {
		into[k] += n
	}
}

// skip counts a record of a type the source's converter does not know: a
// type the agent added after this was written. It is not an error.
func (c *converter) skip(source, typ string) {
	key := source + " " + cmp.Or(typ, "(none)")
	c.unknown[key]++
	if len(c.rec) > 0 {
		c.shape(key).addMembers(c.rec)
	}
}

// shapeError says in the log's terms what encoding/json found of the wrong
// type: "timestamp is a number, not a string".
func shapeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s is %s, not %s", te.Field, a(te.Value), a(jsonKind(te.Type.Kind())))
	}
	return err
}

// jsonKind is the JSON name of what a Go kind holds.
func jsonKind(k reflect.Kind) string {
	switch {
	case k == reflect.String:
		return "string"
	case k == reflect.Bool:
		return "boolean"
	case k >= reflect.Int && k <= reflect.Float64:
		return "number"
	case k == reflect.Slice || k == reflect.Array:
		return "array"
	}
	return "object"
}

// skipBlock counts a content block of a type the source's converter
// does not know (one the agent added since) with the records of unknown
// types: the block is left out, and that is said.
func (c *converter) skipBlock(source, typ string) {
	key := source + " content block " + cmp.Or(typ, "(none)")
	c.unknown[key]++
	c.blockShape(key, typ)
}

// known reports whether typ is in the source's table of known types, and
// counts it as skipped when it is not.
func (c *converter) known(source, typ string, table map[string]bool) bool {
	if !table[typ] {
		c.skip(source, typ)
	}
	return table[typ]
}

// knownIn is known for a record that is not a line decodeWith reads (a
// message of a Gemini CLI session document), rec being the record whose
// members skip notes.
func (c *converter) knownIn(source, typ string, table map[string]bool, rec []byte) bool {
	defer func(prev []byte) { c.rec = prev }(c.rec)
	c.rec = rec
	return c.known(source, typ, table)
}

// resultPayload is a model_result's payload: the token counts under the
// names evsum reads, and the cost, from the log, else from the price
// table, else marked unpriced (never a silent 0).
func (c *converter) resultPayload(step int, u usage) []byte {
	o := c.obj(0).num("step", int64(step)).strIf("provider", u.provider).strIf("model", u.model)
	if u.unknown {
		// no tokens and no cost: not 0, which a sum would take as free
		return o.boolean("no_usage", true).strIf("thinking", u.thinking).done()
	}
	o.num("input", u.input).num("output", u.output).num("cache_read", u.cacheRead).num("cache_write", u.cacheWrite)
	if u.has1h {
		o.num("cache_write_1h", u.cacheWrite1h)
	}
	if u.hasReasoning {
		o.num("reasoning", u.reasoning)
	}
	o.num("total", u.input+u.output)
	switch {
	case u.hasCost:
		o.usd("cost_usd", u.cost).str("cost_source", "log")
	case u.input+u.output == 0:
		// nothing used, nothing to price (an aborted call)
	default:
		if p, ok := c.price(u.provider, u.model); ok {
			if u.untiered {
				p.Tiers = nil
			}
			o.usd("cost_usd", p.Cost(u.model, u.tokens())).str("cost_source", "prices")
		} else {
			o.boolean("unpriced", true)
			c.unpriced[cmp.Or(u.model, "(no model named)")]++
		}
	}
	o.strIf("stop", u.stop).strIf("response_id", u.responseID).strIf("thinking", u.thinking)
	return o.done()
}

// report writes the end-of-run notes: unpriced models, one line each, and
// the records of unknown types, then each type's members: a user who
// reports the note gives the new type's shape without the log itself,
// its names without its values (prompts, outputs), and make
// agents-latest prints it as the drift of a new release.
func (c *converter) report(w io.Writer) {
	c.notes(func(_, line string) { io.WriteString(w, line) })
}

// notes hands say each end-of-run note, a line, with a key that stays
// the same while only its counts change: --follow says a note once.
func (c *converter) notes(say func(key, line string)) {
	for _, m := range slices.Sorted(maps.Keys(c.unpriced)) {
		say("price "+m, fmt.Sprintf("%s: no price for model %s (%s): its model_result events say \"unpriced\":true and have no cost_usd (--prices FILE adds prices)\n",
			name, m, textfmt.Plural(int64(c.unpriced[m]), "call")))
	}
	if len(c.noUsage) > 0 {
		list, total := textfmt.Tally(c.noUsage, false, nil)
		say("usage "+strings.Join(slices.Sorted(maps.Keys(c.noUsage)), "\x00"), fmt.Sprintf("%s: %s with no usage recorded in the log: %s: their model_result events say \"no_usage\":true and have no tokens or cost\n",
			name, textfmt.Plural(int64(total), "model call"), list))
	}
	copilotReport(say, c.copilotUntold)
	if len(c.unknown) == 0 {
		return
	}
	list, total := textfmt.Tally(c.unknown, false, nil)
	what := "records of unknown types"
	if total == 1 {
		what = "record of an unknown type"
	}
	say("unknown", fmt.Sprintf("%s: %d %s skipped: %s\n", name, total, what, list))
	for _, k := range slices.Sorted(maps.Keys(c.unknown)) {
		members := "no members" // {}, or a block not found again
		if m := c.shapes[k]; m != nil && len(m.names) > 0 {
			members = "members " + m.String()
		}
		say("type "+k+" "+members, fmt.Sprintf("%s: %s (%s): %s\n", name, k, textfmt.Plural(int64(c.unknown[k]), "record"), members))
	}
}
