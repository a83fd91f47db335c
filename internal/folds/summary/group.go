package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/event"
	"github.com/evtools/evtools/pkg/jsonscan"
)

const keySep = '\x1f'

// group finds or makes the group of the current event.
func (s *State) group(r *run) *group {
	var b []byte
	if s.byRunOnly && plainString(s.ev.RunID) {
		// the key is the raw run_id as it is (see appendCanon): no
		// copy of it, which may be huge
		b = s.ev.RunID
	} else {
		b = s.keyBuf[:0]
		for i, k := range s.keys {
			if i > 0 {
				b = append(b, keySep)
			}
			b = s.appendKey(b, i, k, r)
		}
		s.keyBuf = b
	}
	if g := s.lastGroup; g != nil && g.key == string(b) {
		return g
	}
	if g := s.groups[string(b)]; g != nil {
		s.lastGroup = g
		return g
	}
	if _, ok := s.coldGroups[string(b)]; ok {
		s.lastGroup = s.getGroup(string(b))
		return s.lastGroup
	}
	var key string
	if len(b) == len(r.id)+2 && len(s.runKey) == len(b) && s.runKey == string(b) {
		key = s.runKey // the run's own quoted id: one copy for both
	} else {
		key = string(b)
	}
	g := s.newGroup(key)
	s.groups[g.key] = g
	s.lastGroup = g
	return g
}

// plainString says whether v is a JSON string that appendCanon keeps as
// it is: no escapes, controls or bytes past ASCII.
func plainString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c < 0x20 || c == 0x7f || c >= 0x80 {
			return false
		}
	}
	return true
}

// values splits the group's key into its values, raw JSON each.
func (g *group) values(n int) []string {
	if n == 0 {
		return nil
	}
	return strings.Split(g.key, string(rune(keySep)))
}

// appendKey appends the canonical raw JSON of one key's value.
func (s *State) appendKey(b []byte, i int, k Key, r *run) []byte {
	e := &s.ev
	switch k.Kind {
	case KeyRun:
		return appendCanon(b, e.RunID)
	case KeyAgent:
		return appendCanon(b, e.AgentID)
	case KeyRole:
		return appendRole(b, e.AgentID)
	case KeyKindField:
		return appendCanon(b, e.Kind)
	case KeyTool:
		return s.appendTool(b, r)
	case KeyModel:
		v, ok := e.Payload, e.Payload != nil
		if ok {
			v, ok = jsonscan.Lookup(v, "model")
		}
		if ok && jsonscan.KindOf(v) == jsonscan.Object {
			v, ok = jsonscan.Lookup(v, "model")
		}
		if ok && jsonscan.KindOf(v) == jsonscan.String {
			return appendCanon(b, v)
		}
		return append(b, "null"...)
	case KeyDay, KeyHour, KeyWeek, KeyMonth:
		if !e.hasTS {
			return append(b, "null"...)
		}
		for len(s.days) <= i {
			s.days = append(s.days, dayCache{})
		}
		d := &s.days[i]
		if e.ts < d.from || e.ts >= d.to || d.key == "" {
			d.set(k.Kind, e.ts, s.opt.Loc)
		}
		return append(b, d.key...)
	case KeyPath:
		v, ok := jsonscan.Lookup(e.Line, k.Path...)
		if !ok {
			return append(b, "null"...)
		}
		return appendCanon(b, v)
	}
	return b
}

// appendRole appends the role of the agent id (raw JSON): the part of a
// string before its first ':', else the id itself.
func appendRole(b, agentID []byte) []byte {
	if jsonscan.KindOf(agentID) != jsonscan.String {
		return appendCanon(b, agentID)
	}
	if i := bytes.IndexByte(agentID, ':'); i >= 0 && plainString(agentID) {
		return append(append(b, agentID[:i]...), '"')
	}
	id, ok := jsonscan.Unquote(nil, agentID)
	if i := bytes.IndexByte(id, ':'); ok && i >= 0 {
		return jsontext.AppendString(b, string(id[:i]))
	}
	return appendCanon(b, agentID)
}

