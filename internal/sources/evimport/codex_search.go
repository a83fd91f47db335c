package evimport

import (
	"strconv"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// Codex writes a web search as a web_search_call response item without
// call_id (the API's id is not kept), and, apart from it, a
// web_search_end event that has the id: before the item or after it,
// several searches of one response in a row. Each call takes the id of
// its end, so that calls stay apart and end; a call whose end is not in
// the log is named by its place, the rollout's id and its line.

// codexSearches is what pairSearches found in a rollout.
type codexSearches struct {
	calls map[int]codexSearch // by the call's index among the records
	ends  map[int]int         // the index of an end written after its call: the call's
	// openCall is the first call without an end in a turn the log has
	// not ended yet, whose end may still come (-1: none); openFrom the
	// index of its tool_call among the thread's events, once written
	openCall, openFrom int
}

type codexSearch struct {
	id     string
	end    int    // the index of its end; -1 when it has none
	status []byte // the call's
}

// pairSearches pairs the web searches of each turn with their ends, in
// order, an end going to the first call before it (or after it) whose
// action it does not contradict.
func pairSearches(lines []codexRec, rollout string) codexSearches {
	ss := codexSearches{openCall: -1, openFrom: -1}
	var calls, ends []int // of the turn, not paired yet
	flush := func(closed bool) {
		for _, ci := range calls {
			s := codexSearch{end: -1, status: lines[ci].p.Status}
			for k, ei := range ends {
				if ei >= 0 && actionsAgree(lines[ci].p.Action, lines[ei].p.Action) {
					s.end, s.id = ei, lines[ei].p.CallID
					ends[k] = -1
					break
				}
			}
			if s.end < 0 {
				s.id = rollout + ":" + strconv.Itoa(lines[ci].line)
				if !closed && ss.openCall < 0 {
					ss.openCall = ci
				}
			} else if s.end > ci {
				if ss.ends == nil {
					ss.ends = map[int]int{}
				}
				ss.ends[s.end] = ci
			}
			if ss.calls == nil {
				ss.calls = map[int]codexSearch{}
			}
			ss.calls[ci] = s
		}
		calls, ends = calls[:0], ends[:0]
	}
	for i, r := range lines {
		switch r.typ {
		case "response_item web_search_call":
			calls = append(calls, i)
		case "event_msg web_search_end":
			if r.p.CallID != "" {
				ends = append(ends, i)
			}
		case "event_msg user_message", "event_msg task_started", "event_msg task_complete", "event_msg turn_aborted":
			flush(true)
		}
	}
	flush(false)
	return ss
}

// actionsAgree reports whether two web search actions may be one: no
// member both name (type, query, url, pattern) differs.
func actionsAgree(a, b []byte) bool {
	if len(a) == 0 || a[0] != '{' || len(b) == 0 || b[0] != '{' {
		return true
	}
	for _, k := range [...]string{"type", "query", "url", "pattern"} {
		x, okx := jsonscan.Lookup(a, k)
		y, oky := jsonscan.Lookup(b, k)
		if okx && oky && x[0] == '"' && y[0] == '"' && unquote(x) != unquote(y) {
			return false
		}
	}
	return true
}

// call writes the web search at index i: its tool_call, and its result
// when its end came first or it has none (the item is written once the
// search is over, its status saying how it went).
func (ss *codexSearches) call(b *builder, i int, r codexRec) {
	s, ok := ss.calls[i]
	if !ok {
		return
	}
	if i == ss.openCall {
		ss.openFrom = len(b.out)
	}
	b.toolCall(r.ms, s.id, "web_search", r.p.Action)
	if s.end < i {
		b.toolResult(r.ms, s.id, searchOK(r.p.Status), "")
	}
}

// end writes the result of the web search whose end, written after it,
// is at index i.
func (ss *codexSearches) end(b *builder, i int, r codexRec) {
	ci, ok := ss.ends[i]
	if !ok {
		return
	}
	s := ss.calls[ci]
	b.toolResult(r.ms, s.id, searchOK(s.status), "")
}

// searchOK is whether a web search succeeded, from its item's status
// ("completed", "failed"; none in older versions, which wrote only
// searches that were done).
func searchOK(status []byte) bool {
	return len(status) == 0 || status[0] != '"' || unquote(status) != "failed"
}
