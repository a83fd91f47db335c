package ev2otlp

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/evimport"
)

// evimport --state S | ev2otlp --endpoint URL, run again and again as
// the agents write: each span reaches the receiver once, and in the end
// the receiver holds the spans of one pass over the final logs, with the
// same ids. --state writes a run whole, once it is settled, so a run's
// spans are made from all of its events, never from part of them.
func TestStateSendsEachSpanOnce(t *testing.T) {
	dir := t.TempDir()
	src, home, state := filepath.Join(dir, "src"), filepath.Join(dir, "home"), filepath.Join(dir, "s.state")
	for i, kind := range []string{"claude", "pi"} {
		if err := corpus.Agents(src, kind, 200<<10, uint64(11+i)); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(src, p)
			files = append(files, rel)
		}
		return nil
	})
	r := newReceiver(t, nil)
	sends := 0
	send := func() {
		var out, errb bytes.Buffer
		if code := evimport.Main([]string{"--state", state, home}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("evimport --state: exit %d: %s", code, errb.String())
		}
		if out.Len() == 0 {
			return
		}
		sends++
		if _, stderr, code := ev2otlp(t, &out, "--endpoint", r.srv.URL); code != 0 {
			t.Fatalf("ev2otlp: exit %d: %s", code, stderr)
		}
	}
	// The logs as they were at five moments: each file's lines up to
	// then (a subagent's lines before its parent's next prompt, as the
	// agent writes them), written just now.
	first, last := time.Now(), time.Time{}
	stamps := map[string][]time.Time{}
	datas := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		datas[f] = data
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			var l struct{ Timestamp time.Time }
			json.Unmarshal(line, &l)
			stamps[f] = append(stamps[f], l.Timestamp)
			if !l.Timestamp.IsZero() && l.Timestamp.Before(first) {
				first = l.Timestamp
			}
			if l.Timestamp.After(last) {
				last = l.Timestamp
			}
		}
	}
	const moments = 5
	for m := 1; m <= moments; m++ {
		at := first.Add(last.Sub(first) * time.Duration(m) / moments)
		for _, f := range files {
			var upTo []byte
			for i, line := range bytes.SplitAfter(datas[f], []byte("\n")) {
				if stamps[f][i].After(at) {
					break
				}
				upTo = append(upTo, line...)
			}
			dst := filepath.Join(home, f)
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, upTo, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		send()
		send() // nothing new: nothing sent
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, f := range files {
		os.Chtimes(filepath.Join(home, f), old, old)
	}
	send()

	var pass bytes.Buffer
	evimport.Main([]string{home}, cli.Stdio{In: strings.NewReader(""), Out: &pass, Err: &bytes.Buffer{}})
	once := newReceiver(t, nil)
	if _, stderr, code := ev2otlp(t, &pass, "--endpoint", once.srv.URL); code != 0 {
		t.Fatalf("ev2otlp: exit %d: %s", code, stderr)
	}
	if sends < 3 {
		t.Errorf("spans sent by %d runs: the logs did not grow in steps", sends)
	}
	if r.spans != once.spans {
		t.Errorf("%d spans sent over the runs, one pass sends %d", r.spans, once.spans)
	}
	if got, want := spanNames(t, r.traces), spanNames(t, once.traces); got != want {
		t.Errorf("the spans sent over the runs are not one pass's:\n%.2000s\nwant:\n%.2000s", got, want)
	}
}
