package textfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567",
		-1: "-1", -999: "-999", -1000: "-1,000", -123456: "-123,456",
		math.MinInt64: "-9,223,372,036,854,775,808",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n           int64
		plain, many string
	}{
		{0, "0 turns", "0 turns"},
		{1, "1 turn", "1 turn"},
		{2, "2 turns", "2 turns"},
		{-1, "-1 turns", "-1 turns"},
		{12345, "12345 turns", "12,345 turns"},
	} {
		if got := Plural(c.n, "turn"); got != c.plain {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.plain)
		}
		if got := PluralThousands(c.n, "turn"); got != c.many {
			t.Errorf("PluralThousands(%d) = %q, want %q", c.n, got, c.many)
		}
	}
}

func TestSeconds(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0s", 59: "59s", 60: "1m00s", 65: "1m05s", 3599: "59m59s",
		3600: "1h00m", 3659: "1h00m", 7380: "2h03m", 360000: "100h00m",
	} {
		if got := Seconds(n); got != want {
			t.Errorf("Seconds(%d) = %q, want %q", n, got, want)
		}
	}
}

// Tally lists by name, or most first with ties by name, and totals.
func TestTally(t *testing.T) {
	counts := map[string]int{"b": 1, "c": 3, "a": 1}
	if list, total := Tally(counts, false, nil); list != "a (1), b (1), c (3)" || total != 5 {
		t.Errorf("by name: %q, %d", list, total)
	}
	quote := func(s string) string { return `"` + s + `"` }
	if list, _ := Tally(counts, true, quote); list != `"c" (3), "a" (1), "b" (1)` {
		t.Errorf("most first: %q", list)
	}
	if list, total := Tally(nil, true, nil); list != "" || total != 0 {
		t.Errorf("none: %q, %d", list, total)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"run", "run", 0}, {"runs", "run", 1}, {"agnet", "agent", 1},
		{"hour", "our", 1}, {"tol", "tool", 1}, {"month", "model", 3}, {"", "day", 3}, {"ab", "ba", 1},
	} {
		if d := editDistance(tt.a, tt.b); d != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}
