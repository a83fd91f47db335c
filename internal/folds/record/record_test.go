package record_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/evtools/evtools/internal/folds/summary"
)

// summarise is the state of the events ls grouped by the --by words by.
func summarise(t testing.TB, by string, ls [][]byte) *summary.State {
	t.Helper()
	keys, err := summary.ParseBy(by)
	if err != nil {
		t.Fatal(err)
	}
	s := summary.New(summary.Options{By: keys})
	for i, l := range ls {
		if err := s.Add(l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	return s
}

// lines are the lines of data.
func lines(data []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// corpusOf is a generated run log of size bytes.
func corpusOf(t testing.TB, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, size, 1); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WriteJSON writes in pieces what AppendJSON appends, also for group
// values and problems long enough to be written apart, escapes and runes
// across the pieces included.
func TestWriteJSON(t *testing.T) {
	for _, s := range []string{"x", `a\"b\\n`, "é€\\u2028ø", "\\u0001z"} {
		for _, by := range []string{"run", "run,agent", "none"} {
			_, ls := corpus.HugeRun(s, 3*record.LongValue+7)
			_, short := corpus.HugeRun(s, 10)
			st := summarise(t, by, append(ls, short...))
			err := st.EachRecord(func(r *record.Record) error {
				var w bytes.Buffer
				if _, err := r.WriteJSON(&w, []byte("junk")); err != nil {
					return err
				}
				if want := r.AppendJSON(nil); !bytes.Equal(w.Bytes(), want) {
					t.Errorf("%q by %s: WriteJSON differs from AppendJSON:\n%.300s\nwant\n%.300s", s, by, w.Bytes(), want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A problem names a run by its id in quotes; an id too long to read is
// named by its first 64 bytes (whole runes) and its length, so that each
// problem of a huge run is not one more copy of its id.
func TestProblemNamesLongRunID(t *testing.T) {
	for _, c := range []struct {
		s     string
		n     int
		whole bool
	}{
		{"x", record.MaxNamedID, true},
		{"x", record.MaxNamedID + 1, false},
		{"é", record.MaxNamedID + 9, false}, // 64 bytes cut a rune in two
	} {
		id, ls := corpus.HugeRun(c.s, c.n)
		st := summarise(t, "run", ls[1:]) // no model call: an open tool call
		total := st.Report()[len(st.Report())-1]
		if len(total.Problems) == 0 {
			t.Fatalf("%d bytes: no problem reported", len(id))
		}
		for _, pr := range total.Problems {
			p := pr.String()
			short := fmt.Sprintf("run %q (a run_id of %d bytes) ", strings.ToValidUTF8(id[:64], "")+"…", len(id))
			switch {
			case c.whole && !strings.HasPrefix(p, fmt.Sprintf("run %q ", id)):
				t.Errorf("%d bytes: %.100q does not name the run whole", len(id), p)
			case !c.whole && !strings.HasPrefix(p, short):
				t.Errorf("%d bytes: %.200q does not start %q", len(id), p, short)
			case !utf8.ValidString(p):
				t.Errorf("%d bytes: %.200q is not UTF-8", len(id), p)
			}
		}
	}
}

// The cost of the reports for people: 4 decimals, half away from zero.
func TestCostText(t *testing.T) {
	for _, tt := range []struct {
		nano int64
		want string
	}{
		{0, "0.0000"}, {18_600_000, "0.0186"}, {49_999, "0.0000"}, {50_000, "0.0001"},
		{1_234_567_890, "1.2346"}, {-50_000, "-0.0001"}, {-49_999, "0.0000"}, {12_000_000_000, "12.0000"},
	} {
		if got := record.CostText(tt.nano); got != tt.want {
			t.Errorf("CostText(%d) = %q, want %q", tt.nano, got, tt.want)
		}
	}
}

func TestParseSort(t *testing.T) {
	for _, c := range []struct {
		in, name string
		desc     bool
	}{
		{"cost_usd", "cost_usd", false},
		{"-cost_usd", "cost_usd", true},
		{"+events", "events", false},
		{"-tokens", "tokens.total", true},
		{"tokens.input", "tokens.input", false},
		{"-cost", "cost_usd", true},
		{"wall_p95", "wall_seconds.p95", false},
		{"-latency_ms.p50", "latency_ms.p50", true},
		{"-outcomes.error", "outcomes.error", true},
		{"tools.read.file.failed", "tools.read.file.failed", false},
		{"-problems", "problems", true},
		{"first_ts", "first_ts", false},
	} {
		f, err := record.ParseSort(c.in)
		if err != nil || f.Name != c.name || f.Desc != c.desc {
			t.Errorf("record.ParseSort(%q) = %+v, %v; want %s desc %v", c.in, f, err, c.name, c.desc)
		}
	}
	list := "one of events, runs, first_ts, last_ts, model_calls, model_errors, tokens.input, tokens.output, tokens.reasoning, tokens.cache_read, tokens.cache_write, tokens.cache_write_1h, tokens.total, cost_usd, unpriced_calls, unpriced_tokens, no_usage_calls, tool_calls, tool_failures, errors, guardrails, kills, wall_seconds.sum, wall_seconds.p50, wall_seconds.p95, wall_seconds.max, latency_ms.p50, latency_ms.p95, latency_ms.max, problems, tokens, outcomes.NAME, tools.NAME.calls, tools.NAME.failed; - before it sorts highest first"
	for _, c := range []struct{ in, want string }{
		{"-cots_usd", `--sort "-cots_usd": "cots_usd" is not a numeric field of the record (did you mean cost_usd?): ` + list},
		{"tokes", `--sort "tokes": "tokes" is not a numeric field of the record (did you mean tokens?): ` + list},
		{"latency_ms.p59", `--sort "latency_ms.p59": "latency_ms.p59" is not a numeric field of the record (did you mean latency_ms.p50?): ` + list},
		{"group", `--sort "group": "group" is not a numeric field of the record: ` + list},
		{"tools.bash", `--sort "tools.bash": "tools.bash" is not a numeric field of the record: ` + list},
		{"-", `--sort "-": no field (a numeric field of the record, - before it for highest first: -cost_usd)`},
	} {
		if _, err := record.ParseSort(c.in); err == nil || err.Error() != c.want {
			t.Errorf("record.ParseSort(%q): %v\nwant %s", c.in, err, c.want)
		}
	}
}

// Every report line is a JSON object with the contract's members.
func TestReportShape(t *testing.T) {
	var recs []byte
	for _, r := range summarise(t, "run", lines(corpusOf(t, 256<<10))).Report() {
		recs = append(r.AppendJSON(recs), '\n')
	}
	dec := json.NewDecoder(bytes.NewReader(recs))
	n := 0
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, k := range []string{"group", "events", "runs", "first_ts", "last_ts", "outcomes", "model_calls", "model_errors",
			"tokens", "cost_usd", "unpriced_calls", "unpriced_tokens", "no_usage_calls", "tool_calls", "tool_failures", "tools", "errors", "guardrails", "kills", "wall_seconds", "latency_ms", "problems"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("record %d has no %q", n, k)
			}
		}
		if len(m) != 22 {
			t.Fatalf("record %d has %d members", n, len(m))
		}
	}
	if n < 3 {
		t.Fatalf("only %d records", n)
	}
}

// BenchmarkWriteJSON is the record encoder alone: every record of a
// generated run log's report by run appended as JSON, the records built
// once beforehand.
func BenchmarkWriteJSON(b *testing.B) {
	recs := summarise(b, "run", lines(corpusOf(b, 8<<20))).Report()
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		for i := range recs {
			out, _ = recs[i].WriteJSON(io.Discard, out)
		}
	}
	b.ReportMetric(float64(len(recs)), "records")
}