// appendTool appends the tool the event is about: its own name for it,
// else (for the updates and the end of a call known by its id) the name
// its start gave.
func (s *State) appendTool(b []byte, r *run) []byte {
	e := &s.ev
	switch e.Meaning {
	case event.ToolStart, event.ToolUpdate, event.ToolEnd, event.Guardrail:
	default:
		return append(b, "null"...)
	}
	if v := e.Field(event.Name); jsonscan.KindOf(v) == jsonscan.String {
		return appendCanon(b, v)
	}
	if e.Meaning == event.ToolUpdate || e.Meaning == event.ToolEnd {
		if id, ok := e.FieldString(event.ID, &s.idBuf); ok {
			if c := r.glassOrEmpty().calls[string(id)]; c != nil && c.started {
				return jsontext.AppendString(b, c.name)
			}
		}
	}
	return append(b, "null"...)
}

// dayCache holds the period key (day, hour, week or month) of the last
// event, valid for ts in [from, to), so that consecutive events cost no
// time formatting.
type dayCache struct {
	from, to int64
	key      string
}

func (d *dayCache) set(kind KeyKind, ts int64, loc *time.Location) {
	from, to, key := periodOf(kind, time.UnixMicro(ts).In(loc))
	d.from, d.to = from.UnixMicro(), to.UnixMicro()
	d.key = `"` + key + `"`
}

// periodOf is the period of kind that t (in its zone) falls in: its start,
// the next one's, and its key: 2026-11-01 (day), 2026-11-01T09:00 (hour),
// 2026-W44 (ISO 8601 week, Monday to Sunday, numbered in the year that
// holds its Thursday), 2026-11 (month).
func periodOf(kind KeyKind, t time.Time) (from, to time.Time, key string) {
	loc := t.Location()
	switch kind {
	case KeyHour:
		from = t.Truncate(time.Hour)
		if _, off := t.Zone(); off%3600 != 0 {
			from = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc)
		}
		return from, from.Add(time.Hour), from.Format("2006-01-02T15:00")
	case KeyWeek:
		// back to Monday: Weekday is 0 on Sunday
		back := (int(t.Weekday()) + 6) % 7
		from = time.Date(t.Year(), t.Month(), t.Day()-back, 0, 0, 0, 0, loc)
		y, w := t.ISOWeek()
		return from, time.Date(from.Year(), from.Month(), from.Day()+7, 0, 0, 0, 0, loc), fmt.Sprintf("%04d-W%02d", y, w)
	case KeyMonth:
		from = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
		return from, time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc), from.Format("2006-01")
	}
	from = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	return from, from.AddDate(0, 0, 1), from.Format("2006-01-02")
}

// appendCanon appends a raw value so that equal values give equal bytes:
// strings without escapes and scalars as they are, other strings quoted
// again by jsontext.AppendString (so the key separator \x1f, a control
// character, is always escaped and never in a key's value, and invalid
// UTF-8 is U+FFFD in one pass and after a merge alike), anything else
// re-encoded.
func appendCanon(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch jsonscan.KindOf(v) {
	case jsonscan.String:
		if plainString(v) {
			return append(b, v...)
		}
		u, ok := jsonscan.Unquote(nil, v)
		if !ok {
			return append(b, "null"...)
		}
		return jsontext.AppendString(b, string(u))
	case jsonscan.Null, jsonscan.True, jsonscan.False, jsonscan.Number:
		return append(b, v...)
	}
	var x any
	if json.Unmarshal(v, &x) != nil {
		return append(b, "null"...)
	}
	out, _ := json.Marshal(x)
	return append(b, out...)
}

// NextPeriod is the key of the period of kind after the one keyed key (as
// periodOf writes it: 2026-11-01, 2026-11-01T09:00, 2026-W44, 2026-11), in
// loc; false when key is no such key.
func NextPeriod(kind KeyKind, key string, loc *time.Location) (string, bool) {
	var t time.Time
	var err error
	switch kind {
	case KeyDay:
		t, err = time.ParseInLocation("2006-01-02", key, loc)
	case KeyHour:
		t, err = time.ParseInLocation("2006-01-02T15:04", key, loc)
	case KeyMonth:
		t, err = time.ParseInLocation("2006-01", key, loc)
	case KeyWeek:
		var y, w int
		if _, err = fmt.Sscanf(key, "%04d-W%02d", &y, &w); err == nil {
			// 4 January is in week 1; its week's Monday starts week 1
			jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, loc)
			t = jan4.AddDate(0, 0, 7*(w-1)-(int(jan4.Weekday())+6)%7)
		}
	default:
		return "", false
	}
	if err != nil {
		return "", false
	}
	_, to, _ := periodOf(kind, t)
	_, _, next := periodOf(kind, to)
	return next, true
}
