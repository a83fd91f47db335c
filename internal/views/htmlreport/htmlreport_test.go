package htmlreport

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// report summarises the file grouped by, and returns the page.
func report(t testing.TB, file, by string, o Options) []byte {
	t.Helper()
	keys, err := summary.ParseBy(by)
	if err != nil {
		t.Fatal(err)
	}
	st := summary.New(summary.Options{By: keys, Loc: time.UTC, TZName: "UTC"})
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			st.Add(sc.Bytes())
		}
	}
	o.Keys, o.Loc, o.TZName = keys, time.UTC, "UTC"
	if o.Files == nil {
		o.Files = []string{file}
	}
	if o.Cells == nil {
		o.Head = []string{"group", "runs", "cost $"}
		o.Right = []bool{false, true, true}
		o.Cells = func(r *record.Record) []string {
			return []string{label(r), strconv.FormatInt(r.Runs, 10), record.CostText(r.Counts[record.CostNano])}
		}
	}
	p := New(o)
	st.EachRecord(func(r *record.Record) error { p.Add(r); return nil })
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A tool, a run and an agent named like markup show as text: nothing
// from the data becomes an element or an attribute of the page.
func TestDataIsEscaped(t *testing.T) {
	dir := t.TempDir()
	evil := "<script>alert(1)</script>"
	f := dir + "/evil.jsonl"
	lines := []string{
		`{"seq":1,"ts":1793524443,"run_id":"r\"><img src=x onerror=alert(2)>","agent_id":"a'><svg onload=alert(3)>","kind":"tool_call","payload":{"tool":"` + evil + `","args":{}}}`,
		`{"seq":2,"ts":1793524444,"run_id":"r\"><img src=x onerror=alert(2)>","agent_id":"a'><svg onload=alert(3)>","kind":"tool_result","payload":{"tool":"` + evil + `","ok":false}}`,
	}
	os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	for _, by := range []string{"tool", "run", "agent"} {
		page := string(report(t, f, by, Options{Files: []string{f, "it's.jsonl"}}))
		for _, bad := range []string{"<script>", "<img", "<svg onload"} {
			if strings.Contains(page, bad) {
				t.Errorf("--by %s: the page has %q raw", by, bad)
			}
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("--by %s: the tool's name is not shown as text", by)
		}
	}
	// The problem's command quotes the run id for the shell.
	page := string(report(t, f, "run", Options{Files: []string{"it's.jsonl"}}))
	if !strings.Contains(page, "evfilter &#39;run_id==&#34;r\\&#34;&gt;&lt;img src=x onerror=alert(2)&gt;&#34;&#39; &#39;it&#39;\\&#39;&#39;s.jsonl&#39;") {
		t.Errorf("no shell-quoted evfilter command for the problem run:\n%s", page[strings.Index(page, "<h2>Problems"):])
	}
}

// 10,000 groups (and 100,000 runs by run) make a page of a few hundred
// KB: long tails are folded into "other", in the table and the charts.
func TestLargeInputsStaySmall(t *testing.T) {
	for _, tc := range []struct {
		by     string
		groups int
		max    int
	}{{"agent", 10000, 300 << 10}, {"run", 100000, 400 << 10}} {
		dir := t.TempDir()
		f := dir + "/many.jsonl"
		var b strings.Builder
		for i := range tc.groups {
			fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r_%d","agent_id":"agent-%d","kind":"model_result","payload":{"tokens":%d,"cost_usd":0.%06d,"latency_ms":%d}}`+"\n", i+1, 1793524443+i, i, i, 100+i, i+1, 200+i%900)
		}
		os.WriteFile(f, []byte(b.String()), 0o644)
		page := report(t, f, tc.by, Options{})
		if len(page) > tc.max {
			t.Errorf("--by %s with %d groups: a page of %d KB", tc.by, tc.groups, len(page)>>10)
		}
		rows := strings.Count(string(page), "<tr")
		if rows > 200+3 {
			t.Errorf("--by %s: %d table rows, want at most 200 groups, other, total", tc.by, rows)
		}
		if !bytes.Contains(page, []byte(fmt.Sprintf("other (%d groups)", tc.groups-200))) {
			t.Errorf("--by %s: no folded row", tc.by)
		}
		t.Logf("--by %s, %d groups: %d KB", tc.by, tc.groups, len(page)>>10)
	}
}

// The command a problem suggests names its run as evfilter's JSON reads
// it (strconv.Quote's \x01 is no JSON escape), quoted for the shell; a
// run too long to name gets none. (evsum's html test runs it.)
func TestEvfilterCommand(t *testing.T) {
	for _, tt := range []struct {
		run, want string
	}{
		{"r_n", `evfilter 'run_id=="r_n"' events.jsonl`},
		{"r\x011", `evfilter 'run_id=="r\u00011"' events.jsonl`},
		{"r\x1b[2J", `evfilter 'run_id=="r\u001b[2J"' events.jsonl`},
		{`r 'q"`, `evfilter 'run_id=="r '\''q\""' events.jsonl`},
		{"é\u2028", `evfilter 'run_id=="é\u2028"' events.jsonl`},
		{strings.Repeat("x", 4097), ""},
	} {
		if got := evfilterCommand(record.Problem{Run: tt.run}, " events.jsonl"); got != tt.want {
			t.Errorf("run %q: %s, want %s", tt.run, got, tt.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"events.jsonl":         "events.jsonl",
		"logs/a b.jsonl":       "'logs/a b.jsonl'",
		"it's":                 `'it'\''s'`,
		"":                     "''",
		`run_id=="r_1"`:        `'run_id=="r_1"'`,
		"/var/log/evt-1.jsonl": "/var/log/evt-1.jsonl",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
