// Package window is the time window evimport and evsum share: --since,
// --until and --tz, declared once (Range) and read the same way, so that
// `evimport --since X | evsum` and `evsum --since X` keep the same events
// on any machine. Both default to one zone, UTC: a report mailed by cron
// then says the same wherever it is made; --tz Local is the machine's.
package window

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// Range is the window's flags, embedded in a tool's options. ${tzAlso}
// is the tool's word on what else the zone is for (evsum's days).
type Range struct {
	Since string `placeholder:"TIME" help:"Only events at or after TIME: RFC 3339, 2026-11-01, @UNIX, or a duration back from now (24h, 7d)."`
	Until string `placeholder:"TIME" help:"Only events before TIME (the forms of --since)."`
	TZ    string `name:"tz" default:"UTC" placeholder:"ZONE" help:"The time zone of a date without one in --since and --until${tzAlso}: an IANA name (Europe/Berlin), UTC or Local. Default: ${default}."`
}

// Window is the range the flags name; a zero end is open.
type Window struct {
	Since, Until time.Time
	// SinceArg and UntilArg are the flags' texts when they are durations
	// back from now (7d), which a report repeats, and by which states
	// made at different moments are told to have the same window.
	SinceArg, UntilArg string
	Loc                *time.Location // the zone of --tz
	TZName             string         // --tz as given
}

// On reports whether --since or --until was given.
func (w Window) On() bool { return !w.Since.IsZero() || !w.Until.IsZero() }

// Resolve reads the flags, durations counting back from now. Its errors
// are the user's, worded with the flag they are about.
func (f Range) Resolve(now time.Time) (Window, error) {
	loc, err := LoadLocation(f.TZ)
	if err != nil {
		return Window{}, err
	}
	w := Window{Loc: loc, TZName: f.TZ}
	for _, end := range []struct {
		flag, value string
		at          *time.Time
		arg         *string
	}{{"--since", f.Since, &w.Since, &w.SinceArg}, {"--until", f.Until, &w.Until, &w.UntilArg}} {
		if end.value == "" {
			continue
		}
		if *end.at, err = ParseTime(end.value, now, loc); err != nil {
			return Window{}, fmt.Errorf("%s: %v", end.flag, err)
		}
		if IsDuration(end.value) {
			*end.arg = strings.TrimSpace(end.value)
		}
	}
	if !w.Since.IsZero() && !w.Until.IsZero() && !w.Until.After(w.Since) {
		return Window{}, fmt.Errorf("--until %s is not after --since %s", w.Until.Format(time.RFC3339), w.Since.Format(time.RFC3339))
	}
	return w, nil
}

// ParseTime reads a --since/--until value: RFC 3339 (2026-11-01T08:00:00Z),
// a date (2026-11-01, midnight in loc), a date and time without a zone
// (2026-11-01T08:00, in loc), Unix seconds (@1758800000), or a duration
// back from now (90m, 24h, 7d, 2w, 1h30m; or -24h, as journalctl writes it).
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty time")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if strings.HasPrefix(s, "@") {
		if us, ok := jsontext.ParseFixed([]byte(s[1:]), 6); ok {
			return time.UnixMicro(us), nil
		}
	}
	if d, ok := backFromNow(s); ok {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a time (RFC 3339, 2026-11-01, @UNIX) nor a duration back from now (24h, 7d, -1h)", s)
}

// backFromNow reads a duration back from now: 24h, or -24h, as journalctl
// and hl write "a day ago".
func backFromNow(s string) (time.Duration, bool) {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return 0, false
	}
	return parseDuration(s)
}

// parseDuration is time.ParseDuration plus days (d) and weeks (w), which
// the standard library leaves out. Negative durations are refused.
func parseDuration(s string) (time.Duration, bool) {
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, false
		}
		j := i
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != '.' {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		var mult time.Duration
		switch unit {
		case "d":
			mult = 24 * time.Hour
		case "w":
			mult = 7 * 24 * time.Hour
		default:
			d, err := time.ParseDuration(num + unit)
			if err != nil || d < 0 {
				return 0, false
			}
			total += d
			continue
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, false
		}
		total += time.Duration(f * float64(mult))
	}
	return total, true
}

// IsDuration reports whether a --since/--until value is a duration back
// from now (24h, 7d) rather than a time.
func IsDuration(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "@") {
		return false
	}
	if _, err := ParseTime(s, time.Unix(0, 0), time.UTC); err != nil {
		return false
	}
	_, ok := backFromNow(s)
	return ok
}

// LoadLocation reads a --tz value: an IANA zone name (Europe/Berlin), UTC,
// or Local (the system's zone).
func LoadLocation(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("--tz %q: unknown time zone", name)
	}
	return loc, nil
}
