package evsum

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/devtools/archivetest"
	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

// archiveOf writes the lines of data, cut at random lines into segments
// (runs, turns and calls cut between them), into an archive of two hosts
// under dir, each segment going to one or the other; it returns the
// events of each host in the order evsum reads them (host after host,
// by id, each in its manifest's order).
func archiveOf(t *testing.T, dir string, data []byte, rng *rand.Rand) (alpha, beta []byte) {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	hosts := [2][]archivetest.Segment{}
	for from := 0; from < len(lines); {
		to := min(len(lines), from+1+rng.IntN(len(lines)/4+1))
		h := rng.IntN(2)
		day := fmt.Sprintf("2026-12-%02d", len(hosts[h])+1)
		hosts[h] = append(hosts[h], archivetest.Segment{Day: day, Events: bytes.Join(lines[from:to], nil)})
		from = to
	}
	var read [2][]byte
	for i, name := range []string{"alpha", "beta"} {
		h := archivetest.Host{Name: name, ID: fmt.Sprintf("%d-%s", i, name), Generation: 1}
		if _, err := archivetest.Write(filepath.Join(dir, name), h, hosts[i]); err != nil {
			t.Fatal(err)
		}
		for _, s := range hosts[i] {
			read[i] = append(read[i], s.Events...)
		}
	}
	return read[0], read[1]
}

func evsumIn(t *testing.T, args ...string) result {
	t.Helper()
	var out, errs bytes.Buffer
	code := Main(args, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errs})
	return result{code, out.String(), errs.String()}
}

// The report over an archive is the report of its events read in one
// pass, byte for byte, in every format and grouping: read the first time
// (each segment's state folded and kept), asked again (the report kept),
// from the segments' kept states (the report's file gone), and after a
// sync added a segment, whatever cuts the segments and whichever host
// they are on.
func TestArchiveReportIsOnePass(t *testing.T) {
	corpora := map[string][]byte{
		"envelope": genCorpus(t, "envelope"),
		"gp":       genCorpus(t, "gp"),
	}
	questions := [][]string{
		{"--by", "day"},
		{"--by", "run", "--format", "md"},
		{"--by", "agent,day", "--format", "csv"},
		{"--by", "model", "--breakdown", "model", "--format", "json"},
		{"--by", "none", "--check"},
		{"--by", "session", "--sort", "-cost_usd", "--top", "2"},
		{"--by", "day", "--format", "html"},
		{"--by", "tool"}, // not splittable: read in one pass
		{"--by", "day", "--since", "2026-01-01", "--tz", "Europe/Paris", "--partial"},
	}
	rng := rand.New(rand.NewPCG(32, 3))
	for name, data := range corpora {
		for round := range 2 {
			dir := t.TempDir()
			t.Setenv(cacheEnv, filepath.Join(dir, "cache"))
			arch := filepath.Join(dir, "archive")
			plain := filepath.Join(dir, "plain.jsonl")
			alpha, beta := archiveOf(t, arch, data, rng)
			if err := os.WriteFile(plain, append(slices.Clip(alpha), beta...), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, q := range questions {
				want := evsumIn(t, append(q, plain)...)
				want.out = strings.ReplaceAll(want.out, plain, arch) // the html names its input
				check := func(when string) {
					t.Helper()
					if got := evsumIn(t, append(q, arch)...); got != want {
						t.Fatalf("%s, round %d, evsum %s, %s: differs from one pass:\nstatus %d, want %d\nstderr %q, want %q\n%s",
							name, round, strings.Join(q, " "), when, got.code, want.code, got.err, want.err, firstLineDiff(got.out, want.out))
					}
				}
				check("read first")
				check("asked again")
				removeReports(t, filepath.Join(dir, "cache"))
				check("from the segments' states")
			}
			// a sync adds a segment to a host: the report is made new
			more := []archivetest.Segment{{Day: "2026-12-31", Events: bytes.SplitAfterN(data, []byte("\n"), 50)[rng.IntN(40)]}}
			if _, err := archivetest.Add(filepath.Join(arch, "alpha"), more); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(plain, slices.Concat(alpha, more[0].Events, beta), 0o644)
			want := evsumIn(t, "--by", "day", plain)
			if got := evsumIn(t, "--by", "day", arch); got != want {
				t.Fatalf("%s, after a sync: differs\n%s", name, firstLineDiff(got.out, want.out))
			}
		}
	}
}

// A cache file cut short, damaged, emptied or replaced by another is not
// trusted: the segment is read again, the report is one pass's, and the
// file is written again (the segments are then not opened).
func TestCacheNotTrusted(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	t.Setenv(cacheEnv, cache)
	arch := filepath.Join(dir, "archive")
	alpha, beta := archiveOf(t, arch, genCorpus(t, "envelope"), rand.New(rand.NewPCG(1, 1)))
	plain := filepath.Join(dir, "plain.jsonl")
	os.WriteFile(plain, slices.Concat(alpha, beta), 0o644)
	want := evsumIn(t, "--by", "day", plain)
	evsumIn(t, "--by", "day", arch)
	var files []string
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 3 {
		t.Fatalf("%d files in the cache", len(files))
	}
	for i, f := range files {
		data, _ := os.ReadFile(f)
		switch i % 4 {
		case 0:
			data = data[:len(data)/2]
		case 1:
			data[len(data)-3] ^= 1
		case 2:
			data = nil
		case 3:
			data, _ = os.ReadFile(files[(i+1)%len(files)])
		}
		os.WriteFile(f, data, 0o644)
	}
	if got := evsumIn(t, "--by", "day", arch); got != want {
		t.Fatalf("with a damaged cache: status %d, stderr %q\n%s", got.code, got.err, firstLineDiff(got.out, want.out))
	}
	removeReports(t, cache)
	segs, _ := filepath.Glob(filepath.Join(arch, "*", "*.zst"))
	for _, s := range segs {
		os.Remove(s)
	}
	if got := evsumIn(t, "--by", "day", arch); got != want {
		t.Fatalf("the cache written again: status %d, stderr %q\n%s", got.code, got.err, firstLineDiff(got.out, want.out))
	}
}

// removeReports removes the reports kept in the cache, leaving the
// segments' states.
func removeReports(t *testing.T, cache string) {
	t.Helper()
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "report-") {
			os.Remove(p)
		}
		return nil
	})
}

func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\ngot:  %.2000s\nwant: %.2000s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// genCorpus is a generated corpus: envelope events, or zot's through
// zot2gp (the glasspane vocabulary, with turns and calls by id).
func genCorpus(t *testing.T, kind string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if kind == "envelope" {
		if err := corpus.Envelope(&buf, 192<<10, 5); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if err := corpus.Zot(&buf, 192<<10, 5); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := zot2gp.Main([]string{"--ts", "stable"}, cli.Stdio{In: &buf, Out: &out, Err: &errs}); code != 0 {
		t.Fatalf("zot2gp: %s", errs.String())
	}
	return out.Bytes()
}
