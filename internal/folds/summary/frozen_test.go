package summary

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// frozenTrip freezes s whole and loads it back, as evsum's cache keeps
// the state of an archive's segment between runs.
func frozenTrip(t testing.TB, s *State) *State {
	t.Helper()
	l, err := LoadFrozen(s.Options(), s.AppendFrozen(nil))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// inFrozenParts summarises ls cut at cuts as evsum reads an archive with
// its cache: each part into a state of its own that keeps its call
// notes, frozen and loaded back, merged in order into the state of the
// parts before.
func inFrozenParts(t testing.TB, opt Options, ls [][]byte, cuts []int) *State {
	t.Helper()
	st := New(opt)
	part := opt
	part.CallNotes = true
	for i := 0; i+1 < len(cuts); i++ {
		p := frozenTrip(t, summarise(t, part, ls[cuts[i]:cuts[i+1]]))
		if !st.Fits(p) {
			t.Fatalf("part %d does not fit", i)
		}
		st.Merge(p)
	}
	return st
}

// A corpus cut anywhere (runs and turns across the cuts), each part's
// state frozen, loaded back and merged in order, gives one pass's report
// byte for byte, its groups and runs hot or all frozen.
func TestFrozenPartsEqualOnePass(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	corpora := map[string][]byte{
		"envelope": envelopeCorpus(t, 256<<10, 11),
		"gp":       gpCorpus(t, 256<<10, 11, false),
		"gp --ui":  gpCorpus(t, 256<<10, 11, true),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, data := range corpora {
		ls := lines(data)
		for _, by := range []string{"run", "day", "agent,day", "none", "model", "session", "hour,payload.tool"} {
			keys, err := ParseBy(by)
			if err != nil {
				t.Fatal(err)
			}
			for _, breakdown := range []string{"", "model"} {
				bd, _ := ParseBreakdown(breakdown)
				opt := Options{By: keys, Breakdown: bd}
				want := report(t, summarise(t, opt, ls))
				for _, limit := range []int{1024, 1} {
					hotLimit = limit
					cuts := []int{0}
					for at := rng.IntN(len(ls) / 3); at < len(ls); at += 1 + rng.IntN(len(ls)/3) {
						cuts = append(cuts, at)
					}
					cuts = append(cuts, len(ls))
					if got := report(t, inFrozenParts(t, opt, ls, cuts)); got != want {
						t.Errorf("%s --by %s --breakdown %q, hot limit %d, cut at %v: differs\n%s", name, by, breakdown, limit, cuts, firstDiff(got, want))
					}
					hotLimit = 1024
				}
			}
		}
	}
}

// Call ids used again across the cuts pair as in one pass: the frozen
// state keeps the call notes a partial state keeps.
func TestFrozenPartsPairCallsAsOnePass(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 3000 {
		hotLimit = []int{1024, 1}[i%2]
		ls, cuts := reusedCalls(rng)
		for _, by := range []string{"run", "agent"} {
			opt := Options{By: []Key{keyWords[by]}}
			want := report(t, summarise(t, opt, ls))
			if got := report(t, inFrozenParts(t, opt, ls, cuts)); got != want {
				t.Fatalf("--by %s, cut at %v:\n%s\n%s", by, cuts, bytes.Join(ls, []byte("\n")), firstDiff(got, want))
			}
		}
	}
}

// A frozen state cut short, damaged or of another layout is refused, never
// loaded wrong.
func TestLoadFrozenRefusesDamage(t *testing.T) {
	opt := Options{By: []Key{keyWords["day"]}, CallNotes: true}
	good := summarise(t, opt, lines(envelopeCorpus(t, 64<<10, 3))).AppendFrozen(nil)
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x10
	otherLayout := bytes.Clone(good)
	copy(otherLayout[len(frozenMagic)+4+1:], "ffffffff") // the schema's name, checksum made right below
	otherLayout = refreshChecksum(otherLayout)
	for name, data := range map[string][]byte{
		"empty":        nil,
		"cut short":    good[:len(good)-7],
		"header only":  good[:len(frozenMagic)+4],
		"a byte flips": flipped,
		"other layout": otherLayout,
		"a partial":    []byte(`{"evsum":"partial","version":2}`),
		"more after":   refreshChecksum(append(bytes.Clone(good), 0)),
	} {
		if _, err := LoadFrozen(opt, data); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := LoadFrozen(opt, good); err != nil {
		t.Errorf("the state itself: %v", err)
	}
}

// refreshChecksum makes the checksum of a frozen state that of its bytes.
func refreshChecksum(b []byte) []byte {
	body := b[len(frozenMagic)+4:]
	return append(append(bytes.Clone(b[:len(frozenMagic)]), appendCRC(body)...), body...)
}

func appendCRC(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(nil, crc32.Checksum(body, castagnoli))
}

// FuzzLoadFrozen: whatever bytes a cache file holds, with a right
// checksum even, loading them refuses them or gives a state; it never
// panics.
func FuzzLoadFrozen(f *testing.F) {
	opt := Options{By: []Key{keyWords["run"]}, CallNotes: true}
	f.Add(summarise(f, opt, lines(envelopeCorpus(f, 8<<10, 1))).AppendFrozen(nil)[len(frozenMagic)+4:])
	f.Add(New(opt).AppendFrozen(nil)[len(frozenMagic)+4:])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(frozenMagic), appendCRC(body)...)
		LoadFrozen(opt, append(data, body...))
	})
}
