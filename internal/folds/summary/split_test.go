package summary

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evtools/evtools/internal/devtools/corpus"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/sources/zot2gp"
)

func lines(data []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func envelopeCorpus(t testing.TB, size int64, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := corpus.Envelope(&buf, size, seed); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gpCorpus is the zot corpus through zot2gp, with or without --ui.
func gpCorpus(t testing.TB, size int64, seed uint64, ui bool) []byte {
	t.Helper()
	var zot, out, errs bytes.Buffer
	if err := corpus.Zot(&zot, size, seed); err != nil {
		t.Fatal(err)
	}
	args := []string{"--ts", "stable"}
	if ui {
		args = append(args, "--ui")
	}
	if code := zot2gp.Main(args, cli.Stdio{In: &zot, Out: &out, Err: &errs}); code != 0 {
		t.Fatalf("zot2gp exit %d: %s", code, errs.String())
	}
	return out.Bytes()
}

func report(t testing.TB, s *State) string {
	t.Helper()
	var b []byte
	for _, r := range s.Report() {
		b = r.AppendJSON(b)
		b = append(b, '\n')
	}
	return string(b)
}

func summarise(t testing.TB, opt Options, ls [][]byte) *State {
	t.Helper()
	s := New(opt)
	for i, l := range ls {
		if err := s.Add(l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	return s
}

// roundTrip writes a state as a partial and reads it back, as --partial
// and --merge do across processes.
func roundTrip(t testing.TB, m *Merger, s *State) {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WritePartial(&buf); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if err := m.Add(sc.Bytes()); err != nil {
			t.Fatalf("partial line %q: %v", sc.Text(), err)
		}
	}
}

// A corpus split in four at arbitrary lines (runs cross the split points),
// summarised in parts, written as partial states, read back and merged,
// gives the report a single pass gives, byte for byte.
func TestSplitInFourEqualsOnePass(t *testing.T) {
	corpora := map[string][]byte{
		"envelope": envelopeCorpus(t, 512<<10, 7),
		"gp":       gpCorpus(t, 512<<10, 7, false),
		"gp --ui":  gpCorpus(t, 512<<10, 7, true),
	}
	for name, data := range corpora {
		ls := lines(data)
		bys := []string{"run", "agent,day", "none", "kind", "model", "hour,payload.tool"}
		if name == "envelope" {
			// In the glasspane vocabulary a tool_execution_update or _end names
			// no tool: cut from its start, --by tool files it under null
			// (docs/evsum.md says so). The run log names the tool on
			// every tool event.
			bys = append(bys, "tool")
		}
		for _, by := range bys {
			keys, err := ParseBy(by)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{By: keys}
			want := report(t, summarise(t, opt, ls))
			// split points that fall inside runs
			cuts := []int{0, len(ls)/4 + 3, len(ls)/2 + 5, 3*len(ls)/4 + 1, len(ls)}
			// and with groups and runs frozen all the time (random states
			// in between are TestPropertyFreezePartialMerge's)
			for _, limit := range []int{1024, 1} {
				defer func(n int) { hotLimit = n }(hotLimit)
				hotLimit = limit
				if got := report(t, summarise(t, opt, ls)); got != want {
					t.Errorf("%s --by %s, hot limit %d: one pass differs\n%s", name, by, limit, firstDiff(got, want))
				}
				m := NewMerger()
				for i := 0; i < 4; i++ {
					roundTrip(t, m, summarise(t, opt, ls[cuts[i]:cuts[i+1]]))
				}
				if got := report(t, m.State); got != want {
					t.Errorf("%s --by %s, hot limit %d: merged report differs from one pass\n%s", name, by, limit, firstDiff(got, want))
				}
				hotLimit = 1024
			}
		}
	}
}

// The run log's report does not depend on the order the parts are merged
// in either (only glasspane turn latencies across a split need input order).
func TestMergeOrderFree(t *testing.T) {
	ls := lines(envelopeCorpus(t, 1<<20, 3))
	opt := Options{By: []Key{keyWords["agent"]}}
	want := report(t, summarise(t, opt, ls))
	cuts := []int{0, len(ls) / 3, 2*len(ls)/3 + 1, len(ls)}
	for _, order := range [][]int{{2, 1, 0}, {1, 2, 0}, {0, 2, 1}} {
		m := NewMerger()
		for _, i := range order {
			roundTrip(t, m, summarise(t, opt, ls[cuts[i]:cuts[i+1]]))
		}
		if got := report(t, m.State); got != want {
			t.Errorf("order %v: differs\n%s", order, firstDiff(got, want))
		}
	}
}

func firstDiff(got, want string) string {
	g, w := bytes.Split([]byte(got), []byte("\n")), bytes.Split([]byte(want), []byte("\n"))
	for i := 0; i < len(g) && i < len(w); i++ {
		if !bytes.Equal(g[i], w[i]) {
			return "got:  " + string(g[i]) + "\nwant: " + string(w[i])
		}
	}
	return "different number of lines"
}

// TestFreezeForgetsLast: the run and group of the last line, which the next
// line looks at before the maps, are never ones a freeze took out of the
// maps and reused for others.
func TestFreezeForgetsLast(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	var ls [][]byte
	for i := range 6 {
		ls = append(ls, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"model_result","payload":{"tokens":1}}`, i, 1793520000+i, i))
	}
	for _, by := range []string{"run", "agent"} {
		hotLimit = 1024
		s := summarise(t, Options{By: []Key{keyWords[by]}}, ls)
		hotLimit = 1
		if s.lastRun == nil || s.lastGroup == nil {
			t.Fatalf("--by %s: no last run or group after adding lines", by)
		}
		s.freeze(nil, nil) // as Merge does: nothing kept
		if r := s.lastRun; r != nil && s.runs[r.id] != r {
			t.Errorf("--by %s: the last run (now %q) was frozen and reused", by, r.id)
		}
		if g := s.lastGroup; g != nil && s.groups[g.key] != g {
			t.Errorf("--by %s: the last group (now %q) was frozen and reused", by, g.key)
		}
	}
}

// inParts summarises ls cut at cuts as jsonl.Parts has evsum do it: each
// part into a state of its own (AsPart), merged in order when Fits says
// it fits, else its lines added to the merged state one by one, as one
// pass adds them.
func inParts(t *testing.T, opt Options, ls [][]byte, cuts []int) *State {
	t.Helper()
	var st *State
	for i := 0; i+1 < len(cuts); i++ {
		part := New(opt)
		part.AsPart()
		for _, l := range ls[cuts[i]:cuts[i+1]] {
			part.Add(l)
		}
		switch {
		case st == nil:
			st = part
			st.AsWhole()
		case st.Fits(part):
			st.Merge(part)
		default:
			for _, l := range ls[cuts[i]:cuts[i+1]] {
				st.Add(l)
			}
		}
	}
	return st
}

// A zot call id with several events in a part pairs them in the part
// alone; a call of that id still pending before the part (started, or
// ended before its start) pairs with the first of them in one pass.
// Fits refuses such a part, which is then added line by line: cut
// anywhere, in any number of parts, the calls count as in one pass. Ids
// are reused here as no agent reuses them (a log's are unique), which is
// where the merge alone counted a call twice, or a failure that one pass
// had not: `evsum` on a file on two cores differed from one pass.
func TestPartsPairCallsAsOnePass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		ls, cuts := reusedCalls(rng)
		for _, by := range []string{"run", "agent"} {
			opt := Options{By: []Key{keyWords[by]}}
			want := report(t, summarise(t, opt, ls))
			if got := report(t, inParts(t, opt, ls, cuts)); got != want {
				t.Fatalf("--by %s, cut at %v:\n%s\n%s", by, cuts, bytes.Join(ls, []byte("\n")), firstDiff(got, want))
			}
		}
	}
}

// reusedCalls is a few zot tool call events of two ids, each used again
// and again, in one run or two, and where to cut them in parts.
func reusedCalls(rng *rand.Rand) (ls [][]byte, cuts []int) {
	n := 2 + rng.IntN(7)
	for i := range n {
		id, ts := rng.IntN(2), 1793520000+i
		switch rng.IntN(4) {
		case 0:
			ls = append(ls, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"r","agent_id":"a","kind":"tool_execution_start","payload":{"id":"c%d","name":"bash"}}`, i, ts, id))
		case 1:
			ls = append(ls, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"r","kind":"tool_execution_end","payload":{"id":"c%d","is_error":%v}}`, i, ts, id, rng.IntN(2) == 0))
		case 2:
			ls = append(ls, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"r","agent_id":"b","kind":"tool_call","payload":{"id":"c%d","name":"read"}}`, i, ts, id))
		default:
			ls = append(ls, fmt.Appendf(nil, `{"seq":%d,"ts":%d,"run_id":"r%d","kind":"tool_execution_start","payload":{"id":"c%d","name":"grep"}}`, i, ts, id, id))
		}
	}
	cuts = []int{0}
	for at := 1; at < n; at++ {
		if rng.IntN(2) == 0 {
			cuts = append(cuts, at)
		}
	}
	return ls, append(cuts, n)
}

