package summary

import "testing"

// The cost of the reports for people: 4 decimals, half away from zero.
func TestCostText(t *testing.T) {
	for _, tt := range []struct {
		nano int64
		want string
	}{
		{0, "0.0000"}, {18_600_000, "0.0186"}, {49_999, "0.0000"}, {50_000, "0.0001"},
		{1_234_567_890, "1.2346"}, {-50_000, "-0.0001"}, {-49_999, "0.0000"}, {12_000_000_000, "12.0000"},
	} {
		if got := CostText(tt.nano); got != tt.want {
			t.Errorf("CostText(%d) = %q, want %q", tt.nano, got, tt.want)
		}
	}
}
