package htmlreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata")

// The pages for the examples and for small limits that fold every long
// tail (rows, bars, periods, problems), byte for byte: go test -update
// rewrites them; open them in a browser before committing.
// (evsum's own golden pages use its table columns; the browser test of
// internal/devtools/e2e opens those.)
func TestGoldenPages(t *testing.T) {
	const multi, days = "../../../examples/events/multiagent.jsonl", "../../folds/evsum/testdata/html/three-days.jsonl"
	folded := Options{MaxRows: 2, MaxBars: 2, MaxPeriods: 2, MaxProblems: 1}
	for _, tc := range []struct {
		name, file, by string
		o              Options
	}{
		{"multiagent.run", multi, "run", Options{}},
		{"multiagent.agent", multi, "agent", Options{}},
		{"multiagent.tool", multi, "tool", Options{}},
		{"multiagent.day", multi, "day", Options{}},
		{"multiagent.none", multi, "none", Options{}},
		{"multiagent.agent-model", multi, "agent,model", Options{}},
		{"three-days.day", days, "day", Options{}},
		{"three-days.hour.folded", days, "hour", folded},
		{"three-days.run.folded", days, "run", folded},
		{"empty", os.DevNull, "run", Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Version = "test"
			got := report(t, tc.file, tc.by, tc.o)
			path := filepath.Join("testdata", tc.name+".html")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the page written now (go test -update rewrites it)", path)
			}
		})
	}
}
