package window

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	tests := []struct {
		in   string
		loc  *time.Location
		want time.Time
		err  bool
	}{
		{"2026-11-01T08:00:00Z", time.UTC, time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), false},
		{"2026-11-01T08:00:00.5+01:00", time.UTC, time.Date(2026, 11, 1, 7, 0, 0, 5e8, time.UTC), false},
		{"2026-11-01", time.UTC, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-11-01", berlin, time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC), false},
		{"2026-11-01T08:30", berlin, time.Date(2026, 11, 1, 7, 30, 0, 0, time.UTC), false},
		{"2026-11-01 08:30:15", time.UTC, time.Date(2026, 11, 1, 8, 30, 15, 0, time.UTC), false},
		{"@1793524860", time.UTC, time.Date(2026, 11, 1, 9, 21, 0, 0, time.UTC), false},
		{"@1793524860.25", time.UTC, time.Date(2026, 11, 1, 9, 21, 0, 25e7, time.UTC), false},
		{"24h", time.UTC, now.Add(-24 * time.Hour), false},
		{"90m", time.UTC, now.Add(-90 * time.Minute), false},
		{"7d", time.UTC, now.Add(-7 * 24 * time.Hour), false},
		{"2w", time.UTC, now.Add(-14 * 24 * time.Hour), false},
		{"1d12h", time.UTC, now.Add(-36 * time.Hour), false},
		{"1.5d", time.UTC, now.Add(-36 * time.Hour), false},
		{"1d0h", time.UTC, now.Add(-24 * time.Hour), false},
		{"1d9h", time.UTC, now.Add(-33 * time.Hour), false},
		{"0s", time.UTC, now, false},
		{" 24h ", time.UTC, now.Add(-24 * time.Hour), false},
		{"", time.UTC, time.Time{}, true},
		{"yesterday", time.UTC, time.Time{}, true},
		{"-24h", time.UTC, now.Add(-24 * time.Hour), false}, // as journalctl writes it
		{"-1h30m", time.UTC, now.Add(-90 * time.Minute), false},
		{"--1h", time.UTC, time.Time{}, true},
		{"-", time.UTC, time.Time{}, true},
		{"24", time.UTC, time.Time{}, true},
		{"7x", time.UTC, time.Time{}, true},
		{"2026-13-01", time.UTC, time.Time{}, true},
		{"@", time.UTC, time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in, now, tt.loc)
		if (err != nil) != tt.err {
			t.Errorf("ParseTime(%q): err %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if !tt.err && !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// --tz: UTC for nothing or "UTC", else the zone named; an unknown one is
// refused.
func TestLoadLocation(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "UTC"}, {"UTC", "UTC"}, {"Europe/Berlin", "Europe/Berlin"}, {"Asia/Kolkata", "Asia/Kolkata"},
	} {
		loc, err := LoadLocation(tt.in)
		if err != nil || loc.String() != tt.want {
			t.Errorf("LoadLocation(%q) = %v, %v; want %s", tt.in, loc, err, tt.want)
		}
	}
	if _, err := LoadLocation("Mars/Olympus"); err == nil {
		t.Error("an unknown zone was accepted")
	}
}
