// Package textfmt writes counts and durations for people to read: "3
// tool calls", "12,345", "1m05s", and finds the word a typo is most likely
// of (NearestWord). It imports nothing of the project's, so that every package,
// pkg/jsonl's included, can say a number the same way.
package textfmt

import (
	"cmp"
	"fmt"
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
