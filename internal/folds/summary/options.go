package summary

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/folds/record"
)

// Key is one grouping dimension of --by.
type Key struct {
	Kind KeyKind
	Path []string // for KeyPath: the field path, split at dots
	Name string   // the member name in the group object
	// OfRun: every event of a run carries the same value (the session,
	// project and source evimport writes), so the groups are groups of
	// runs, which report their runs' outcomes and wall times as a day's.
	OfRun bool
}

// NamesEvents reports whether k's groups name events rather than runs or
// agents: by kind, tool, model, role or a field path, a run's events fall
// in several groups, where its outcome and wall time would only repeat,
// so a grouping with such a key reports none.
func (k Key) NamesEvents() bool {
	switch k.Kind {
	case KeyKindField, KeyTool, KeyModel, KeyRole:
		return true
	case KeyPath:
		return !k.OfRun
	}
	return false
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
	KeyWeek  // ISO 8601 week: 2026-W45
	KeyMonth // 2026-11
	// KeyRole is the agent's role: its agent_id up to the first colon, the
	// whole id when it has none. evimport names a subagent ROLE:ID (its
	// type and its own id), so that by agent each subagent is a row and
	// by role each type.
	KeyRole
)

// Period reports whether k groups by time: day, hour, week or month. Its
// values are ISO 8601 texts that sort as the periods do.
func (k KeyKind) Period() bool {
	switch k {
	case KeyDay, KeyHour, KeyWeek, KeyMonth:
		return true
	}
	return false
}

// groupings are the grouping words of --by and their keys, in the order
// messages list them.
var groupings = []struct {
	word string
	key  Key
}{
	{"run", Key{Kind: KeyRun, Name: "run_id"}},
	{"agent", Key{Kind: KeyAgent, Name: "agent_id"}},
	{"role", Key{Kind: KeyRole, Name: "role"}},
	{"tool", Key{Kind: KeyTool, Name: "tool"}},
	{"model", Key{Kind: KeyModel, Name: "model"}},
	{"kind", Key{Kind: KeyKindField, Name: "kind"}},
	{"day", Key{Kind: KeyDay, Name: "day"}},
	{"hour", Key{Kind: KeyHour, Name: "hour"}},
	{"week", Key{Kind: KeyWeek, Name: "week"}},
	{"month", Key{Kind: KeyMonth, Name: "month"}},
	// the members evimport writes on every event: the agent's session,
	// its working directory and which agent wrote the log
	{"session", Key{Kind: KeyPath, Path: []string{"session"}, Name: "session", OfRun: true}},
	{"project", Key{Kind: KeyPath, Path: []string{"project"}, Name: "project", OfRun: true}},
	{"source", Key{Kind: KeyPath, Path: []string{"source"}, Name: "source", OfRun: true}},
	// the machine the events came from (evimport --host, --archive)
	{"host", Key{Kind: KeyPath, Path: []string{"host"}, Name: "host", OfRun: true}},
}

// keyWords are the groupings by word; byWords their words, in order.
var keyWords, byWords = func() (map[string]Key, []string) {
	m := map[string]Key{}
	var words []string
	for _, g := range groupings {
		m[g.word] = g.key
		words = append(words, g.word)
	}
	return m, words
}()

// ByWords are the words --by takes, in the order its messages list them,
// none last (besides them it takes field paths: payload.model).
func ByWords() []string { return append(byWords[:len(byWords):len(byWords)], "none") }

// ParseBy reads a --by value: comma-separated words (those of groupings,
// or none) or field paths such as payload.model. A path has a dot: any
// other word is refused, with the nearest grouping.
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
		if !ok && !strings.Contains(w, ".") {
			// A word that is no grouping is a typo far more often than
			// a top-level field: taken as a path it would put every
			// event in one group.
			return nil, fmt.Errorf("--by %q: %q is not a grouping%s: one of %s, none, or a field path with a dot (payload.model)",
				s, w, record.DidYouMean(w, ByWords()), strings.Join(byWords, ", "))
		}
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

// Options say how events are grouped and which are counted.
type Options struct {
	By []Key
	// Breakdown is a key each group is broken down by (model): the
	// state groups by By and it, and the report gives each group's
	// record the records of its parts (--breakdown).
	Breakdown []Key
	Loc       *time.Location // for day, hour, week and month; nil is UTC
	Since     time.Time      // zero: no lower bound (inclusive)
	Until     time.Time      // zero: no upper bound (exclusive)
	TZName    string         // the --tz spelling, kept in partial states
	WindowOn  bool           // set when Since or Until is given
	// SinceArg and UntilArg are the --since and --until texts when they
	// are durations back from now (7d): states made by several processes
	// with the same duration have the same window, though their times
	// differ by the moments they started.
	SinceArg, UntilArg string
	// CallNotes has the state keep the events of each zot call id that
	// has more than one (callNote), for a merge in another process to
	// pair them as one pass does: a state --partial writes.
	CallNotes bool
}

// NoEvents says in words that a report has no events, and in which
// window (--since, --until) they were looked for, in the report's zone:
// "no events since 2026-11-01 00:00 UTC", for the views for people,
// where an empty table would say nothing.
func (o Options) NoEvents() string {
	loc := cmp.Or(o.Loc, time.UTC)
	zone := cmp.Or(o.TZName, loc.String())
	at := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04") + " " + zone }
	s := "no events"
	if !o.Since.IsZero() {
		s += " since " + at(o.Since)
	}
	if !o.Until.IsZero() {
		s += " before " + at(o.Until)
	}
	return s
}
