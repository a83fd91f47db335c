// Package record is what a report says, apart from how it is computed:
// the counters of a group (one table, Counters, where every name of a
// counter is written), the record of a group or of the total and its
// JSON form (evsum's output contract), the fields of the record (Fields,
// from which the JSON, csv, table, --sort and --columns are made), the
// sort fields and the problems' sentences. Package summary folds events
// into records; evsum and htmlreport show them.
package record

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// Record is one line of the report: a group, or the total (Total set,
// Group empty). Its JSON form (AppendJSON) is evsum's output contract.
type Record struct {
	Total     bool
	Names     []string // the group's key names, in --by order
	Vals      []string // their values as raw JSON
	Counts    [NumCounters]int64
	Runs      int64
	FirstTS   int64 // Unix microseconds, valid when HasTS
	LastTS    int64
	HasTS     bool
	Outcomes  []Count    // sorted by name
	Tools     []ToolStat // sorted by name
	WallSumUS int64
	Wall      Stats // seconds
	Latency   Stats // milliseconds
	Problems  []Problem

	// Other, when not 0, makes this the record of that many groups past
	// --top, folded into one: its group is {"other":N}.
	Other int64
	// Breakdown holds, under --breakdown, the records of the group's parts
	// (Nested, their group the breakdown's key alone), written as the
	// record's member BreakdownMember (models), last; "" without one.
	Breakdown       []Record
	BreakdownMember string
	Nested          bool
}

// UsageUnknown reports whether the record's tokens and cost are not known:
// it has model calls whose log records no usage (no_usage_calls), and no
// call counted any token or cost.
func (r *Record) UsageUnknown() bool {
	return r.Counts[NoUsageCalls] > 0 && r.Counts[TokTotal] == 0 && r.Counts[CostNano] == 0 && r.Counts[UnpricedCalls] == 0
}

// Count is a named count.
type Count struct {
	Name string
	N    int64
}

// ToolStat is one tool's calls and failures.
type ToolStat struct {
	Name          string
	Calls, Failed int64
}

// Stats are percentiles from a Sketch; Has is false when there were no
// values.
type Stats struct {
	Has           bool
	P50, P95, Max float64
}

// Problem is one broken invariant of a run: the run, the kind, and what
// the kind counts or names. String is its sentence, made where it is
// shown.
type Problem struct {
	Run  string
	Kind ProblemKind
	N    int64  // how many: run_finished events, tool calls without a result, turns
	Call string // the tool call that never ended (OpenCall): its id
	Tool string // and its tool's name
}

// ProblemKind says which invariant a run broke.
type ProblemKind uint8

// The kinds of problems.
const (
	NoRunFinished      ProblemKind = iota // a run-log run without run_finished
	RunFinishedTimes                      // N run_finished events
	RunFinishedEarly                      // a run_finished not preceded by assistant_message or run_error
	CallsWithoutResult                    // N tool_call events without a tool_result
	OpenCall                              // a tool call (Call, Tool) started and never ended
	OpenTurns                             // N turns started and never ended
)

// String is the problem's sentence: the run (quoted as strconv.Quote has
// it), then what it broke.
func (p Problem) String() string {
	rest := ""
	switch p.Kind {
	case NoRunFinished:
		rest = " has no run_finished"
	case RunFinishedTimes:
		rest = fmt.Sprintf(" has %d run_finished events", p.N)
	case RunFinishedEarly:
		rest = " has a run_finished not preceded by assistant_message or run_error"
	case CallsWithoutResult:
		rest = fmt.Sprintf(" has %s without a tool_result", textfmt.Plural(p.N, "tool_call"))
	case OpenCall:
		rest = fmt.Sprintf(": tool call %s (%s) started and never ended", strconv.Quote(p.Call), p.Tool)
	case OpenTurns:
		rest = fmt.Sprintf(": %s started and never ended", textfmt.Plural(p.N, "turn"))
	}
	// An id too long to read is named by its start and its length: the
	// group or the run list holds it whole.
	switch {
	case len(p.Run) > maxNamedID:
		return "run " + strconv.Quote(strings.ToValidUTF8(p.Run[:64], "")+"…") + fmt.Sprintf(" (a run_id of %d bytes)", len(p.Run)) + rest
	case !quotesAsIs(p.Run):
		return "run " + strconv.Quote(p.Run) + rest
	}
	return "run \"" + p.Run + "\"" + rest // as strconv.Quote has it, in one piece
}

