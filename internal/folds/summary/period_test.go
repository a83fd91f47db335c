package summary

import (
	"testing"
	"time"
)

// ISO 8601 weeks run Monday to Sunday and belong to the year that holds
// their Thursday: 1 January may be in week 53 or 52 of the year before,
// or in week 1; 29 to 31 December may be in week 1 of the next year.
func TestPeriodOfWeek(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at       string // RFC 3339
		loc      *time.Location
		key      string
		from, to string // in loc, 2006-01-02 15:04
	}{
		{"2026-01-01T12:00:00Z", time.UTC, "2026-W01", "2025-12-29 00:00", "2026-01-05 00:00"}, // a Thursday
		{"2027-01-01T12:00:00Z", time.UTC, "2026-W53", "2026-12-28 00:00", "2027-01-04 00:00"}, // a Friday: 2026 has 53 weeks
		{"2021-01-01T12:00:00Z", time.UTC, "2020-W53", "2020-12-28 00:00", "2021-01-04 00:00"},
		{"2022-01-01T12:00:00Z", time.UTC, "2021-W52", "2021-12-27 00:00", "2022-01-03 00:00"}, // a Saturday
		{"2023-01-01T12:00:00Z", time.UTC, "2022-W52", "2022-12-26 00:00", "2023-01-02 00:00"}, // a Sunday
		{"2024-01-01T00:00:00Z", time.UTC, "2024-W01", "2024-01-01 00:00", "2024-01-08 00:00"}, // a Monday
		{"2024-12-30T08:00:00Z", time.UTC, "2025-W01", "2024-12-30 00:00", "2025-01-06 00:00"}, // December in week 1
		{"2026-11-08T23:59:59Z", time.UTC, "2026-W45", "2026-11-02 00:00", "2026-11-09 00:00"}, // the last second of a Sunday
		{"2026-11-09T00:00:00Z", time.UTC, "2026-W46", "2026-11-09 00:00", "2026-11-16 00:00"},
		// the zone decides: Sunday 23:30 UTC is Monday in Berlin and Tokyo
		{"2026-11-08T23:30:00Z", berlin, "2026-W46", "2026-11-09 00:00", "2026-11-16 00:00"},
		{"2026-11-08T23:30:00Z", tokyo, "2026-W46", "2026-11-09 00:00", "2026-11-16 00:00"},
		// a week across the change from summer time: 167 hours
		{"2026-10-27T12:00:00Z", berlin, "2026-W44", "2026-10-26 00:00", "2026-11-02 00:00"},
		{"2026-10-25T12:00:00Z", berlin, "2026-W43", "2026-10-19 00:00", "2026-10-26 00:00"},
	} {
		at, err := time.Parse(time.RFC3339, c.at)
		if err != nil {
			t.Fatal(err)
		}
		from, to, key := periodOf(KeyWeek, at.In(c.loc))
		const layout = "2006-01-02 15:04"
		if key != c.key || from.Format(layout) != c.from || to.Format(layout) != c.to {
			t.Errorf("week of %s in %s: %s [%s, %s), want %s [%s, %s)", c.at, c.loc, key, from.Format(layout), to.Format(layout), c.key, c.from, c.to)
		}
		if at.Before(from) || !at.Before(to) {
			t.Errorf("week of %s in %s: [%s, %s) does not hold it", c.at, c.loc, from, to)
		}
	}
}

func TestPeriodOfMonth(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at       string
		loc      *time.Location
		key      string
		from, to string
	}{
		{"2026-11-30T23:59:59Z", time.UTC, "2026-11", "2026-11-01 00:00 +0000", "2026-12-01 00:00 +0000"},
		{"2026-12-31T12:00:00Z", time.UTC, "2026-12", "2026-12-01 00:00 +0000", "2027-01-01 00:00 +0000"},
		// 1 December 02:00 UTC is still November in New York, whose
		// November holds the change from summer time
		{"2026-12-01T02:00:00Z", ny, "2026-11", "2026-11-01 00:00 -0400", "2026-12-01 00:00 -0500"},
		{"2028-02-29T12:00:00Z", time.UTC, "2028-02", "2028-02-01 00:00 +0000", "2028-03-01 00:00 +0000"},
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		from, to, key := periodOf(KeyMonth, at.In(c.loc))
		const layout = "2006-01-02 15:04 -0700"
		if key != c.key || from.Format(layout) != c.from || to.Format(layout) != c.to {
			t.Errorf("month of %s in %s: %s [%s, %s), want %s [%s, %s)", c.at, c.loc, key, from.Format(layout), to.Format(layout), c.key, c.from, c.to)
		}
	}
}

// The cached period key is the one computed afresh, for every event of a
// stream that crosses weeks and months, in a zone with summer time.
func TestPeriodCache(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, kind := range []KeyKind{KeyDay, KeyHour, KeyWeek, KeyMonth} {
		var d dayCache
		start := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC).UnixMicro()
		for ts := start; ts < start+40*24*3600*1e6; ts += 1717 * 1e6 {
			if ts < d.from || ts >= d.to || d.key == "" {
				d.set(kind, ts, berlin)
			}
			_, _, key := periodOf(kind, time.UnixMicro(ts).In(berlin))
			if d.key != `"`+key+`"` {
				t.Fatalf("kind %d at %s: cached %s, want %q", kind, time.UnixMicro(ts).In(berlin), d.key, key)
			}
		}
	}
}

// The period after each kind's key, across a month's, a year's and a
// week-year's end, and across a change to summer time (hours).
func TestNextPeriod(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		kind      KeyKind
		key, want string
		loc       *time.Location
	}{
		{KeyDay, "2026-10-31", "2026-11-01", time.UTC},
		{KeyDay, "2026-12-31", "2027-01-01", time.UTC},
		{KeyHour, "2026-11-01T23:00", "2026-11-02T00:00", time.UTC},
		{KeyHour, "2026-03-29T01:00", "2026-03-29T03:00", berlin},
		{KeyWeek, "2026-W52", "2026-W53", time.UTC},
		{KeyWeek, "2026-W53", "2027-W01", time.UTC},
		{KeyWeek, "2027-W01", "2027-W02", time.UTC},
		{KeyMonth, "2026-12", "2027-01", time.UTC},
	} {
		if got, ok := NextPeriod(c.kind, c.key, c.loc); !ok || got != c.want {
			t.Errorf("after %s: %q %v, want %q", c.key, got, ok, c.want)
		}
	}
	if _, ok := NextPeriod(KeyDay, "not a day", time.UTC); ok {
		t.Error("a key that is no day has a next day")
	}
}
