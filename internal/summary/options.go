package summary

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/jsontext"
)

// Key is one grouping dimension of --by.
type Key struct {
	Kind KeyKind
	Path []string // for KeyPath: the field path, split at dots
	Name string   // the member name in the group object
}

// KeyKind says what a Key groups by.
type KeyKind uint8

// The grouping dimensions.
const (
	KeyRun KeyKind = iota
	KeyAgent
	KeyTool
	KeyModel
	KeyKindField
	KeyDay
	KeyHour
	KeyPath
)

var keyWords = map[string]Key{
	"run":   {Kind: KeyRun, Name: "run_id"},
	"agent": {Kind: KeyAgent, Name: "agent_id"},
	"tool":  {Kind: KeyTool, Name: "tool"},
	"model": {Kind: KeyModel, Name: "model"},
	"kind":  {Kind: KeyKindField, Name: "kind"},
	"day":   {Kind: KeyDay, Name: "day"},
	"hour":  {Kind: KeyHour, Name: "hour"},
}

// ParseBy reads a --by value: comma-separated words (run, agent, tool,
// model, kind, day, hour, none) or field paths such as payload.model.
// none alone means one group: only the total is reported.
func ParseBy(s string) ([]Key, error) {
	var keys []Key
	seen := map[string]bool{}
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "":
			return nil, fmt.Errorf("--by %q: empty grouping", s)
		case w == "none":
			if len(strings.Split(s, ",")) > 1 {
				return nil, fmt.Errorf("--by %q: none cannot be combined", s)
			}
			return nil, nil
		}
		k, ok := keyWords[w]
		if !ok {
			parts := strings.Split(w, ".")
			for _, p := range parts {
				if p == "" {
					return nil, fmt.Errorf("--by %q: %q is neither a grouping nor a field path", s, w)
				}
			}
			k = Key{Kind: KeyPath, Path: parts, Name: w}
		}
		if seen[k.Name] {
			return nil, fmt.Errorf("--by %q: %s given twice", s, k.Name)
		}
		seen[k.Name] = true
		keys = append(keys, k)
	}
	return keys, nil
}

// ByString is the canonical spelling of keys, as ParseBy reads it.
func ByString(keys []Key) string {
	if len(keys) == 0 {
		return "none"
	}
	var ws []string
	for _, k := range keys {
		w := k.Name
		for word, kw := range keyWords {
			if kw.Kind == k.Kind && k.Kind != KeyPath {
				w = word
			}
		}
		ws = append(ws, w)
	}
	return strings.Join(ws, ",")
}

// ParseTime reads a --since/--until value: RFC 3339 (2026-11-01T08:00:00Z),
// a date (2026-11-01, midnight in loc), a date and time without a zone
// (2026-11-01T08:00, in loc), Unix seconds (@1758800000), or a duration
// back from now (90m, 24h, 7d, 2w, 1h30m).
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
	if d, ok := parseDuration(s); ok {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a time (RFC 3339, 2026-11-01, @UNIX) nor a duration (24h, 7d)", s)
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

// Options say how events are grouped and which are counted.
type Options struct {
	By       []Key
	Loc      *time.Location // for day and hour; nil is UTC
	Since    time.Time      // zero: no lower bound (inclusive)
	Until    time.Time      // zero: no upper bound (exclusive)
	TZName   string         // the --tz spelling, kept in partial states
	WindowOn bool           // set when Since or Until is given
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
