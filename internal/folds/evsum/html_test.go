package evsum_test

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/filters/evfilter"
	"github.com/evtools/evtools/internal/folds/evsum"
	"github.com/evtools/evtools/internal/shell/cli"
)

var updateHTML = flag.Bool("update-html", false, "rewrite the golden pages in testdata/html")

// The golden pages: the shipped multi-agent log grouped by run, agent,
// tool and day, the zot transcript, three days with problems, and five
// runs on two models over six weeks (--by week with --breakdown model;
// --sort and --top), each beside the total record of its --format jsonl.
// internal/devtools/e2e opens them in a real browser.
var goldenPages = []struct {
	name string
	args []string
	file string
}{
	{"multiagent.run", []string{"--by", "run"}, "examples/events/multiagent.jsonl"},
	{"multiagent.agent", []string{"--by", "agent"}, "examples/events/multiagent.jsonl"},
	{"multiagent.tool", []string{"--by", "tool"}, "examples/events/multiagent.jsonl"},
	{"multiagent.day", []string{"--by", "day"}, "examples/events/multiagent.jsonl"},
	{"uname.agent", []string{"--by", "agent"}, "examples/output/zot/uname.gp.jsonl"},
	// three days of runs with every outcome, problems, and a tool named
	// like markup
	{"three-days.day", []string{"--by", "day"}, "internal/folds/evsum/testdata/html/three-days.jsonl"},
	{"three-days.tool", []string{"--by", "tool"}, "internal/folds/evsum/testdata/html/three-days.jsonl"},
	// two models, weeks across the new year (the events of
	// testdata/breakdown.txtar)
	{"two-models.week-breakdown", []string{"--by", "week", "--breakdown", "model"}, "internal/folds/evsum/testdata/html/two-models.jsonl"},
	{"two-models.run-top", []string{"--by", "run", "--sort", "-cost_usd", "--top", "3", "--breakdown", "model"}, "internal/folds/evsum/testdata/html/two-models.jsonl"},
	// what evimport writes: killed runs without killed
	// events, days apart
	{"imported.day", []string{"--by", "day"}, "internal/folds/evsum/testdata/html/imported.jsonl"},
}

func evsumOut(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := evsum.Main(args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("evsum %v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

// evsum --format html writes the golden page for each example; go test
// -update-html rewrites them (look at them in a browser before
// committing). The pages are self-contained: no script, no link to
// anything outside.
func TestHTMLGolden(t *testing.T) {
	golden, _ := filepath.Abs("testdata/html")
	t.Chdir("../../..") // the pages name the files as a user at the root would
	for _, g := range goldenPages {
		t.Run(g.name, func(t *testing.T) {
			page := evsumOut(t, append(g.args, "--format", "html", g.file)...)
			report := evsumOut(t, append(g.args, "--format", "jsonl", g.file)...)
			lines := bytes.Split(bytes.TrimSpace(report), []byte("\n"))
			total := append(lines[len(lines)-1], '\n')
			for _, bad := range []string{"<script", "<link", "<img", "@import", "url(", "http://", "https://"} {
				if bytes.Contains(page, []byte(bad)) {
					t.Errorf("the page has %q: not self-contained", bad)
				}
			}
			files := map[string][]byte{g.name + ".html": page, g.name + ".total.json": total}
			for name, got := range files {
				path := filepath.Join(golden, name)
				if *updateHTML {
					os.MkdirAll(golden, 0o755)
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test -update-html writes it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from what evsum writes now (go test -update-html rewrites it)", name)
				}
			}
		})
	}
}

// The command the page suggests for a problem's run is one evfilter
// takes and that selects that run's events: a run_id with a control
// character is quoted as JSON (\u0001), not as Go (\x01, which evfilter
// refuses).
func TestHTMLCommandSelectsTheRun(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	lines := `{"seq":1,"ts":1793524443,"run_id":"r\u00011","agent_id":"a","kind":"run_started","payload":{}}` + "\n" +
		`{"seq":2,"ts":1793524444,"run_id":"r1","agent_id":"a","kind":"run_started","payload":{}}` + "\n"
	if err := os.WriteFile(events, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(evsumOut(t, "--format", "html", events)))
	cmds := regexp.MustCompile(`evfilter '([^']*)' ([^<\s]+)`).FindAllStringSubmatch(page, -1)
	if len(cmds) != 2 || cmds[0][1] != `run_id=="r\u00011"` {
		t.Fatalf("the page's commands: %q", cmds)
	}
	for i, want := range strings.SplitAfter(lines, "\n")[:2] {
		var out, errb bytes.Buffer
		code := evfilter.Main([]string{cmds[i][1], cmds[i][2]}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 0 || out.String() != want {
			t.Errorf("evfilter %q: exit %d, %q%s; want %q", cmds[i][1], code, out.String(), errb.String(), want)
		}
	}
}

// Past 200 groups the page folds the cheapest into one row. With two keys
// that row is named once, in the first column, as the text report names
// it ("other (1 group)"), and its second key is left blank: it was read
// as a group of one key and broke the page.
func TestHTMLFoldsGroupsOfTwoKeys(t *testing.T) {
	var b strings.Builder
	for i := range 201 {
		fmt.Fprintf(&b, `{"seq":%d,"ts":%d,"run_id":"r%d","agent_id":"a%d","kind":"model_result","payload":{"model":"m","usage":{"input":%d,"output":1}}}`+"\n", i+1, 1793524443+i, i, i, 1000+i)
	}
	events := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(events, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	page := string(evsumOut(t, "--by", "agent,model", "--format", "html", events))
	row := regexp.MustCompile(`<tr class="other"><td class="wrap">([^<]*)</td><td class="wrap">([^<]*)</td>`).FindStringSubmatch(page)
	if row == nil || row[1] != "other (1 group)" || row[2] != "" {
		t.Errorf("the folded row's keys: %q; want \"other (1 group)\" and a blank", row)
	}
	if !strings.Contains(page, "The 1 group of least cost is folded into one row") {
		t.Error("the page does not say one group is folded")
	}
}
