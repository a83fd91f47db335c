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

func TestCompact(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 999: "999", 1000: "1.0k", 2304: "2.3k", 9949: "9.9k", 9950: "10k", 34120: "34k",
		627_400: "627k", 999_499: "999k", 999_500: "1.0M", 1_234_567: "1.2M", 12_345_678: "12M",
		3_400_000_000: "3.4B", 5e15: "5000T", -2304: "-2.3k", math.MinInt64: "-9223372T",
	} {
		if got := Compact(n); got != want {
			t.Errorf("Compact(%d) = %q, want %q", n, got, want)
		}
	}
}

// A duration takes the step its size chooses; written to a coarser step
// (a column's largest), it keeps that precision.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		us   int64
		step Step
		want string
	}{
		{0, StepTenthMilli, "0.0ms"},
		{3_240, StepTenthMilli, "3.2ms"},
		{9_960, StepMilli, "10ms"},
		{850_400, StepMilli, "850ms"},
		{999_600, StepCenti, "1.00s"},
		{2_885_000, StepCenti, "2.89s"},
		{9_994_000, StepCenti, "9.99s"},
		{9_996_000, StepDeci, "10.0s"},
		{34_620_000, StepDeci, "34.6s"},
		{59_960_000, StepSecond, "1m00s"},
		{112_350_000, StepSecond, "1m52s"},
		{3_599_400_000, StepSecond, "59m59s"},
		{3_599_600_000, StepMinute, "1h00m"},
		{7_500_000_000, StepMinute, "2h05m"},
		{86_399_000_000, StepHour, "1d00h"},
		{100 * 3600_000_000, StepHour, "4d04h"},
		{-2_885_000, StepCenti, "-2.89s"},
	} {
		if got := StepOf(c.us); got != c.step {
			t.Errorf("StepOf(%d) = %d, want %d", c.us, got, c.step)
		}
		if got := Duration(c.us, c.step); got != c.want {
			t.Errorf("Duration(%d, %d) = %q, want %q", c.us, c.step, got, c.want)
		}
	}
	// in a column whose largest is 34.6s, at its step
	for us, want := range map[int64]string{850_000: "0.9s", 2_885_000: "2.9s", 0: "0.0s"} {
		if got := Duration(us, StepDeci); got != want {
			t.Errorf("Duration(%d, StepDeci) = %q, want %q", us, got, want)
		}
	}
	for us, want := range map[int64]string{35_000_000: "35s", 1_400_000: "1s"} {
		if got := Duration(us, StepSecond); got != want {
			t.Errorf("Duration(%d, StepSecond) = %q, want %q", us, got, want)
		}
	}
	if got := Duration(2_100_000_000, StepMinute); got != "35m" {
		t.Errorf("35 minutes at StepMinute: %q", got)
	}
}

func TestLineAround(t *testing.T) {
	for _, c := range []struct {
		s          string
		i          int
		start, end int
	}{
		{"one line", 3, 0, 8},
		{"a\nbc\nd", 3, 2, 4},
		{"a\nbc\nd", 0, 0, 1},
		{"a\nbc\nd", 5, 5, 6},
		{"a\n", 2, 2, 2},
	} {
		if start, end := LineAround(c.s, c.i); start != c.start || end != c.end {
			t.Errorf("LineAround(%q, %d) = %d, %d; want %d, %d", c.s, c.i, start, end, c.start, c.end)
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, c := range []struct {
		x        float64
		decimals int
		want     string
	}{
		{1234.5, 2, "1,234.50"},
		{-1234567.125, 0, "-1,234,567"},
		{-0.001, 2, "0.00"}, // no sign on a value that rounds to zero
		{-0.5, 2, "-0.50"},
		{999.999, 2, "1,000.00"},
	} {
		if got := Decimal(c.x, c.decimals); got != c.want {
			t.Errorf("Decimal(%v, %d) = %q, want %q", c.x, c.decimals, got, c.want)
		}
	}
}
