package summary

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/folds/record"
)

// jsonLines is each record as one JSON line.
func jsonLines(recs []record.Record) []string {
	var out []string
	for i := range recs {
		out = append(out, string(recs[i].AppendJSON(nil)))
	}
	return out
}

// withoutBreakdown is the record as it would be without --breakdown.
func withoutBreakdown(r record.Record) record.Record {
	r.Breakdown, r.BreakdownMember = nil, ""
	return r
}

// With --breakdown model, every state made of random events, frozen all
// the time or never, cut into parts written as partial states and merged,
// is the one-pass state, and its report is the report without the
// breakdown with, under each group and the total, the records --by
// KEYS,model gives for that group (and --by model for the total), their
// group the model alone.
func TestPropertyBreakdown(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	// not tool: a glasspane call ended in another part than its start is
	// filed under null there (docs/evsum.md), breakdown or not
	bys := []string{"run", "agent", "kind", "day", "none", "agent,week", "month,agent", "model"}
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		ls := randomEvents(rng)
		by := bys[iter%len(bys)]
		keys, err := ParseBy(by)
		if err != nil {
			t.Fatal(err)
		}
		model, _ := ParseBreakdown("model")
		opt := Options{By: keys, Breakdown: model}
		hotLimit = 1 << 20
		hot := summarise(t, opt, ls)
		hotLimit = 1
		sameState(t, fmt.Sprintf("iteration %d, frozen", iter), summarise(t, opt, ls), hot)
		hotLimit = 1 << 20

		parts := 1 + rng.IntN(4)
		cuts := []int{0}
		for range parts - 1 {
			cuts = append(cuts, rng.IntN(len(ls)+1))
		}
		cuts = append(cuts, len(ls))
		sort.Ints(cuts)
		m := NewMerger()
		for i := range parts {
			roundTrip(t, m, summarise(t, opt, ls[cuts[i]:cuts[i+1]]))
		}
		what := fmt.Sprintf("iteration %d, --by %s --breakdown model, cut at %v", iter, by, cuts)
		sameState(t, what, m.State, hot)
		if got, want := report(t, m.State), report(t, hot); got != want {
			t.Fatalf("%s\nreport differs\n%s", what, firstDiff(got, want))
		}

		// the records but the breakdown are those without it
		recs := hot.Report()
		plain := summarise(t, Options{By: keys}, ls).Report()
		var stripped []record.Record
		for _, r := range recs {
			stripped = append(stripped, withoutBreakdown(r))
		}
		if got, want := strings.Join(jsonLines(stripped), "\n"), strings.Join(jsonLines(plain), "\n"); got != want {
			t.Fatalf("%s: without their breakdown the records differ from --by %s\n%s", what, by, firstDiff(got, want))
		}
		// each group's breakdown is --by KEYS,model's records of that group
		withModel, _ := ParseBy(strings.TrimPrefix(by+",model", "none,"))
		if by == "model" { // which ParseBy refuses
			withModel = append(keys, Key{Kind: KeyModel, Name: "model2"})
		}
		byModel := summarise(t, Options{By: withModel}, ls).Report()
		want := map[string]string{} // by the group's values, joined
		for _, r := range byModel[:len(byModel)-1] {
			sub := r
			sub.Names, sub.Vals = []string{"model"}, r.Vals[len(r.Vals)-1:]
			k := strings.Join(r.Vals[:len(r.Vals)-1], "\x1f")
			want[k] += string(sub.AppendJSON(nil)) + "\n"
		}
		for _, r := range recs {
			if r.BreakdownMember != "models" {
				t.Fatalf("%s: a record without the breakdown", what)
			}
			k := strings.Join(r.Vals, "\x1f")
			if r.Total {
				// the total's breakdown is --by model's records
				var want string
				got := ""
				for _, x := range r.Breakdown {
					got += string(x.AppendJSON(nil)) + "\n"
				}
				// --by model, sorted as the breakdown is: costliest first
				s := summarise(t, Options{By: model}, ls)
				s.SetOrder(Order{Sort: costliest})
				want = ""
				for _, x := range s.Report()[:len(s.Report())-1] {
					want += string(x.AppendJSON(nil)) + "\n"
				}
				if got != want {
					t.Fatalf("%s: the total's breakdown is not --by model\n%s", what, firstDiff(got, want))
				}
				continue
			}
			got := ""
			for _, x := range r.Breakdown {
				if !x.Nested {
					t.Fatalf("%s: a breakdown record not nested", what)
				}
				got += string(x.AppendJSON(nil)) + "\n"
			}
			// the same records, maybe in another order: --by KEYS,model
			// orders them among all groups
			gl, wl := strings.Split(got, "\n"), strings.Split(want[k], "\n")
			slices.Sort(gl)
			slices.Sort(wl)
			if !slices.Equal(gl, wl) {
				t.Fatalf("%s: the breakdown of %s is not --by %s,model's\ngot  %s\nwant %s", what, k, by, got, want[k])
			}
		}
	}
}

