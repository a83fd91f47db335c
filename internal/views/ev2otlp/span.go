package ev2otlp

// The spans ev2otlp makes, in the terms of OTLP's data model: what the
// encoders (json.go, proto.go) write, and nothing of where it came from.

// Span kinds and status codes, as OTLP numbers them.
const (
	kindInternal = 1
	kindClient   = 3

	statusUnset = 0
	statusError = 2
)

// valueKind is the type of an attribute's value.
type valueKind uint8

const (
	vString valueKind = iota
	vInt
	vDouble
	vBool
	vStrings
)

// attr is one attribute: a key and its value, of one of the kinds.
type attr struct {
	key  string
	kind valueKind
	s    string
	i    int64
	f    float64
	ss   []string
}

// attrs is a list of attributes with adders that make the spans read
// like the mapping in docs/formats.md.
type attrs []attr

func (a *attrs) str(key, s string) {
	if s != "" {
		a.set(attr{key: key, kind: vString, s: s})
	}
}

func (a *attrs) int(key string, i int64) { a.set(attr{key: key, kind: vInt, i: i}) }

func (a *attrs) double(key string, f float64) { a.set(attr{key: key, kind: vDouble, f: f}) }

func (a *attrs) boolean(key string, b bool) {
	i := int64(0)
	if b {
		i = 1
	}
	a.set(attr{key: key, kind: vBool, i: i})
}

func (a *attrs) strs(key string, ss ...string) { a.set(attr{key: key, kind: vStrings, ss: ss}) }

// set adds v, or replaces the value of its key: OTLP wants the keys of a
// list unique, and a second result of one call (zot's usage, twice in a
// turn) says the same things again.
// It is kept out of line: inlined at its 120 call sites, it was a third
// of the package's machine code, too much for the CPU's instruction
// cache (an eighth more misses of it on the envelope corpus).
//
//go:noinline
func (a *attrs) set(v attr) {
	for i := range *a {
		if (*a)[i].key == v.key {
			(*a)[i] = v
			return
		}
	}
	*a = append(*a, v)
}

// spanEvent is an event on a span's timeline: a guardrail, a kill, an
// error, a retry.
type spanEvent struct {
	time  int64 // Unix nanoseconds
	name  string
	attrs attrs
}

// span is one span, open while its end is to come.
type span struct {
	trace     [16]byte
	id        [8]byte
	parent    [8]byte
	hasParent bool
	name      string
	kind      uint8
	start     int64 // Unix nanoseconds
	end       int64
	attrs     attrs
	events    []spanEvent
	status    uint8
	message   string

	// While it is open: what it is of its run.
	res    *resource
	op     op
	agent  string // the agent whose model call, tool call or invocation it is
	failed bool   // a chat that ended on an error: the next call is a retry
	args   []byte // --content: the call's arguments, as they came in pieces
	output []byte // --content: the call's output, as it came in pieces
}

// op is what a span is: the GenAI operation.
type op uint8

const (
	opAgent op = iota // invoke_agent: a run's root, or a subagent
	opChat            // chat: a model call
	opTool            // execute_tool: a tool call
)

// reset empties s for reuse, keeping its slices' memory.
func (s *span) reset() {
	attrs, events, args, output := s.attrs[:0], s.events[:0], s.args[:0], s.output[:0]
	*s = span{attrs: attrs, events: events, args: args, output: output}
}

// resource is what a run's spans share: the service (the agent that wrote
// the log), its version and the workspace it worked in.
type resource struct {
	service, version, workspace string
}

// group is spans of one resource, in the order they ended.
type group struct {
	res   *resource
	spans []*span
}

// batch is the spans ended since the last line or request was written,
// grouped by resource in the order of their first span.
type batch struct {
	groups []group
	n      int
}

func (b *batch) add(s *span) {
	b.n++
	for i := len(b.groups) - 1; i >= 0; i-- {
		if g := &b.groups[i]; g.res == s.res {
			g.spans = append(g.spans, s)
			return
		}
	}
	if n := len(b.groups); n < cap(b.groups) {
		// a group of a batch written before: its list is reused
		b.groups = b.groups[:n+1]
		g := &b.groups[n]
		g.res, g.spans = s.res, append(g.spans[:0], s)
		return
	}
	b.groups = append(b.groups, group{res: s.res, spans: append([]*span(nil), s)})
}

// take empties the batch, handing its spans to free for reuse.
func (b *batch) take(free func(*span)) {
	for i := range b.groups {
		for _, s := range b.groups[i].spans {
			free(s)
		}
	}
	b.groups, b.n = b.groups[:0], 0
}
