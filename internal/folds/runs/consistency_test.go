package runs_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/folds/evsum"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/evimport"
	"github.com/evtools/evtools/internal/sources/zot2gp"
	"github.com/evtools/evtools/internal/views/ev2otlp"
	"github.com/evtools/evtools/internal/views/pretty"
	"github.com/evtools/evtools/internal/views/transcript"
)

// counts are what a view says of a stream: its runs (those that ended,
// for the pretty view, whose totals are on a run's end line), model
// calls, tool calls and failed tool calls.
type counts struct{ runs, ended, models, tools, failed int64 }

// TestViewsCount checks that evsum's report, the HTML transcript, the
// pretty view's run lines and ev2otlp's spans count the same runs, model
// calls, tool calls and failures, on the generated corpora of every
// vocabulary and source and on the logs the repository ships.
func TestViewsCount(t *testing.T) {
	for name, data := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			sum, page, view, spans := summaryCounts(t, data), pageCounts(t, data), prettyCounts(t, data), spanCounts(t, data)
			if sum.models+sum.tools == 0 {
				t.Fatalf("no calls in the input: %+v", sum)
			}
			want := sum
			want.ended = spans.ended
			for view, got := range map[string]counts{"transcript": page, "ev2otlp": spans} {
				got.ended = want.ended
				if got != want {
					t.Errorf("%s counts %+v, evsum %+v", view, got, want)
				}
			}
			if view.ended != spans.ended || view.models != sum.models || view.tools != sum.tools || view.failed != sum.failed {
				t.Errorf("the pretty view's run lines count %+v, evsum %+v and ev2otlp %d ended runs", view, sum, spans.ended)
			}
		})
	}
}

// inputs are the streams of envelope events the views are compared on.
func inputs(t *testing.T) map[string][]byte {
	const size = 256 << 10
	in := map[string][]byte{}
	var b bytes.Buffer
	if err := corpus.Envelope(&b, size, 1); err != nil {
		t.Fatal(err)
	}
	in["corpus-envelope"] = b.Bytes()
	var z bytes.Buffer
	if err := corpus.Zot(&z, size, 1); err != nil {
		t.Fatal(err)
	}
	in["corpus-zot"] = run(t, zot2gp.Main, nil, z.Bytes())
	for _, kind := range corpus.AgentKinds {
		home := t.TempDir()
		if err := corpus.Agents(home, kind, size, 1); err != nil {
			t.Fatal(err)
		}
		in["corpus-"+kind] = run(t, evimport.Main, []string{home}, nil)
	}
	in["examples-agents"] = run(t, evimport.Main, []string{"../../../examples/agents"}, nil)
	// zot's result names only its call's id, here an empty one
	in["empty-ids"] = []byte(`{"seq":1,"ts":1782083692.3,"run_id":"r_1","agent_id":"zot","kind":"turn_start","payload":{"step":1,"type":"turn_start"}}
{"seq":2,"ts":1782083692.4,"run_id":"r_1","agent_id":"zot","kind":"tool_execution_start","payload":{"id":"","name":"bash","type":"tool_use_start"}}
{"seq":3,"ts":1782083692.5,"run_id":"r_1","agent_id":"zot","kind":"tool_call","payload":{"args":{},"id":"","name":"bash","type":"tool_call"}}
{"seq":4,"ts":1782083692.6,"run_id":"r_1","agent_id":"zot","kind":"turn_end","payload":{"stop":"tool_use","type":"turn_end"}}
{"seq":5,"ts":1782083692.7,"run_id":"r_1","agent_id":"zot","kind":"tool_execution_end","payload":{"id":"","is_error":true,"type":"tool_result"}}
{"seq":6,"ts":1782083692.8,"run_id":"r_1","agent_id":"","kind":"agent_end","payload":{"type":"done"}}
`)
	for _, f := range []string{
		"../../../examples/events/multiagent.jsonl", "../../../examples/output/zot/auth-401.gp.jsonl",
		"../../../examples/output/zot/uname.gp.jsonl", "../../views/ev2otlp/testdata/claude.jsonl",
		"../../views/transcript/testdata/imported.jsonl", "../evsum/testdata/html/imported.jsonl",
		"../evsum/testdata/html/two-models.jsonl",
	} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(f)] = data
	}
	return in
}

