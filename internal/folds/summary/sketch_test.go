package summary

import (
	"fmt"
	"math"
	"sort"
	"testing"
)

// nearestRank is the exact q-quantile the sketch estimates.
func nearestRank(vs []float64, q float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	r := int(math.Ceil(q * float64(len(s))))
	r = max(r, 1)
	return s[r-1]
}

// values gives n deterministic values spread over six orders of magnitude.
func values(n int, seed uint64) []float64 {
	vs := make([]float64, n)
	x := seed
	for i := range vs {
		x = x*6364136223846793005 + 1442695040888963407
		vs[i] = math.Pow(10, float64(x>>11)/float64(1<<53)*6-2) // 0.01 .. 10^4
	}
	return vs
}

func TestSketchQuantiles(t *testing.T) {
	tests := []struct {
		name  string
		vs    []float64
		exact bool
	}{
		{"one value", []float64{42}, true},
		{"small exact", []float64{5, 1, 4, 2, 3}, true},
		{"with zeros", []float64{0, 0, 0, 7, 9}, true},
		{"negative is zero", []float64{-3, 1}, true},
		{"exactly the cap", values(exactCap, 1), true},
		{"past the cap", values(exactCap+1, 2), false},
		{"many", values(10000, 3), false},
		{"many with zeros", append(values(500, 4), make([]float64, 100)...), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sketch
			clean := make([]float64, len(tt.vs))
			for i, v := range tt.vs {
				s.add(v)
				clean[i] = math.Max(v, 0)
			}
			for _, q := range []float64{0, 0.01, 0.5, 0.95, 0.99, 1} {
				got, ok := s.quantile(q)
				want := nearestRank(clean, q)
				if !ok {
					t.Fatalf("q=%v: empty", q)
				}
				if tt.exact && got != want {
					t.Errorf("q=%v: got %v, want exactly %v", q, got, want)
				}
				if math.Abs(got-want) > alpha*want+1e-12 {
					t.Errorf("q=%v: got %v, want %v within %v", q, got, want, alpha)
				}
			}
			if s.max != nearestRank(clean, 1) {
				t.Errorf("max %v, want %v", s.max, nearestRank(clean, 1))
			}
		})
	}
}

func TestSketchEmpty(t *testing.T) {
	var s sketch
	if _, ok := s.quantile(0.5); ok {
		t.Error("an empty sketch has a median")
	}
	s.add(math.NaN())
	if s.n != 0 {
		t.Error("NaN was counted")
	}
}

// Merging sketches in any grouping gives what one sketch of all values
// gives: the same percentiles and the same state.
func TestSketchMergeEqualsOnePass(t *testing.T) {
	for _, n := range []int{3, exactCap, exactCap + 1, 40, 5000} {
		vs := values(n, uint64(n))
		var one sketch
		for _, v := range vs {
			one.add(v)
		}
		for _, parts := range []int{2, 3, 4, 7} {
			sk := make([]sketch, parts)
			for i, v := range vs {
				sk[(i*parts)/len(vs)].add(v)
			}
			var merged sketch
			for i := len(sk) - 1; i >= 0; i-- { // reverse order on purpose
				merged.merge(&sk[i])
			}
			for _, q := range []float64{0.5, 0.95, 1} {
				a, _ := one.quantile(q)
				b, _ := merged.quantile(q)
				if a != b {
					t.Errorf("n=%d parts=%d q=%v: merged %v, one pass %v", n, parts, q, b, a)
				}
			}
			pa, pb := one.partial(), merged.partial()
			if pa.N != pb.N || pa.Zero != pb.Zero || pa.Min != pb.Min || pa.Max != pb.Max ||
				len(pa.V) != len(pb.V) || len(pa.B) != len(pb.B) {
				t.Fatalf("n=%d parts=%d: states differ: %+v vs %+v", n, parts, pa, pb)
			}
			for i := range pa.B {
				if pa.B[i] != pb.B[i] {
					t.Fatalf("n=%d parts=%d: bucket %d differs", n, parts, i)
				}
			}
		}
	}
}

// A value of exactly 1 ns has a bucket of its own; only smaller ones go to
// the zero bucket.
func TestSketchOneNanosecond(t *testing.T) {
	var s sketch
	for range 20 {
		s.add(0)
		s.add(minValue)
	}
	if got, _ := s.quantile(0.95); math.Abs(got-minValue) > alpha*minValue {
		t.Errorf("p95 of 20 zeros and 20 ns: %v, want %v within %v", got, minValue, alpha)
	}
	for _, q := range []float64{0.25, 0.5} { // p50 is the last zero
		if got, _ := s.quantile(q); got != 0 {
			t.Errorf("q=%v of 20 zeros and 20 ns: %v, want 0", q, got)
		}
	}
}

// A sketch's size grows with the range of its values, never with their
// number: one bucket per index, in order.
func TestSketchSizeBounded(t *testing.T) {
	var s sketch
	for _, v := range values(20000, 9) {
		s.add(v)
	}
	p := s.partial()
	// 0.01 .. 10^4 is log(10^6)/log(gamma), about 691 buckets
	if len(p.B) > 700 {
		t.Errorf("%d buckets for values over six orders of magnitude", len(p.B))
	}
	for i := 1; i < len(p.B); i++ {
		if p.B[i][0] <= p.B[i-1][0] {
			t.Fatalf("buckets %v and %v out of order", p.B[i-1], p.B[i])
		}
	}
}

// Bucket counts past 2^32 (merged states of billions of calls) spill into
// further buckets of the same index; percentiles still walk them in order.
func TestSketchHugeCounts(t *testing.T) {
	load := func(p pSketch) sketch {
		t.Helper()
		s, err := p.sketch()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// 1 is in bucket 0, 2 in bucket 35
	s := load(pSketch{N: maxCount - 1, Min: 1, Max: 1, B: [][2]int64{{0, maxCount - 1}}})
	o := load(pSketch{N: 34, Min: 1, Max: 2, B: [][2]int64{{0, 33}, {35, 1}}})
	s.merge(&o)
	o = load(pSketch{N: 40, Min: 1, Max: 1, B: [][2]int64{{0, 40}}})
	s.merge(&o)
	if s.n != maxCount+73 {
		t.Errorf("count %d, want %d", s.n, uint64(maxCount)+73)
	}
	if got, _ := s.quantile(0.5); got != 1 {
		t.Errorf("p50 %v, want 1", got)
	}
	if got, _ := s.quantile(1); math.Abs(got-2) > alpha*2 || s.max != 2 {
		t.Errorf("p100 %v, max %v; want 2 within %v, and 2", got, s.max, alpha)
	}
	want := [][2]int64{{0, maxCount}, {0, 72}, {35, 1}}
	if got := s.partial().B; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("buckets %v, want %v", got, want)
	}

	// one bucket of more than 2^33 after a smaller one
	big := int64(2*maxCount + 5)
	s = load(pSketch{N: uint64(big) + 1, Min: 1.05, Max: 1.1, B: [][2]int64{{3, 1}, {5, big}}})
	if got, _ := s.quantile(0); math.Abs(got-1.05) > alpha*1.05 {
		t.Errorf("p0 %v, want 1.05 within %v", got, alpha)
	}
	want = [][2]int64{{3, 1}, {5, maxCount}, {5, maxCount}, {5, 5}}
	if got := s.partial().B; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("buckets %v, want %v", got, want)
	}
}
