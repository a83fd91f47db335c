// Package textfmt writes counts and durations for people to read: "3
// tool calls", "12,345", "1m05s", and finds the word a typo is most likely
// of (NearestWord). It imports nothing of the project's, so that every package,
// pkg/jsonl's included, can say a number the same way.
//
// The rule every view for people follows (the table, Markdown, the HTML
// report, the pretty view; JSON and CSV keep exact digits):
//
//   - A count is written whole with its digits grouped by commas
//     (Thousands: 2,304 and 34,120). Only a column too narrow for that
//     condenses (Compact: 2.3k and 34k), and then all of it, so that no
//     column holds 2304 beside 34k.
//   - A duration is written to a step (Step) that its size chooses
//     (StepOf: 850ms, 8.39s, 34.6s, 1m52s, 2h05m, 3d04h); a column of them
//     takes the step of its largest, so that every cell has the same
//     precision (0.85s beside 8.39s, not 850ms).
//   - A value a record does not have is "-"; a group of events that have
//     no value of the key is "(no KEY)": (no model), (no agent).
package textfmt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Plural is n and word, with an s unless n is 1: "1 turn", "3 turns".
func Plural(n int64, word string) string {
	return count(strconv.FormatInt(n, 10), n, word)
}

// PluralThousands is Plural with n's digits grouped by Thousands:
// "1 tool call", "12,345 tool calls".
func PluralThousands(n int64, word string) string {
	return count(Thousands(n), n, word)
}

func count(digits string, n int64, word string) string {
	if n == 1 {
		return digits + " " + word
	}
	return digits + " " + word + "s"
}

// Tally writes counts by name as "a (2), b (1)", each name as show writes
// it (as it is when show is nil), by name or, when mostFirst, by count and
// then by name; it returns their total too, for the sentence around them.
func Tally(counts map[string]int, mostFirst bool, show func(string) string) (list string, total int) {
	names := make([]string, 0, len(counts))
	for name, n := range counts {
		names = append(names, name)
		total += n
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(counts[b], counts[a]); mostFirst && c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if show == nil {
		show = func(name string) string { return name }
	}
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s (%d)", show(name), counts[name])
	}
	return strings.Join(parts, ", "), total
}

// Thousands writes n with a comma between groups of three digits:
// 12,345 and -1,000.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

// Decimal writes x to the decimals given, its whole part's thousands
// grouped as Thousands groups them: 1,234.50.
func Decimal(x float64, decimals int) string {
	s := strconv.FormatFloat(math.Abs(x), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(whole, 10, 64)
	out := Thousands(n)
	if frac != "" {
		out += "." + frac
	}
	if x < 0 && strings.Trim(s, "0.") != "" {
		out = "-" + out
	}
	return out
}

// Compact condenses a count for a narrow column: under 1,000 as it is,
// then in thousands, millions, billions or trillions with one decimal
// below 10 of the unit and none from 10 on: 2.3k, 34k, 627k, 1.2M, 12M.
func Compact(n int64) string {
	if n > -1000 && n < 1000 {
		return strconv.FormatInt(n, 10)
	}
	if n < 0 {
		if n == math.MinInt64 {
			n++ // its condensed form is the same
		}
		return "-" + Compact(-n)
	}
	f := float64(n)
	units := []struct {
		v float64
		s string
	}{{1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}}
	for i, u := range units {
		x := f / u.v
		if i+1 < len(units) && math.Round(x) >= 1000 {
			continue // 999,950 is 1.0M, not 1000k
		}
		if r := math.Round(x*10) / 10; r < 10 {
			return strconv.FormatFloat(r, 'f', 1, 64) + u.s
		}
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64) + u.s
	}
	panic("not reached")
}

// A Step is the precision a duration is written to, in microseconds: the
// unit of its last digit.
type Step int64

// The steps of Duration, from the finest.
const (
	StepTenthMilli Step = 100            // 3.2ms
	StepMilli      Step = 1000           // 850ms
	StepCenti      Step = 10_000         // 8.39s
	StepDeci       Step = 100_000        // 34.6s
	StepSecond     Step = 1_000_000      // 1m52s
	StepMinute     Step = 60 * 1_000_000 // 2h05m
	StepHour       Step = 3600 * 1_000_000
)

