package summary

import (
	"math"
	"sort"
)

// alpha is the relative accuracy of the percentile sketch: a reported
// percentile q of n values is within alpha*v of v, where v is the value of
// rank ceil(q*n) among the values (nearest rank). Up to exactCap values
// the percentiles are exact; max is always exact.
const alpha = 0.01

// exactCap is how many values a sketch keeps as they are before it
// switches to buckets.
const exactCap = 32

var (
	gamma    = (1 + alpha) / (1 - alpha)
	logGamma = math.Log(gamma)
)

// minValue is the smallest value given its own bucket; anything smaller
// (zero, negative clock steps) counts in the zero bucket.
const minValue = 1e-9

// sketch is a mergeable quantile sketch in the DDSketch style: values are
// counted in logarithmic buckets of relative width 2*alpha, so merging two
// sketches is adding bucket counts, which is exact and deterministic, and
// the order values or sketches arrive in never changes the result. Its
// size grows with log(max/min)/alpha, never with the number of values
// (at most about 1,100 buckets between 1 ns and 10^9 s).
//
// Up to exactCap values are kept as they are, and percentiles are exact;
// past that all values go into buckets. Whether a sketch is exact depends
// only on how many values it holds, so a merged sketch is the same as one
// that saw all values in one pass.
type sketch struct {
	n    uint64 // the values added
	zero uint64 // values below minValue, once bucketed
	min  float64
	max  float64 // the largest value added, exactly
	// data holds the values (float64 bits) while n <= exactCap, then the
	// buckets, sorted by index, each packed as index<<32 | count: one
	// slice instead of two keeps a group small.
	data []uint64
}

const maxCount = 1<<32 - 1

func pack(idx int32, n uint64) uint64 { return uint64(uint32(idx))<<32 | n }

func unpack(x uint64) (int32, uint64) { return int32(uint32(x >> 32)), x & maxCount }

// bucketed says whether the values are in buckets (n > exactCap).
func (s *sketch) bucketed() bool { return s.n > exactCap }

// exact returns the values while the sketch is exact.
func (s *sketch) exact() []float64 {
	vs := make([]float64, len(s.data))
	for i, x := range s.data {
		vs[i] = math.Float64frombits(x)
	}
	return vs
}

// spill moves the exact values into buckets.
func (s *sketch) spill() {
	vs := s.exact()
	s.data = nil
	for _, v := range vs {
		s.addValue(v)
	}
}

func (s *sketch) addValue(v float64) {
	if v < minValue {
		s.zero++
		return
	}
	s.addBucket(int32(math.Ceil(math.Log(v)/logGamma)), 1)
}

func (s *sketch) addBucket(idx int32, n uint64) {
	// the first bucket of index idx or more (sort.Search, without its
	// call per step)
	i, j := 0, len(s.data)
	for i < j {
		h := int(uint(i+j) >> 1)
		if b, _ := unpack(s.data[h]); b < idx {
			i = h + 1
		} else {
			j = h
		}
	}
	for ; i < len(s.data); i++ {
		b, c := unpack(s.data[i])
		if b != idx {
			break
		}
		if c+n <= maxCount {
			s.data[i] = pack(idx, c+n)
			return
		}
		n -= maxCount - c // fill this one; the rest goes into another of the same index
		s.data[i] = pack(idx, maxCount)
	}
	for n > 0 {
		m := min(n, maxCount)
		s.data = append(s.data, 0)
		copy(s.data[i+1:], s.data[i:])
		s.data[i] = pack(idx, m)
		n -= m
		i++
	}
}

// add counts v.
func (s *sketch) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if v < 0 {
		v = 0
	}
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	switch {
	case s.n <= exactCap:
		s.data = append(s.data, math.Float64bits(v))
	case s.n == exactCap+1:
		s.spill()
		s.addValue(v)
	default:
		s.addValue(v)
	}
}

// merge adds the values counted in o.
func (s *sketch) merge(o *sketch) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	wasBucketed := s.bucketed()
	s.n += o.n
	switch {
	case !s.bucketed():
		s.data = append(s.data, o.data...)
		return
	case !wasBucketed:
		s.spill()
	}
	if o.bucketed() {
		s.zero += o.zero
		for _, x := range o.data {
			s.addBucket(unpack(x))
		}
		return
	}
	for _, x := range o.data { // o's exact values, without a copy
		s.addValue(math.Float64frombits(x))
	}
}

// rank is the nearest rank of the q-quantile, 1 to n.
func (s *sketch) rank(q float64) uint64 {
	return min(max(uint64(math.Ceil(q*float64(s.n))), 1), s.n)
}

// quantile returns the estimate of the q-quantile (0 <= q <= 1) by nearest
// rank, and false when the sketch is empty.
func (s *sketch) quantile(q float64) (float64, bool) {
	if s.n == 0 {
		return 0, false
	}
	rank := s.rank(q)
	if !s.bucketed() {
		vs := s.exact()
		sort.Float64s(vs)
		return vs[rank-1], true
	}
	if rank <= s.zero {
		return s.min, true
	}
	seen := s.zero
	for _, x := range s.data {
		idx, n := unpack(x)
		seen += n
		if seen >= rank {
			// The midpoint (in relative terms) of the bucket: within alpha
			// of every value in it.
			v := 2 * math.Pow(gamma, float64(idx)) / (gamma + 1)
			return math.Min(math.Max(v, s.min), s.max), true
		}
	}
	return s.max, true
}
