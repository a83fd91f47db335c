package zot2gp_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/devtools/picheck"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// piSources are the zot streams the mutated ones are made of: the shipped
// transcripts and generated corpora of a few runs each.
func piSources(t testing.TB) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("../../../examples/zot/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no shipped zot examples")
	}
	var srcs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, b)
	}
	for seed := uint64(1); seed <= 8; seed++ {
		var b bytes.Buffer
		if err := corpus.Zot(&b, 4<<10, seed); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, b.Bytes())
	}
	return srcs
}

// piReport is what --format pi may say on stderr: a line's report (with
// its file and line), the count of the ones not reported one by one, the
// end of the input inside a run, and the count of the types pi has no
// event for.
var piReport = regexp.MustCompile(`^zot2gp: (<stdin>:\d+: .+|\.\.\. and \d+ more bad lines? in <stdin>|--format pi: the input ended inside a run \(no done\): zot2gp ended it|--format pi: dropped .+)$`)

// TestPiMutated: 2,000 zot streams made of the shipped transcripts and
// generated corpora, each with a few lines dropped, duplicated, swapped,
// moved or cut (seeded, so the same streams every time): whatever the
// input, --format pi's output keeps every rule of pi's protocol
// (picheck), says on stderr with file and line what it dropped or
// repaired, and exits 2 exactly when it reported a line.
func TestPiMutated(t *testing.T) {
	srcs := piSources(t)
	r := rand.New(rand.NewPCG(21, 6))
	const streams = 2000
	invalid, reported := 0, 0
	for n := range streams {
		in := picheck.Mutate(r, srcs[n%len(srcs)])
		var out, errs bytes.Buffer
		code := zot2gp.Main([]string{"--format", "pi", "--ts=stable"}, cli.Stdio{In: bytes.NewReader(in), Out: &out, Err: &errs})
		fault := picheck.Check(out.Bytes())
		lineReports := regexp.MustCompile(`(?m)^zot2gp: <stdin>:\d+: `).MatchString(errs.String())
		switch {
		case fault != nil:
		case code != 0 && code != 2, code == 2 != lineReports:
			fault = fmt.Errorf("exit %d with stderr:\n%s", code, errs.String())
		default:
			for _, l := range strings.Split(strings.TrimSuffix(errs.String(), "\n"), "\n") {
				if l != "" && !piReport.MatchString(l) {
					fault = fmt.Errorf("stderr line %q", l)
				}
			}
		}
		if lineReports {
			reported++
		}
		if fault != nil {
			invalid++
			if invalid <= 3 {
				t.Errorf("stream %d: %v\ninput:\n%s", n, fault, in)
			}
		}
	}
	if invalid > 0 {
		t.Errorf("%d of %d mutated streams gave invalid pi output", invalid, streams)
	}
	t.Logf("%d streams, %d with lines reported", streams, reported)
}