// Named reports whether the sentence names the run whole: its id is not
// too long to read.
func (p Problem) Named() bool { return len(p.Run) <= maxNamedID }

// maxNamedID is the longest run_id a problem quotes whole.
const maxNamedID = 4096

// KeyText is the record's value of its key k as people read it (see
// ValueText), but for the events that have no value of the key, which are
// "(no KEY)" in every view (textfmt's rule): null, and the empty agent_id
// (or role) of the session's own events, (no agent).
func (r *Record) KeyText(k int) string {
	if k < len(r.Names) && (r.Vals[k] == "null" || r.Vals[k] == `""` && (r.Names[k] == "agent_id" || r.Names[k] == "role")) {
		return noValue(r.Names[k])
	}
	return ValueText(r.Vals[k])
}

// noValue names the group of the events without a value of the key
// named: (no model), (no agent) for agent_id, (no run) for run_id.
func noValue(name string) string {
	return "(no " + strings.TrimSuffix(name, "_id") + ")"
}

// ValueText is a key's value (raw JSON) as people read it: a string
// without its quotes (the empty one as ""), null as -, other JSON as it
// is.
func ValueText(raw string) string {
	switch raw {
	case "null":
		return "-"
	case `""`:
		return `""`
	}
	if s, ok := jsonscan.Unquote(nil, []byte(raw)); ok {
		return string(s)
	}
	return raw
}

// AppendJSON appends the record as one JSON object, members in the
// contract's order: the group, then the fields in the order of Fields
// (objects of theirs, tokens, as one member), and the breakdown last.
func (r *Record) AppendJSON(b []byte) []byte {
	lw := longWriter{b: b}
	r.writeJSON(&lw)
	return lw.b
}

// writeJSON writes the record as AppendJSON appends it, through lw: the
// problems apart, which lw may write to its stream.
func (r *Record) writeJSON(lw *longWriter) {
	lw.b = append(lw.b, `{"group":`...)
	r.writeGroup(lw)
	b, ms := lw.b, schema.members
	for i := range ms[:schema.problems] {
		b = r.appendMember(b, &ms[i])
	}
	lw.b = append(b, ms[schema.problems].lead...)
	r.writeProblems(lw)
	b = lw.b
	for i := schema.problems + 1; i < len(ms); i++ {
		b = r.appendMember(b, &ms[i])
	}
	b = append(b, schema.tail...)
	lw.b = r.appendBreakdown(b)
}

// appendMember appends one field's member: what comes before its value,
// and its value.
func (r *Record) appendMember(b []byte, m *recordMember) []byte {
	b = append(b, m.lead...)
	f := m.field
	switch {
	case f.usage && r.UsageUnknown():
		return append(b, "null"...)
	case f.isCounter:
		// the most of the members: read without a call
		if f.Scale > 0 {
			return jsontext.AppendFixed(b, r.Counts[f.counter], f.Scale)
		}
		return strconv.AppendInt(b, r.Counts[f.counter], 10)
	case f.Shape == ShapeOutcomes:
		return r.appendOutcomes(b)
	case f.Shape == ShapeTools:
		return r.appendTools(b)
	}
	return f.AppendNumber(b, f.Value(r))
}

