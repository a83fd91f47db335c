package expr

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evtools/evtools/internal/core/textfmt"
	"github.com/itchyny/gojq"
)

// caret shows where a parse error is, as gojq's command does: the line
// of src, and a caret under the place.
func caret(src string, err error) string {
	pe, ok := err.(*gojq.ParseError)
	if !ok {
		return ""
	}
	off := pe.Offset
	if pe.Token != "" && off >= len(pe.Token) {
		off -= len(pe.Token)
	}
	off = min(max(off, 0), len(src))
	start, end := textfmt.LineAround(src, off)
	return fmt.Sprintf("\n    %s\n    %s^", src[start:end], strings.Repeat(" ", len([]rune(src[start:off]))))
}

// alwaysPasses refuses an expression whose result is, by its form, a value
// every event passes with: an update-assignment (`kind = "x"` yields the
// event, changed) or an object construction. It looks where the result
// comes from: the right of a pipe, each side of `,`, `and`, `or`, the left
// of `//`, parentheses, select's argument.
func alwaysPasses(q *gojq.Query) error {
	if q == nil {
		return nil
	}
	switch q.Op {
	case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul,
		gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		msg := fmt.Sprintf("bad expression: %s assigns to the event (jq's %s) and so yields it: every event would pass", q, q.Op)
		if q.Op == gojq.OpAssign {
			eq := *q
			eq.Op = gojq.OpEq
			msg += "; to compare, write " + eq.String()
		}
		return fmt.Errorf("%s", msg)
	case gojq.OpPipe:
		return alwaysPasses(q.Right)
	case gojq.OpComma, gojq.OpAnd, gojq.OpOr:
		if err := alwaysPasses(q.Left); err != nil {
			return err
		}
		return alwaysPasses(q.Right)
	case gojq.OpAlt:
		return alwaysPasses(q.Left)
	}
	if q.Left != nil || q.Term == nil || len(q.Term.SuffixList) > 0 {
		return nil
	}
	t := q.Term
	switch {
	case t.Type == gojq.TermTypeObject:
		return fmt.Errorf("bad expression: %s yields an object, not true or false: every event would pass", q)
	case t.Type == gojq.TermTypeQuery:
		return alwaysPasses(t.Query)
	case t.Type == gojq.TermTypeFunc && t.Func.Name == "select" && len(t.Func.Args) == 1:
		return alwaysPasses(t.Func.Args[0])
	}
	return nil
}

// watched is a bare name read as a field of the event, and whether an
// event had a value for it.
type watched struct {
	Field
	slot int // its index among the fast path's top-level keys, or -1
	seen bool
}

// watch sets up the fields to look for in each event.
func (f *Filter) watch(fields []Field) {
	for _, fd := range fields {
		w := watched{Field: fd, slot: -1}
		if f.fast != nil {
			for i, k := range f.fast.top {
				if k == fd.Name {
					w.slot = i
				}
			}
			if w.slot < 0 {
				continue // not read by the fast path: never reported
			}
		}
		f.fields = append(f.fields, w)
		f.unseen++
	}
}

var null = []byte("null")

// seeFast notes the watched fields the fast path's scan found with a value.
func (f *Filter) seeFast() {
	for i := range f.fields {
		w := &f.fields[i]
		if !w.seen && f.st.found[w.slot] && !bytes.Equal(f.st.vals[w.slot], null) {
			w.seen = true
			f.unseen--
		}
	}
}

// seeValue notes the watched fields v, the event decoded, has a value for.
func (f *Filter) seeValue(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for i := range f.fields {
		w := &f.fields[i]
		if !w.seen && m[w.Name] != nil {
			w.seen = true
			f.unseen--
		}
	}
}

// Nulls returns the bare names the shorthand read as fields of the event
// (`tool_call` in `kind == tool_call`) that were null or missing in every
// event f and its clones matched: most likely a typo, or a string without
// its quotes.
func (f *Filter) Nulls(clones ...*Filter) []Field {
	var out []Field
	for i, w := range f.fields {
		seen := w.seen
		for _, c := range clones {
			seen = seen || c.fields[i].seen
		}
		if !seen {
			out = append(out, w.Field)
		}
	}
	return out
}
