package e2e

import (
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
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
	src, err := os.ReadFile("../../../examples/events/multiagent.jsonl")
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
	// The recipe exactly as docs/cookbook.md gives it; sendmail is a
	// stand-in that keeps each message.
	recipe := cookbookRecipe(t, "## A daily report from cron")
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "sendmail"), []byte("#!/bin/sh\ncat > \"sent-$N.eml\"\n"), 0o755)
	run := func(n int) (events, problems int) {
		cmd := exec.Command("bash", "-c", recipe)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "N="+strconv.Itoa(n), "PATH="+bin+":"+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", n, err, out)
		}
		md, html := readMail(t, filepath.Join(dir, fmt.Sprintf("sent-%d.eml", n)))
		report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
		page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
		if md != string(report) || html != string(page) {
			t.Errorf("run %d: the mail's parts are not report.md and report.html", n)
		}
		if !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.Contains(html, `data-metric="runs"`) {
			t.Errorf("run %d: the HTML part is not the report page:\n%.300s", n, html)
		}
		return total(t, md)
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
			md, _ := readMail(t, filepath.Join(dir, fmt.Sprintf("sent-%d.eml", n)))
			t.Logf("report %d:\n%s", n, md)
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

// cookbookRecipe is the first indented code block after the heading in
// docs/cookbook.md, as a shell script.
func cookbookRecipe(t *testing.T, heading string) string {
	t.Helper()
	doc, err := os.ReadFile("../../../docs/cookbook.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), heading)
	if !ok {
		t.Fatalf("docs/cookbook.md has no %q", heading)
	}
	var block []string
	for _, l := range strings.Split(after, "\n") {
		switch {
		case strings.HasPrefix(l, "    "):
			block = append(block, l[4:])
		case len(block) > 0:
			return strings.Join(block, "\n") + "\n"
		}
	}
	t.Fatalf("no code block after %q", heading)
	return ""
}

// readMail reads a multipart/alternative message and returns its plain
// text and HTML parts, decoded.
func readMail(t *testing.T, path string) (plain, html string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msg, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if msg.Header.Get("To") == "" || msg.Header.Get("Subject") == "" {
		t.Errorf("%s: no To or Subject", path)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("%s: content type %q (%v)", path, mt, err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var body io.Reader = part
		if part.Header.Get("Content-Transfer-Encoding") == "base64" {
			body = base64.NewDecoder(base64.StdEncoding, part)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); ct {
		case "text/plain":
			plain = string(b)
		case "text/html":
			html = string(b)
		}
	}
	if plain == "" || html == "" {
		t.Fatalf("%s: a part is missing", path)
	}
	return plain, html
}
