package evsum_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/folds/record"
)

// A field added to the report's schema, as one row, shows up everywhere
// a field does: the JSON record (in an object of its own), csv, the
// default table, md and html, --sort (by its path and by its column's
// name), --columns, the help, the man page and the completion scripts.
func TestAddedFieldShowsEverywhere(t *testing.T) {
	defer record.AddField(record.Field{
		Path:   "mean.tokens_per_call",
		Column: record.Column{Name: "tokens_per_call", Head: "tok/call", Place: 18, Drop: 5},
		Value: func(r *record.Record) record.Value {
			return record.Value{I: r.Counts[record.TokTotal] / max(r.Counts[record.ModelCalls], 1), Has: true}
		},
	})()
	const events = "../../../examples/events/multiagent.jsonl"

	var perRun []int64
	for _, line := range bytes.Split(bytes.TrimSpace(evsumOut(t, "--format", "jsonl", events)), []byte("\n")) {
		var rec struct {
			Tokens struct{ Total int64 } `json:"tokens"`
			Calls  int64                 `json:"model_calls"`
			Mean   map[string]int64      `json:"mean"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		got, ok := rec.Mean["tokens_per_call"]
		if want := rec.Tokens.Total / max(rec.Calls, 1); !ok || got != want {
			t.Errorf("jsonl: mean.tokens_per_call %d (%v), want %d: %s", got, ok, want, line)
		}
		perRun = append(perRun, got)
	}
	perRun = perRun[:len(perRun)-1] // the total

	rows, err := csv.NewReader(bytes.NewReader(evsumOut(t, "--format", "csv", events))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(rows[0], "mean.tokens_per_call"); i < 0 || rows[len(rows)-1][i] != strconv.FormatInt(perRunTotal(t, events), 10) {
		t.Errorf("csv: no mean.tokens_per_call column with the total's value: %q", rows[0])
	}

	for format, head := range map[string]string{"table": "tok/call", "md": "| tok/call |", "html": `<th class="num">tok/call</th>`} {
		if out := string(evsumOut(t, "--format", format, events)); !strings.Contains(out, head) {
			t.Errorf("--format %s: no %q:\n%s", format, head, out)
		}
	}
	if out := string(evsumOut(t, "--format", "md", "--columns", "run_id,tokens_per_call", events)); !strings.HasPrefix(out, "| run_id | tok/call |\n") {
		t.Errorf("--columns run_id,tokens_per_call:\n%s", out)
	}
	// fitted, it is the first to go
	if out := string(evsumOut(t, "--width", "100", events)); strings.Contains(out, "tok/call") {
		t.Errorf("--width 100 keeps it:\n%s", out)
	}

	slices.Sort(perRun)
	for _, sort := range []string{"mean.tokens_per_call", "tokens_per_call", "-mean.tokens_per_call"} {
		var got []int64
		for _, line := range bytes.Split(bytes.TrimSpace(evsumOut(t, "--format", "jsonl", "--sort", sort, events)), []byte("\n")) {
			var rec struct{ Mean map[string]int64 }
			json.Unmarshal(line, &rec)
			got = append(got, rec.Mean["tokens_per_call"])
		}
		want := slices.Clone(perRun)
		if strings.HasPrefix(sort, "-") {
			slices.Reverse(want)
		}
		if got = got[:len(got)-1]; !slices.Equal(got, want) {
			t.Errorf("--sort %s: %v, want %v", sort, got, want)
		}
	}

	help := strings.Join(strings.Fields(string(evsumOut(t, "--help"))), " ")
	man := string(evsumOut(t, "--man"))
	bash := string(evsumOut(t, "--completion", "bash"))
	for _, c := range []struct{ what, text, re string }{
		{"--help's --columns", help, `in this order: group \(or [^)]*\), [^.]*\btokens_per_call\b`},
		{"--help's --sort", help, `numeric field of the record \([^)]*\bmean\.tokens_per_call\b`},
		{"the man page's --columns", man, `in this order: group \(or [^)]*\), [^.]*\btokens_per_call\b`},
		{"the man page's --sort", man, `numeric field of the record \([^)]*\bmean\.tokens_per_call\b`},
		{"bash's --columns", bash, `--columns\) _evtools_list "[^"]*\btokens_per_call\b`},
		{"bash's --sort", bash, `--sort\) _evtools_words "[^"]* -mean\.tokens_per_call"`},
	} {
		if !regexp.MustCompile(c.re).MatchString(c.text) {
			t.Errorf("%s lacks the field (%s)", c.what, c.re)
		}
	}
}

// perRunTotal is the field's value on the total: its tokens over its
// model calls.
func perRunTotal(t *testing.T, events string) int64 {
	out := bytes.TrimSpace(evsumOut(t, "--format", "jsonl", "--by", "none", events))
	var rec struct {
		Tokens struct{ Total int64 } `json:"tokens"`
		Calls  int64                 `json:"model_calls"`
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Tokens.Total / max(rec.Calls, 1)
}