// --sort orders the groups by the field (ties in the default order,
// values missing last); --top keeps the first N and folds the rest into
// one "other" record whose event-level fields make the groups add up to
// the total again, and whose runs (by run) too; the partial states of
// parts merged give the same report.
func TestPropertySortTop(t *testing.T) {
	fields := []string{"-cost_usd", "events", "-tokens", "tokens.input", "-runs", "-latency_ms.p95", "first_ts",
		"-wall_seconds.sum", "-outcomes.o1", "tools.t1.calls", "-problems", "-errors"}
	bys := []string{"run", "agent", "kind", "agent,payload.n", "model,hour"}
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 300 {
		ls := randomEvents(rng)
		by := bys[iter%len(bys)]
		keys, _ := ParseBy(by)
		f, err := record.ParseSort(fields[iter%len(fields)])
		if err != nil {
			t.Fatal(err)
		}
		top := rng.IntN(5)
		opt := Options{By: keys}
		if iter%3 == 0 {
			opt.Breakdown, _ = ParseBreakdown("model")
		}
		s := summarise(t, opt, ls)
		s.SetOrder(Order{Sort: f, Top: top})
		recs := s.Report()
		what := fmt.Sprintf("iteration %d, --by %s --sort %s --top %d", iter, by, f, top)

		all := summarise(t, opt, ls)
		all.SetOrder(Order{Sort: f})
		full := all.Report()
		groups := full[:len(full)-1]
		// sorted, ties in the default order
		def := summarise(t, opt, ls).Report()
		pos := map[string]int{}
		for i, r := range def {
			pos[strings.Join(r.Vals, "\x1f")] = i
		}
		for i := 1; i < len(groups); i++ {
			a, b := f.Value(&groups[i-1]), f.Value(&groups[i])
			c := f.Compare(a, b)
			if c > 0 || c == 0 && pos[strings.Join(groups[i-1].Vals, "\x1f")] > pos[strings.Join(groups[i].Vals, "\x1f")] {
				t.Fatalf("%s: records %d and %d out of order: %+v, %+v", what, i-1, i, a, b)
			}
		}
		n := len(groups)
		if top == 0 || top >= n {
			if got, want := strings.Join(jsonLines(recs), "\n"), strings.Join(jsonLines(full), "\n"); got != want {
				t.Fatalf("%s: --top %d of %d groups changed the report", what, top, n)
			}
		} else {
			if len(recs) != top+2 {
				t.Fatalf("%s: %d records, want %d, other and the total", what, len(recs), top)
			}
			other := recs[top]
			if other.Other != int64(n-top) || !strings.HasPrefix(string(other.AppendJSON(nil)), fmt.Sprintf(`{"group":{"other":%d},`, n-top)) {
				t.Fatalf("%s: the other record folds %d groups, want %d", what, other.Other, n-top)
			}
			for i := range top {
				if string(recs[i].AppendJSON(nil)) != string(groups[i].AppendJSON(nil)) {
					t.Fatalf("%s: record %d is not the %dth of the sorted report", what, i, i)
				}
			}
		}
		// the groups add up to the total
		total := recs[len(recs)-1]
		var sum [record.NumCounters]int64
		var runs int64
		tools := map[string]int64{}
		for _, r := range recs[:len(recs)-1] {
			for c := range sum {
				sum[c] += r.Counts[c]
			}
			runs += r.Runs
			for _, t := range r.Tools {
				tools[t.Name] += t.Calls
			}
		}
		if sum != total.Counts {
			t.Fatalf("%s: the records add up to %v, the total is %v", what, sum, total.Counts)
		}
		for _, tl := range total.Tools {
			if tools[tl.Name] != tl.Calls {
				t.Fatalf("%s: calls of %s add up to %d, the total has %d", what, tl.Name, tools[tl.Name], tl.Calls)
			}
		}
		// by run each group is one run (or none), so its runs add up too
		if by == "run" && runs != total.Runs {
			t.Fatalf("%s: the runs add up to %d, the total has %d", what, runs, total.Runs)
		}
		// the merged states give the same report
		cut := rng.IntN(len(ls) + 1)
		m := NewMerger()
		roundTrip(t, m, summarise(t, opt, ls[:cut]))
		roundTrip(t, m, summarise(t, opt, ls[cut:]))
		m.State.SetOrder(Order{Sort: f, Top: top})
		if got, want := report(t, m.State), report(t, s); got != want {
			t.Fatalf("%s, cut at %d: the merged report differs\n%s", what, cut, firstDiff(got, want))
		}
	}
}

func TestParseBreakdown(t *testing.T) {
	if k, err := ParseBreakdown("model"); err != nil || len(k) != 1 || k[0].Kind != KeyModel {
		t.Errorf("model: %v, %v", k, err)
	}
	if k, err := ParseBreakdown("none"); err != nil || k != nil {
		t.Errorf("none: %v, %v", k, err)
	}
	want := `--breakdown "modle": not a breakdown (did you mean model?): model (one sub-record per model under each group) or none`
	if _, err := ParseBreakdown("modle"); err == nil || err.Error() != want {
		t.Errorf("modle: %v", err)
	}
}

// A record with a breakdown ends with it; one without is as it was.
func TestBreakdownShape(t *testing.T) {
	model, _ := ParseBreakdown("model")
	s := summarise(t, Options{By: []Key{keyWords["day"]}, Breakdown: model}, lines(envelopeCorpus(t, 64<<10, 1)))
	for _, line := range strings.Split(strings.TrimSpace(report(t, s)), "\n") {
		d := json.NewDecoder(strings.NewReader(line))
		var keys []string
		d.Token()
		for d.More() {
			k, _ := d.Token()
			keys = append(keys, k.(string))
			var v json.RawMessage
			d.Decode(&v)
		}
		if len(keys) != 23 || keys[22] != "models" || keys[21] != "problems" {
			t.Fatalf("members %v", keys)
		}
		var rec struct {
			Models []map[string]json.RawMessage `json:"models"`
		}
		json.Unmarshal([]byte(line), &rec)
		if len(rec.Models) == 0 {
			t.Fatalf("no models in %s", line)
		}
		for _, m := range rec.Models {
			if len(m) != 22 || string(m["group"][:9]) != `{"model":` {
				t.Fatalf("a model's record %v", m)
			}
		}
	}
}