// appendBreakdown appends the breakdown member, if any, and the record's
// closing brace.
func (r *Record) appendBreakdown(b []byte) []byte {
	if r.BreakdownMember != "" {
		b = append(b, ',')
		b = appendName(b, r.BreakdownMember)
		b = append(b, '[')
		for i := range r.Breakdown {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.Breakdown[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendKey starts the i-th member of an object whose names are any
// text: a comma after the first, then the name as a JSON string and ':'.
func appendKey(b []byte, i int, name string) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = jsontext.AppendString(b, name)
	return append(b, ':')
}

func appendName(b []byte, name string) []byte {
	b = append(b, '"')
	b = append(b, name...)
	return append(b, `":`...)
}

func (r *Record) appendOutcomes(b []byte) []byte {
	b = append(b, '{')
	for i, o := range r.Outcomes {
		b = appendKey(b, i, o.Name)
		b = strconv.AppendInt(b, o.N, 10)
	}
	return append(b, '}')
}

func (r *Record) appendTools(b []byte) []byte {
	b = append(b, '{')
	for i, t := range r.Tools {
		b = appendKey(b, i, t.Name)
		b = append(b, `{"calls":`...)
		b = strconv.AppendInt(b, t.Calls, 10)
		b = append(b, `,"failed":`...)
		b = strconv.AppendInt(b, t.Failed, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// CostText is a cost in nano-dollars as the reports for people print it
// (textfmt.Money): every view for people prints costs by that one rule.
func CostText(nano int64) string { return textfmt.Money(nano) }

// long reports whether the record has a value WriteJSON writes apart.
func (r *Record) long() bool {
	// a sentence is at most a few times as long as the names in it, a
	// run's id cut to maxNamedID
	return slices.ContainsFunc(r.Vals, func(v string) bool { return len(v) > longValue }) ||
		slices.ContainsFunc(r.Problems, func(p Problem) bool { return len(p.Call)+len(p.Tool) > longValue/8 })
}

// AppendShortJSON is AppendJSON for a record without a value long enough
// to be written apart (see WriteJSON); for one with, it returns nil.
func (r *Record) AppendShortJSON(b []byte) []byte {
	if r.long() {
		return nil
	}
	return r.AppendJSON(b)
}

// longValue is the length past which WriteJSON writes a value to w itself
// rather than through its buffer.
const longValue = 64 << 10

// WriteJSON writes the record to w as AppendJSON appends it, using b as
// its buffer (returned for the next record), but writes a long group value
// or problem straight to w, the problem escaped piece by piece: the
// record of a run with a huge run_id costs no copy of the whole line.
func (r *Record) WriteJSON(w io.Writer, b []byte) ([]byte, error) {
	lw := &longWriter{b: b[:0]}
	if r.long() {
		lw.w = w
	}
	r.writeJSON(lw)
	lw.w = w
	lw.flush()
	return lw.b, lw.err
}

// longWriter is the buffer a record's JSON is appended to. With w set
// (WriteJSON), a long value goes to w straight, after what is buffered,
// and the first error stops the writes.
type longWriter struct {
	w   io.Writer
	b   []byte
	err error
}

func (lw *longWriter) flush() {
	if lw.err == nil {
		_, lw.err = lw.w.Write(lw.b)
	}
	lw.b = lw.b[:0]
}

// writeString writes s to w after what is buffered.
func (lw *longWriter) writeString(s string) {
	lw.flush()
	if lw.err == nil {
		_, lw.err = io.WriteString(lw.w, s)
	}
}

// writeGroup writes the group object, {} for the total, {"other":N} for
// the groups past --top; a long value straight to w.
func (r *Record) writeGroup(lw *longWriter) {
	lw.b = append(lw.b, '{')
	if r.Other > 0 {
		lw.b = append(lw.b, `"other":`...)
		lw.b = strconv.AppendInt(lw.b, r.Other, 10)
	} else if !r.Total {
		for i, n := range r.Names {
			lw.b = appendKey(lw.b, i, n)
			if lw.w != nil && len(r.Vals[i]) > longValue {
				lw.writeString(r.Vals[i])
				continue
			}
			lw.b = append(lw.b, r.Vals[i]...)
		}
	}
	lw.b = append(lw.b, '}')
}

// writeProblems writes the problems as a JSON array of sentences; a long
// one escaped piece by piece, straight to w.
func (r *Record) writeProblems(lw *longWriter) {
	lw.b = append(lw.b, '[')
	for i, pr := range r.Problems {
		if i > 0 {
			lw.b = append(lw.b, ',')
		}
		p := pr.String()
		if lw.w == nil || len(p) <= longValue {
			lw.b = jsontext.AppendString(lw.b, p)
			continue
		}
		lw.b = append(lw.b, '"')
		for len(p) > 0 {
			n := min(len(p), longValue)
			for n < len(p) && !utf8.RuneStart(p[n]) {
				n++ // escapes are of whole runes: cut at a rune's start
			}
			at := len(lw.b)
			lw.b = jsontext.AppendString(lw.b, p[:n])
			lw.b = append(lw.b[:at], lw.b[at+1:len(lw.b)-1]...) // without the piece's quotes
			p = p[n:]
			lw.flush()
		}
		lw.b = append(lw.b, '"')
	}
	lw.b = append(lw.b, ']')
}

// quotesAsIs says whether strconv.Quote(s) is s between quotes.
func quotesAsIs(s string) bool {
	return !strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c >= 0x7f || c == '"' || c == '\\' })
}
