package summary

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
		{" 24h ", time.UTC, now.Add(-24 * time.Hour), false},
		{"", time.UTC, time.Time{}, true},
		{"yesterday", time.UTC, time.Time{}, true},
		{"-24h", time.UTC, time.Time{}, true},
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

func TestParseBy(t *testing.T) {
	tests := []struct {
		in    string
		names []string
		canon string
		err   bool
	}{
		{"run", []string{"run_id"}, "run", false},
		{"agent,tool", []string{"agent_id", "tool"}, "agent,tool", false},
		{" day , hour ", []string{"day", "hour"}, "day,hour", false},
		{"model,kind", []string{"model", "kind"}, "model,kind", false},
		{"payload.model", []string{"payload.model"}, "payload.model", false},
		{"agent,payload.args.path", []string{"agent_id", "payload.args.path"}, "agent,payload.args.path", false},
		{"none", nil, "none", false},
		{"none,run", nil, "", true},
		{"run,run", nil, "", true},
		{"", nil, "", true},
		{"run,", nil, "", true},
		{"payload..x", nil, "", true},
	}
	for _, tt := range tests {
		keys, err := ParseBy(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("ParseBy(%q): err %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if tt.err {
			continue
		}
		var names []string
		for _, k := range keys {
			names = append(names, k.Name)
		}
		if len(names) != len(tt.names) {
			t.Errorf("ParseBy(%q) = %v, want %v", tt.in, names, tt.names)
			continue
		}
		for i := range names {
			if names[i] != tt.names[i] {
				t.Errorf("ParseBy(%q) = %v, want %v", tt.in, names, tt.names)
			}
		}
		if got := ByString(keys); got != tt.canon {
			t.Errorf("ByString(ParseBy(%q)) = %q, want %q", tt.in, got, tt.canon)
		}
	}
}

func TestParseFixed(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"0", 9, 0, true},
		{"0.00016659", 9, 166590, true},
		{"1758800000.12", 6, 1758800000120000, true},
		{"-1.5", 6, -1500000, true},
		{"12", 0, 12, true},
		{"12.9", 0, 12, true},
		{"0.1234567891234", 9, 123456789, true},
		{"1e3", 3, 1000000, true},
		{"2.5E-3", 6, 2500, true},
		{"", 6, 0, false},
		{"-", 6, 0, false},
		{"abc", 6, 0, false},
		{"1.2.3", 6, 0, false},
		{"99999999999999999999", 0, 0, false},
	}
	for _, tt := range tests {
		got, ok := parseFixed([]byte(tt.in), tt.scale)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("parseFixed(%q, %d) = %d, %v; want %d, %v", tt.in, tt.scale, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAppendFixed(t *testing.T) {
	tests := []struct {
		v     int64
		scale int
		want  string
	}{
		{0, 9, "0"}, {166590, 9, "0.00016659"}, {1758800000120000, 6, "1758800000.12"}, {-1500000, 6, "-1.5"}, {7, 0, "7"},
	}
	for _, tt := range tests {
		if got := string(appendFixed(nil, tt.v, tt.scale)); got != tt.want {
			t.Errorf("appendFixed(%d, %d) = %q, want %q", tt.v, tt.scale, got, tt.want)
		}
	}
}