// The same across processes: each part summarised by its own `evsum
// --partial`, the states merged by `evsum --merge` in input order, or
// first in two halves by `evsum --merge --partial` (a tree of merges),
// give one pass's report. A part's state keeps the events of an id it has
// more than one of (call_notes), which the merge replays on a call of
// that id still open before the part; without them the merge paired a
// reused id's events otherwise than one pass.
func TestPartialsPairCallsAsOnePass(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 1500 {
		hotLimit = []int{1024, 1}[i%2] // runs frozen or not
		ls, cuts := reusedCalls(rng)
		for _, by := range []string{"run", "agent"} {
			opt := Options{By: []Key{keyWords[by]}}
			want := report(t, summarise(t, opt, ls))
			opt.CallNotes = true
			half := len(cuts) / 2
			inOrder, left, right := NewMerger(), NewMerger(), NewMerger()
			for p := 0; p+1 < len(cuts); p++ {
				part := summarise(t, opt, ls[cuts[p]:cuts[p+1]])
				roundTrip(t, inOrder, part)
				if p < half {
					roundTrip(t, left, summarise(t, opt, ls[cuts[p]:cuts[p+1]]))
				} else {
					roundTrip(t, right, part)
				}
			}
			tree := NewMerger()
			for _, m := range []*Merger{left, right} {
				if m.State != nil {
					roundTrip(t, tree, m.State)
				}
			}
			for name, m := range map[string]*Merger{"in order": inOrder, "in a tree": tree} {
				if got := report(t, m.State); got != want {
					t.Fatalf("--by %s, cut at %v, merged %s:\n%s\n%s", by, cuts, name, bytes.Join(ls, []byte("\n")), firstDiff(got, want))
				}
			}
		}
	}
}