// run runs a tool in-process and returns its output; it must succeed.
func run(t *testing.T, main func([]string, cli.Stdio) int, args []string, stdin []byte) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	if code := main(args, cli.Stdio{In: bytes.NewReader(stdin), Out: &out, Err: &errs}); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs.String())
	}
	return out.Bytes()
}

// summaryCounts are the totals of evsum's report.
func summaryCounts(t *testing.T, data []byte) counts {
	var groups []struct {
		Runs         int64 `json:"runs"`
		ModelCalls   int64 `json:"model_calls"`
		ToolCalls    int64 `json:"tool_calls"`
		ToolFailures int64 `json:"tool_failures"`
	}
	if err := json.Unmarshal(run(t, evsum.Main, []string{"--format", "json"}, data), &groups); err != nil {
		t.Fatal(err)
	}
	total := groups[len(groups)-1] // the last group is the total
	return counts{runs: total.Runs, models: total.ModelCalls, tools: total.ToolCalls, failed: total.ToolFailures}
}

// pageCounts are the totals the transcript's headline says.
func pageCounts(t *testing.T, data []byte) counts {
	var page bytes.Buffer
	w := transcript.New(&page, transcript.Options{Loc: time.UTC})
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, line, many := strings.Cut(page.String(), `<p class="totals">`)
	runs := number(line, `([\d,]+) runs?\b`)
	if !many {
		// A page of one run has no headline: its run's line says it.
		_, line, _ = strings.Cut(page.String(), `<p class="meta">`)
		runs = 1
	}
	line, _, _ = strings.Cut(line, "</p>")
	return counts{runs: runs, models: number(line, `([\d,]+) model calls?`),
		tools: number(line, `([\d,]+) tool calls?`), failed: number(line, `tool calls? \(([\d,]+) failed`)}
}

// runLine is a run's end line in the pretty view: a time (or its room),
// maybe an agent's label, and the tag "run" padded, then its outcome.
var runLine = regexp.MustCompile(`^[\d:. ]{12} (  \S.{0,15} )?run {4}\S`)

// prettyCounts adds up the totals of the pretty view's run lines.
func prettyCounts(t *testing.T, data []byte) counts {
	var out bytes.Buffer
	r := pretty.New(&out, pretty.Options{Width: 1 << 12, Loc: time.UTC})
	r.Write(data)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	var c counts
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if !runLine.MatchString(l) || strings.Contains(l, "run    started") {
			continue
		}
		c.ended++
		c.models += number(l, `([\d,]+) model calls?`)
		c.tools += number(l, `([\d,]+) tool calls?`)
		c.failed += number(l, `tool calls? \(([\d,]+) failed`)
	}
	return c
}

// spanCounts counts ev2otlp's spans: a run is a root span (one not cut
// off ended), a model call a chat span, a tool call an execute_tool span
// (failed: status ERROR).
func spanCounts(t *testing.T, data []byte) counts {
	var c counts
	out := run(t, ev2otlp.Main, nil, data)
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var doc struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						ParentSpanID string `json:"parentSpanId"`
						Status       struct {
							Code int `json:"code"`
						} `json:"status"`
						Attributes []struct {
							Key   string          `json:"key"`
							Value json.RawMessage `json:"value"`
						} `json:"attributes"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatal(err)
		}
		for _, rs := range doc.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					attr := map[string]string{}
					for _, a := range s.Attributes {
						attr[a.Key] = string(a.Value)
					}
					switch op := attr["gen_ai.operation.name"]; {
					case op == `{"stringValue":"chat"}`:
						c.models++
					case op == `{"stringValue":"execute_tool"}`:
						c.tools++
						if s.Status.Code == 2 {
							c.failed++
						}
					case s.ParentSpanID == "":
						c.runs++
						if attr["evtools.cut_off"] == "" {
							c.ended++
						}
					}
				}
			}
		}
	}
	return c
}

// number is the number the first group of pattern matches in s, 0 when
// it does not match.
func number(s, pattern string) int64 {
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	return n
}