// steps are the steps with the durations below which each is taken.
var steps = []struct {
	step  Step
	below int64
}{
	{StepTenthMilli, 10_000}, {StepMilli, 1_000_000}, {StepCenti, 10_000_000},
	{StepDeci, 60_000_000}, {StepSecond, 3600_000_000}, {StepMinute, 24 * 3600_000_000},
}

// StepOf is the step a duration of us microseconds is written to: alone,
// its own; in a column, the largest's, for all of them. A duration that
// rounds up to the next unit takes that unit's step (9.996 s is 10.0s).
func StepOf(us int64) Step {
	if us < 0 {
		us = -us
	}
	for _, s := range steps {
		if roundTo(us, s.step) < s.below {
			return s.step
		}
	}
	return StepHour
}

// roundTo rounds us (not negative) to a multiple of step, halves up.
func roundTo(us int64, step Step) int64 {
	s := int64(step)
	return (us + s/2) / s * s
}

// Duration writes us microseconds to step: 3.2ms, 850ms, 8.39s, 34.6s,
// 35s and 1m52s, 35m and 2h05m, 5h and 3d04h; larger units are left out
// when they are 0.
func Duration(us int64, step Step) string {
	if us < 0 {
		return "-" + Duration(-us, step)
	}
	r := roundTo(us, step)
	switch step {
	case StepTenthMilli:
		return strconv.FormatFloat(float64(r)/1000, 'f', 1, 64) + "ms"
	case StepMilli:
		return strconv.FormatInt(r/1000, 10) + "ms"
	case StepCenti:
		return strconv.FormatFloat(float64(r)/1e6, 'f', 2, 64) + "s"
	case StepDeci:
		return strconv.FormatFloat(float64(r)/1e6, 'f', 1, 64) + "s"
	case StepSecond:
		return twoUnits(r/1_000_000, 60, "m", "s")
	case StepMinute:
		return twoUnits(r/60_000_000, 60, "h", "m")
	}
	return twoUnits(roundTo(us, StepHour)/3600_000_000, 24, "d", "h")
}

// twoUnits writes n small units as big ones (of per small ones each) and
// the rest: 1m52s, or 35s when there is no big one.
func twoUnits(n, per int64, big, small string) string {
	if n < per {
		return strconv.FormatInt(n, 10) + small
	}
	return fmt.Sprintf("%d%s%02d%s", n/per, big, n%per, small)
}

// Seconds writes a duration of whole seconds as a clock does, to the
// second under an hour and to the minute past it: "7s", "1m05s", "2h03m".
func Seconds(n int64) string {
	switch {
	case n < 60:
		return fmt.Sprintf("%ds", n)
	case n < 3600:
		return fmt.Sprintf("%dm%02ds", n/60, n%60)
	}
	return fmt.Sprintf("%dh%02dm", n/3600, n%3600/60)
}

// NearestWord is the word of words that w is most likely a misspelling
// of: at most two edits away, and fewer edits than w has letters; "" when
// none is. Case is ignored in w; words are lower case.
func NearestWord(w string, words []string) string {
	best, bestD := "", 3
	for _, c := range words {
		if d := editDistance(strings.ToLower(w), c); d < bestD && d < len(w) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// byte-wise: insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Money is a cost in nano-dollars as the views for people print it: to 4
// decimals, its thousands of dollars grouped, rounded half away from zero
// from the exact value, so that its digits agree with the JSON's. One rule
// for every size keeps the costs of a list aligned and comparable.
func Money(nano int64) string {
	const unit = 100_000 // 10^(9-4)
	q := nano / unit
	if rem := nano % unit; 2*rem >= unit {
		q++
	} else if 2*rem <= -unit {
		q--
	}
	neg := q < 0
	if neg {
		q = -q
	}
	s := Thousands(q/10_000) + "." + fmt.Sprintf("%04d", q%10_000)
	if neg {
		s = "-" + s
	}
	return s
}

// LineAround returns where the line of s holding byte i starts and ends
// (its '\n' left out): for a message that shows a place in a text.
func LineAround(s string, i int) (start, end int) {
	start = strings.LastIndexByte(s[:i], '\n') + 1
	if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
		return start, i + n
	}
	return start, len(s)
}
