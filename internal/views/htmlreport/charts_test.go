package htmlreport

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// pageOf summarises the events grouped by, in the order given (sort ""
// for none), into a page.
func pageOf(t *testing.T, events []string, by, sort string, top int, o Options) *Page {
	t.Helper()
	keys, err := summary.ParseBy(by)
	if err != nil {
		t.Fatal(err)
	}
	st := summary.New(summary.Options{By: keys, Loc: time.UTC, TZName: "UTC"})
	if sort != "" {
		sf, err := record.ParseSort(sort)
		if err != nil {
			t.Fatal(err)
		}
		st.SetOrder(summary.Order{Sort: sf, Top: top})
		o.Sorted = true
	}
	for _, e := range events {
		if err := st.Add([]byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	o.Keys, o.Loc, o.TZName = keys, time.UTC, "UTC"
	p := New(o)
	st.EachRecord(func(r *record.Record) error { p.Add(r); return nil })
	return p
}

// runEvents are the events of an ok run at ts with a model call of the
// cost and a tool call, on day.
func runEvents(run string, ts int64, cost float64, tool string, latencyMS int) []string {
	ev := func(seq int, kind, payload string) string {
		return fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":%q,"agent_id":"a","kind":%q,"payload":%s}`, seq, ts+int64(seq), run, kind, payload)
	}
	return []string{
		ev(1, "user_message", `{"text":"hi"}`),
		ev(2, "model_result", fmt.Sprintf(`{"model":"m","tokens":1000,"cost_usd":%g,"latency_ms":%d}`, cost, latencyMS)),
		ev(3, "tool_call", fmt.Sprintf(`{"tool":%q,"args":{}}`, tool)),
		ev(4, "tool_result", fmt.Sprintf(`{"tool":%q,"ok":true}`, tool)),
		ev(5, "assistant_message", `{"text":"done"}`),
		ev(6, "run_finished", `{"outcome":"ok","wall_seconds":12.5}`),
	}
}

func chartByID(p *Page, id string) (chart, bool) {
	for _, c := range p.data().Charts {
		if c.ID == id {
			return c, true
		}
	}
	return chart{}, false
}

func barLabels(c chart) []string {
	var out []string
	for _, l := range c.Labels {
		if l.Class == "label" {
			out = append(out, l.Text)
		}
	}
	return out
}

// --by tool: the cost and tokens are all in the group of no tool, so a
// chart of them per tool would be one bar: none is drawn; the tools'
// own chart is.
func TestNoChartOfOneBar(t *testing.T) {
	var evs []string
	for i, tool := range []string{"grep", "bash", "read"} {
		evs = append(evs, runEvents(fmt.Sprintf("r_%d", i), 1793524443+int64(i)*100, 0.01, tool, 900)...)
	}
	p := pageOf(t, evs, "tool", "", 0, Options{})
	for _, id := range []string{"cost", "tokens"} {
		if c, ok := chartByID(p, id); ok {
			t.Errorf("--by tool draws a %s chart: %q", id, barLabels(c))
		}
	}
	if _, ok := chartByID(p, "tools"); !ok {
		t.Error("--by tool has no chart of its tools")
	}
	// by run the cost chart is there, one bar per run
	p = pageOf(t, evs, "run", "", 0, Options{})
	if c, ok := chartByID(p, "cost"); !ok || len(c.Bars) != 3 {
		t.Errorf("--by run: want a cost chart of 3 bars, got %v %d", ok, len(c.Bars))
	}
}

// The groups past the bars shown are a line under the chart, not an
// "other" bar that dwarfs them; the other group of --top is no bar
// either, and never first among "costliest first".
func TestOtherIsNoBar(t *testing.T) {
	var evs []string
	for i := range 12 {
		evs = append(evs, runEvents(fmt.Sprintf("r_%02d", i), 1793524443+int64(i)*100, 0.01*float64(i+1), "bash", 900)...)
	}
	p := pageOf(t, evs, "run", "", 0, Options{MaxBars: 10})
	c, _ := chartByID(p, "cost")
	labels := barLabels(c)
	if len(c.Bars) != 10 || labels[0] != "r_11" || strings.Contains(strings.Join(labels, " "), "other") {
		t.Errorf("want the 10 costliest runs as bars, r_11 first: %q", labels)
	}
	if !strings.Contains(c.Desc, "And 2 more groups: $0.0300 in all.") || !hasText(c, "and 2 more groups: $0.0300 in all") {
		t.Errorf("no line for the 2 runs left out: %s", c.Desc)
	}
	p = pageOf(t, evs, "run", "-cost_usd", 3, Options{})
	c, _ = chartByID(p, "cost")
	if labels := barLabels(c); len(labels) != 3 || labels[0] != "r_11" {
		t.Errorf("--sort -cost_usd --top 3: want r_11, r_10, r_09 as bars: %q", labels)
	}
	if !hasText(c, "and 9 more groups: $0.4500 in all") {
		t.Errorf("no line for the other group of --top: %s", c.Desc)
	}
}

func hasText(c chart, s string) bool {
	for _, l := range c.Labels {
		if l.Text == s {
			return true
		}
	}
	return false
}

// A run's p50 and p95 are its one value: one bar, not the same bar twice;
// values are durations written to one precision.
func TestOneValueOneBar(t *testing.T) {
	var evs []string
	evs = append(evs, runEvents("r_1", 1793524443, 0.01, "bash", 900)...)
	evs = append(evs, runEvents("r_2", 1793524543, 0.01, "bash", 2400)...)
	p := pageOf(t, evs, "run", "", 0, Options{})
	c, ok := chartByID(p, "latency")
	if !ok || len(c.Bars) != 2 {
		t.Fatalf("want one latency bar per run, got %d", len(c.Bars))
	}
	if c.Bars[0].Series != "p50 = p95" || !hasText(c, "0.90s") || !hasText(c, "2.40s") {
		t.Errorf("bars %+v, desc %s", c.Bars, c.Desc)
	}
}

// Days without events are on the axis, at 0; a chart that shows fewer
// periods than there are says so in its title.
func TestDaysWithoutEvents(t *testing.T) {
	const day = 86400
	var evs []string
	for i, d := range []int64{0, 1, 4} {
		evs = append(evs, runEvents(fmt.Sprintf("r_%d", i), 1793524443+d*day, 0.01, "bash", 900)...)
	}
	p := pageOf(t, evs, "day", "", 0, Options{})
	c, _ := chartByID(p, "cost")
	if d := c.Desc; !strings.Contains(d, "2026-11-03 $0.0000; 2026-11-04 $0.0000; 2026-11-05 $0.0100") || len(c.Bars) != 3 {
		t.Errorf("want 5 days, 2 of them empty: %s", d)
	}
	p = pageOf(t, evs, "day", "", 0, Options{MaxPeriods: 3, MaxBars: 2})
	for id, want := range map[string]string{
		"cost":    "Cost per day, the latest 3 of 5 days",
		"runs":    "Runs per day, by outcome, the latest 3 of 5 days",
		"latency": "Model latency per day, the latest 2 of 3 days with one",
	} {
		if c, _ := chartByID(p, id); c.Title != want {
			t.Errorf("chart %s: title %q, want %q", id, c.Title, want)
		}
	}
}

// A total is no failure: the headline's model and tool calls are not red
// when some failed (their note is); errors are. Numbers have their
// thousands grouped.
func TestHeadline(t *testing.T) {
	evs := runEvents("r_1", 1793524443, 0.01, "bash", 900)
	evs = append(evs,
		`{"seq":7,"ts":1793524450,"run_id":"r_1","agent_id":"a","kind":"tool_result","payload":{"tool":"bash","ok":false}}`,
		`{"seq":8,"ts":1793524451,"run_id":"r_1","agent_id":"a","kind":"model_result","payload":{"tokens":1234567}}`,
		`{"seq":9,"ts":1793524452,"run_id":"r_1","agent_id":"a","kind":"model_error","payload":{}}`)
	cards := map[string]card{}
	for _, c := range pageOf(t, evs, "run", "", 0, Options{}).cards() {
		cards[c.Metric] = c
	}
	if c := cards["tool_calls"]; c.Bad || !c.BadNote || c.Note != "1 failure" {
		t.Errorf("tool calls: %+v", c)
	}
	if c := cards["model_calls"]; c.Bad || !c.BadNote {
		t.Errorf("model calls: %+v", c)
	}
	if c := cards["errors"]; !c.Bad {
		t.Errorf("errors: %+v", c)
	}
	if c := cards["tokens"]; c.Value != "1,235,567" {
		t.Errorf("tokens: %q", c.Value)
	}
}

// A report of no events says so, and in which window: it does not say
// that every run kept the invariants.
func TestEmptyInWords(t *testing.T) {
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	if err := pageOf(t, nil, "run", "", 0, Options{Window: summary.Options{Since: since, WindowOn: true}}).Write(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "No events since 2026-11-01 00:00 UTC.") || strings.Contains(page, "every run kept") {
		t.Errorf("the empty page: %s", page[strings.Index(page, "<body>"):])
	}
}

// An axis ends at a round number, written without the zeros it ends in:
// $10.5123 read as a measurement, not as a scale.
func TestAxisEnd(t *testing.T) {
	for _, c := range []struct {
		max  float64
		want string
	}{
		{10.5123, "$12"},
		{2.3332, "$2.5"},
		{0.0186, "$0.02"},
		{29.4667, "$30"},
		{1, "$1"},
		{0.0041, "$0.005"},
	} {
		if got := tickText(costText, niceMax(c.max)); got != c.want {
			t.Errorf("axis of %v ends at %q, want %q", c.max, got, c.want)
		}
	}
	if got := tickText(intText, niceMax(6777923)); got != "8,000,000" {
		t.Errorf("axis of 6,777,923 tokens ends at %q", got)
	}
}

// A day's chart of 173 days shows the latest 90 and says under it what
// the others add up to: the costliest day, among them, is not hidden.
func TestEarlierPeriodsSummed(t *testing.T) {
	var events []string
	day := int64(1793491200) // 2026-11-01
	for i := range 173 {
		cost := 0.01
		if i == 3 {
			cost = 29.4667
		}
		events = append(events, runEvents(fmt.Sprintf("r%d", i), day+int64(i)*86400, cost, "bash", 100)...)
	}
	p := pageOf(t, events, "day", "", 0, Options{})
	c, ok := chartByID(p, "cost")
	if !ok {
		t.Fatal("no cost chart")
	}
	if !strings.Contains(c.Title, "the latest 90 of 173 days") {
		t.Errorf("title %q", c.Title)
	}
	foot := ""
	for _, l := range c.Labels {
		if l.Class == "foot" {
			foot = l.Text
		}
	}
	if want := "the 83 earlier days: $30.2867 in all"; foot != want {
		t.Errorf("under the chart: %q, want %q", foot, want)
	}
}

// The errors' note names kills only when there are some: the runs of a
// log without killed events (evimport's) end "killed" all the same, and
// "0 kills" beside "killed 1" read as a contradiction.
func TestNoZeroKills(t *testing.T) {
	events := runEvents("r1", 1793491200, 0.5, "bash", 100)
	events[len(events)-1] = strings.Replace(events[len(events)-1], `"ok"`, `"killed"`, 1)
	for _, c := range pageOf(t, events, "day", "", 0, Options{}).cards() {
		if strings.Contains(c.Note, "0 kills") || strings.Contains(c.Note, "0 guardrails") {
			t.Errorf("card %s says %q", c.Label, c.Note)
		}
	}
}
