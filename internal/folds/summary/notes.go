package summary

import "slices"

// A callNote is one event of a zot tool call id, as a state that another
// process merges (a --partial state) keeps it when the id has more than
// one event in its input. One pass pairs the first of those events with
// a call of that id still open in the input before (a start, or an end
// seen first), where the state alone paired it with its own next event:
// the merge replays the events on the open call to pair them as one pass
// does (mergeCallNotes). A log's ids are unique, so a state keeps none.
type callNote struct {
	kind   noteKind
	failed bool   // an end's is_error
	name   string // a start's tool
	group  string // key of the event's group
}

type noteKind byte

const (
	noteStart    noteKind = iota // tool_execution_start: counts the call
	noteRestated                 // tool_call: the call again, counted if no start comes
	noteEnd
)

// callNotes are a state's notes: by run, by call id, the id's events in
// input order.
type callNotes map[string]map[string][]callNote

// noteCall notes in s, which keeps notes, an event of call id of run r,
// whose entry before the event is c: an id's first event is not noted,
// since the entry it leaves says it (entryNotes), but once a second comes
// both are, and every one after. The callers test Options.CallNotes, so
// that a state that keeps none pays no call.
func (s *State) noteCall(r *run, id []byte, c *call, kind noteKind, g *group, failed bool) {
	if _, ok := s.notes[r.id][string(id)]; !ok && c == nil {
		return
	}
	n := callNote{kind: kind, failed: failed, group: g.key}
	if kind != noteEnd {
		n.name = s.toolName()
	}
	s.addNotes(r.id, string(id), c, []callNote{n})
}

// addNotes appends ns to the notes of call id of run, which start with
// what entry c says when there are none yet (one event left c).
func (s *State) addNotes(run, id string, c *call, ns []callNote) {
	if s.notes == nil {
		s.notes = callNotes{}
	}
	byID := s.notes[run]
	if byID == nil {
		byID = map[string][]callNote{}
		s.notes[run] = byID
	}
	prev, ok := byID[id]
	if !ok && c != nil {
		prev = entryNotes(c)
	}
	byID[id] = append(prev[:len(prev):len(prev)], ns...)
}

// entryNotes is the event that leaves entry c where there was none: a
// call counted, one restated only, an end seen first. An entry both
// restated and ended takes two (an end first keeps its group).
func entryNotes(c *call) []callNote {
	end := callNote{kind: noteEnd, failed: c.failed, group: c.endGroup}
	switch {
	case !c.started:
		return []callNote{end}
	case c.counted():
		return []callNote{{kind: noteStart, name: c.name, group: c.group}}
	case c.ended:
		return []callNote{end, {kind: noteRestated, name: c.name, group: c.group}}
	}
	return []callNote{{kind: noteRestated, name: c.name, group: c.group}}
}

// pairNotes replays ns, the events of a call id, on c, the id's entry
// before them (nil: none), pairing them as callStart and callEnd do: it
// returns the entry after them (nil: none) and calls count for each call
// and failure they count. c is not changed.
func pairNotes(c *call, ns []callNote, count func(group, name string, failed bool)) *call {
	var cur call
	has := c != nil
	if has {
		cur = *c
	}
	for _, n := range ns {
		switch {
		case n.kind == noteEnd && !has:
			cur, has = call{ended: true, failed: n.failed, endGroup: n.group}, true
		case n.kind == noteEnd && cur.ended:
			// a second end: nothing more to count
		case n.kind == noteEnd && cur.deferred:
			cur.ended, cur.failed = true, n.failed
		case n.kind == noteEnd:
			if n.failed {
				count(cur.group, cur.name, true)
			}
			has = false
		case has && (cur.counted() || cur.deferred && n.kind == noteRestated):
			// seen starting already
		case n.kind == noteRestated:
			if !has {
				cur, has = call{}, true
			}
			cur.name, cur.group, cur.started, cur.deferred = n.name, n.group, true, true
		default:
			count(n.group, n.name, false)
			if has && cur.ended {
				if cur.failed {
					count(n.group, n.name, true)
				}
				has = false
				break
			}
			cur, has = call{name: n.name, group: n.group, started: true}, true
		}
	}
	if !has {
		return nil
	}
	return &cur
}

// mergeCallNotes pairs the calls of o, the same run as r in a later part,
// whose ids have notes ns, with r's calls, as one pass pairs them: an id
// with a call open in r has its events replayed on it, what the part
// alone counted for them taken back, and its entry in o dropped (its
// pairing is done). When s keeps notes, the events of each id of o that
// r has seen too are added to r's.
func (s *State) mergeCallNotes(r, o *run, ns map[string][]callNote) {
	for id, evs := range ns {
		c0 := r.glassOrEmpty().calls[id]
		if s.opt.CallNotes {
			s.addNotes(r.id, id, c0, evs)
		}
		if c0 == nil {
			continue
		}
		pairNotes(nil, evs, s.countCall(-1))
		if c := pairNotes(c0, evs, s.countCall(1)); c != nil {
			r.glass.calls[id] = c
		} else {
			delete(r.glass.calls, id)
		}
		if o.glass != nil {
			delete(o.glass.calls, id)
		}
	}
	if !s.opt.CallNotes || o.glass == nil {
		return
	}
	for id, c2 := range o.glass.calls {
		if _, ok := ns[id]; ok {
			continue
		}
		if c1 := r.glassOrEmpty().calls[id]; c1 != nil || s.notes[r.id][id] != nil {
			s.addNotes(r.id, id, c1, entryNotes(c2))
		}
	}
}

// countCall counts d calls or failures in a group of s.
func (s *State) countCall(d int64) func(group, name string, failed bool) {
	return func(group, name string, failed bool) {
		if g := s.getGroup(group); g != nil {
			g.addCall(name, failed, d)
		}
	}
}

// pNote is the JSON shape of a call note in a run line of a partial state
// ("call_notes": {"ID": [pNote, ...]}).
type pNote struct {
	Event  string `json:"event"`          // start, restated or end
	Name   string `json:"name,omitempty"` // a start's tool
	Failed bool   `json:"failed,omitempty"`
	Group  string `json:"group"`
}

var noteEvents = [...]string{noteStart: "start", noteRestated: "restated", noteEnd: "end"}

// partial is the note as a partial state writes it.
func (n callNote) partial() pNote {
	return pNote{Event: noteEvents[n.kind], Name: n.name, Failed: n.failed, Group: n.group}
}

// note is the note p describes; false when no event gives it (a name
// for an end, a failure for a start).
func (p pNote) note() (callNote, bool) {
	k := slices.Index(noteEvents[:], p.Event)
	if k < 0 || noteKind(k) == noteEnd && p.Name != "" || noteKind(k) != noteEnd && p.Failed {
		return callNote{}, false
	}
	return callNote{kind: noteKind(k), failed: p.Failed, name: p.Name, group: p.Group}, true
}
