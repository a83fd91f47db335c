// Package textfmt writes counts and durations for people to read: "3
// tool calls", "12,345", "1m05s". It imports nothing of the project's, so that every package,
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
