package summary

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/core/window"
	"github.com/evtools/evtools/internal/folds/record"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected reports of testdata/report/*.txtar")

// The reports evsum writes, checked value by value: each
// testdata/report/*.txtar holds events.jsonl and, per file named by its
// options, the report (JSON Lines, as evsum --format jsonl writes it) and
// a last line "check: problems" when --check would exit 1. A file's name is
// the --by value, then options: tz=ZONE, since=@UNIX, until=@UNIX,
// breakdown=model, sort=FIELD, top=N; a name
// starting with "partial " is the state --partial writes instead.
//
// Every report is also computed from the events cut in two at each line,
// written as partial states, read back and merged: it must be the same
// (but with the option nocut, for what docs/evsum.md says a cut changes).
//
// go test ./internal/folds/summary -update rewrites the expected output.
func TestGoldenReports(t *testing.T) {
	files, _ := filepath.Glob("testdata/report/*.txtar")
	if len(files) == 0 {
		t.Fatal("no testdata/report/*.txtar")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var events [][]byte
			for _, f := range ar.Files {
				if f.Name == "events.jsonl" {
					events = lines(f.Data)
				}
			}
			if events == nil {
				t.Fatal("no events.jsonl")
			}
			changed := false
			for i := range ar.Files {
				f := &ar.Files[i]
				if f.Name == "events.jsonl" {
					continue
				}
				got := goldenOutput(t, f.Name, events)
				if got == string(f.Data) {
					continue
				}
				if *update {
					f.Data, changed = []byte(got), true
					continue
				}
				t.Errorf("%s: differs\n%s", f.Name, firstDiff(got, string(f.Data)))
			}
			if changed {
				if err := os.WriteFile(file, txtar.Format(ar), 0o666); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// goldenOutput is the report (or partial state) of events for the options
// spelled in name.
func goldenOutput(t *testing.T, name string, events [][]byte) string {
	t.Helper()
	partial := strings.HasPrefix(name, "partial ")
	fields := strings.Fields(strings.TrimPrefix(name, "partial "))
	keys, err := ParseBy(fields[0])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	opt := Options{By: keys}
	var order Order
	cut := true
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "nocut":
			cut = false
		case "tz":
			if opt.Loc, err = window.LoadLocation(v); err != nil {
				t.Fatal(err)
			}
			opt.TZName = v
		case "breakdown":
			if opt.Breakdown, err = ParseBreakdown(v); err != nil {
				t.Fatal(err)
			}
		case "sort":
			if order.Sort, err = record.ParseSort(v); err != nil {
				t.Fatal(err)
			}
		case "top":
			if order.Top, err = strconv.Atoi(v); err != nil {
				t.Fatal(err)
			}
		case "since", "until":
			tm, err := window.ParseTime(v, time.Time{}, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if k == "since" {
				opt.Since = tm
			} else {
				opt.Until = tm
			}
			opt.WindowOn = true
		default:
			t.Fatalf("%s: unknown option %q", name, f)
		}
	}
	s := summarise(t, opt, events)
	s.SetOrder(order)
	if partial {
		var b bytes.Buffer
		if err := s.WritePartial(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := report(t, s)
	if s.HasProblems() {
		out += "check: problems\n"
	}
	for i := 1; cut && i < len(events); i++ {
		m := NewMerger()
		roundTrip(t, m, summarise(t, opt, events[:i]))
		roundTrip(t, m, summarise(t, opt, events[i:]))
		m.State.SetOrder(order)
		merged := report(t, m.State)
		if m.State.HasProblems() {
			merged += "check: problems\n"
		}
		if merged != out {
			t.Errorf("%s: cut after line %d, the merged report differs\n%s", name, i, firstDiff(merged, out))
		}
	}
	return out
}
