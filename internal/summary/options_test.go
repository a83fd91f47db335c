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
		{"agnet", nil, "", true},
		{"week,month", []string{"week", "month"}, "week,month", false},
		{"agent,week", []string{"agent_id", "week"}, "agent,week", false},
		{"month,month", nil, "", true},
		{"fortnight", nil, "", true},
		{"runs", nil, "", true},
		{"agent,sauce", nil, "", true},
		{"source,session", []string{"source", "session"}, "source,session", false},
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

// A word that is neither a grouping nor a path with a dot is refused, with
// the list of groupings and the nearest one when it is a likely typo.
func TestParseByDidYouMean(t *testing.T) {
	list := "one of run, agent, role, tool, model, kind, day, hour, week, month, session, project, source, host, none, or a field path with a dot (payload.model)"
	for _, tt := range []struct{ in, want string }{
		{"agnet", `--by "agnet": "agnet" is not a grouping (did you mean agent?): ` + list},
		{"runs", `--by "runs": "runs" is not a grouping (did you mean run?): ` + list},
		{"Day", `--by "Day": "Day" is not a grouping (did you mean day?): ` + list},
		{"agent,toll", `--by "agent,toll": "toll" is not a grouping (did you mean tool?): ` + list},
		{"nnoe", `--by "nnoe": "nnoe" is not a grouping (did you mean none?): ` + list},
		{"weak", `--by "weak": "weak" is not a grouping (did you mean week?): ` + list},
		{"months", `--by "months": "months" is not a grouping (did you mean month?): ` + list},
		{"year", `--by "year": "year" is not a grouping: ` + list},
		{"x", `--by "x": "x" is not a grouping: ` + list},
	} {
		_, err := ParseBy(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseBy(%q): %v\nwant %s", tt.in, err, tt.want)
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

// Groupings by what names runs report their runs' outcomes and wall
// times; those by what names events report none. session, project and
// source are the run's (evimport writes them on every event of a run);
// a field path, even one ending in session, names events.
func TestNamesEvents(t *testing.T) {
	for by, want := range map[string]bool{
		"run": false, "agent": false, "day": false, "week": false, "session": false, "project": false, "source": false,
		"tool": true, "kind": true, "model": true, "role": true, "payload.session": true, "payload.source": true,
	} {
		keys, err := ParseBy(by)
		if err != nil {
			t.Fatal(err)
		}
		if got := keys[0].NamesEvents(); got != want {
			t.Errorf("--by %s: NamesEvents() = %v, want %v", by, got, want)
		}
	}
}
