package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The cookbook's cron recipe, run three times on a log that grows in
// between, the second time with its last line half written: every event
// is reported exactly once over the three reports, no report lists a
// problem, and every run exits 0.
func TestCronRecipeThreeRuns(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/events/multiagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// The shipped run log, moved to the last 80 seconds (its 12 minutes
	// pressed into 73 s): a run cut by a report is then one still going,
	// as it would be under cron.
	tsRe := regexp.MustCompile(`"ts":([0-9.]+)`)
	lines := strings.SplitAfter(strings.TrimSuffix(string(src), "\n"), "\n")
	first, _ := strconv.ParseFloat(tsRe.FindStringSubmatch(lines[0])[1], 64)
	now := float64(time.Now().Unix()) - 80
	for i, l := range lines {
		lines[i] = tsRe.ReplaceAllStringFunc(l, func(m string) string {
			ts, _ := strconv.ParseFloat(m[len(`"ts":`):], 64)
			return fmt.Sprintf(`"ts":%.3f`, now+(ts-first)/10)
		})
	}
	if !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += "\n"
	}
	logf := filepath.Join(dir, "events.jsonl")
	appendLog := func(s string) {
		f, err := os.OpenFile(logf, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	// The recipe as docs/cookbook.md gives it, with the mail replaced by a
	// copy of the report.
	recipe := `set -o pipefail
evcursor --state daily.cursor --defer events.jsonl | evsum --by day --format md > report.md \
  && cp report.md "sent-$N.md" \
  && evcursor --commit daily.cursor`
	run := func(n int) (events, problems int) {
		cmd := exec.Command("bash", "-c", recipe)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "N="+strconv.Itoa(n))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", n, err, out)
		}
		report, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("sent-%d.md", n)))
		if err != nil {
			t.Fatal(err)
		}
		return total(t, string(report))
	}

	appendLog(strings.Join(lines[:30], ""))
	e1, p1 := run(1)
	half := lines[60][:len(lines[60])/2]
	appendLog(strings.Join(lines[30:60], "") + half)
	e2, p2 := run(2)
	appendLog(lines[60][len(half):] + strings.Join(lines[61:], ""))
	e3, p3 := run(3)

	if e1 != 30 || e2 != 30 || e3 != len(lines)-60 {
		t.Errorf("events per report %d, %d, %d; want 30, 30, %d (each once)", e1, e2, e3, len(lines)-60)
	}
	if p1+p2+p3 != 0 {
		t.Errorf("problems per report %d, %d, %d; want none", p1, p2, p3)
		for n := 1; n <= 3; n++ {
			b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("sent-%d.md", n)))
			t.Logf("report %d:\n%s", n, b)
		}
	}
}

// total reads the events and problems columns of a Markdown report's
// total row.
func total(t *testing.T, md string) (events, problems int) {
	t.Helper()
	var head []string
	for _, l := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "*")
		}
		if head == nil {
			head = cells
			continue
		}
		if len(cells) != len(head) || cells[0] != "total" {
			continue
		}
		for i, h := range head {
			switch h {
			case "events":
				events, _ = strconv.Atoi(cells[i])
			case "problems":
				problems, _ = strconv.Atoi(cells[i])
			}
		}
		return events, problems
	}
	t.Fatalf("no total row in:\n%s", md)
	return 0, 0
}
