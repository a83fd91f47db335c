package expr

import (
	"slices"
	"strings"

	"github.com/itchyny/gojq"
)

// EventFields are the names that are both jq builtins and fields of the
// event vocabularies (zot's `type`, the `error` of turn_end, model_error and
// run_error): where the input is the event itself they read the field.
var EventFields = []string{"type", "error"}

// sameInputArgs lists builtins whose arguments are evaluated against the
// builtin's own input, so the event stays the event inside them.
var sameInputArgs = map[string]bool{
	"select": true, "first": true, "last": true, "limit": true, "isempty": true,
	"IN": true, "test": true, "match": true, "capture": true, "has": true,
	"contains": true, "inside": true, "startswith": true, "endswith": true,
	"ltrimstr": true, "rtrimstr": true, "split": true, "join": true,
	"error": true, "add": true, "not": true,
}

// jqOnly lists builtins of no arguments that jq has and gojq lacks. They
// stay calls, which gojq refuses ("function not defined"): read as fields
// they would be null on every event, and a jq user would get nothing,
// silently.
var jqOnly = map[string]bool{
	"input_line_number": true, "get_search_list": true, "get_prog_origin": true,
	"get_jq_origin": true, "have_decnum": true, "have_literal_numbers": true,
}

// scope is the chain of functions visible at a point of the query, by name
// and arity; jq identifies a function by both.
type scope struct {
	name   string
	arity  int
	parent *scope
}

func (s *scope) defines(name string, arity int) bool {
	for ; s != nil; s = s.parent {
		if s.name == name && s.arity == arity {
			return true
		}
	}
	return false
}

func (s *scope) with(name string, arity int) *scope {
	return &scope{name: name, arity: arity, parent: s}
}

// rewriter turns the shorthand into plain jq, in place.
type rewriter struct {
	builtin map[string]bool // cache: is name/0 a jq builtin
}

// isBuiltin reports whether jq knows name as a function of no arguments.
func (r *rewriter) isBuiltin(name string) bool {
	if b, ok := r.builtin[name]; ok {
		return b
	}
	q := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name}}}
	_, err := gojq.Compile(q)
	b := err == nil
	if r.builtin == nil {
		r.builtin = map[string]bool{}
	}
	r.builtin[name] = b
	return b
}

// Rewrite applies the field shorthand to q in place: a bare name that no
// definition in scope (lib's filters, the query's own defs and parameters)
// gives a meaning becomes a field read. See the package documentation for
// the rules.
func Rewrite(q *gojq.Query, lib *Library) {
	var r rewriter
	r.query(q, lib.scope(), true)
}

// query walks q; event says whether q's input is the event itself.
func (r *rewriter) query(q *gojq.Query, sc *scope, event bool) {
	if q == nil {
		return
	}
	for _, fd := range q.FuncDefs {
		sc = sc.with(fd.Name, len(fd.Args))
		body := sc
		for _, a := range fd.Args {
			if strings.HasPrefix(a, "$") {
				body = body.with(a[1:], 0) // a $param is also a filter
			} else {
				body = body.with(a, 0)
			}
		}
		// A def is written for its input, usually an event: its body reads
		// like a top-level expression.
		r.query(fd.Body, body, true)
	}
	r.term(q.Term, sc, event)
	r.query(q.Left, sc, event)
	switch q.Op {
	case gojq.OpPipe:
		// A binding (`kind as $k | ...`) keeps the input; a plain pipe
		// changes it.
		r.query(q.Right, sc, event && len(q.Patterns) > 0)
	case gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul,
		gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		r.query(q.Right, sc, false)
	default:
		r.query(q.Right, sc, event)
	}
	for _, p := range q.Patterns {
		r.pattern(p, sc, event)
	}
}

func (r *rewriter) pattern(p *gojq.Pattern, sc *scope, event bool) {
	if p == nil {
		return
	}
	for _, e := range p.Array {
		r.pattern(e, sc, event)
	}
	for _, o := range p.Object {
		r.query(o.KeyQuery, sc, event)
		r.str(o.KeyString, sc, event)
		r.pattern(o.Val, sc, event)
	}
}

func (r *rewriter) str(s *gojq.String, sc *scope, event bool) {
	if s == nil {
		return
	}
	for _, q := range s.Queries {
		r.query(q, sc, event)
	}
}

func (r *rewriter) index(ix *gojq.Index, sc *scope, event bool) {
	if ix == nil {
		return
	}
	r.str(ix.Str, sc, event)
	r.query(ix.Start, sc, event)
	r.query(ix.End, sc, event)
}

func (r *rewriter) term(t *gojq.Term, sc *scope, event bool) {
	if t == nil {
		return
	}
	switch t.Type {
	case gojq.TermTypeIndex:
		r.index(t.Index, sc, event)
	case gojq.TermTypeFunc:
		r.fn(t, sc, event)
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			r.str(kv.KeyString, sc, event)
			r.query(kv.KeyQuery, sc, event)
			r.query(kv.Val, sc, event)
		}
	case gojq.TermTypeArray:
		r.query(t.Array.Query, sc, event)
	case gojq.TermTypeUnary:
		r.term(t.Unary.Term, sc, event)
	case gojq.TermTypeFormat, gojq.TermTypeString:
		r.str(t.Str, sc, event)
	case gojq.TermTypeIf:
		r.query(t.If.Cond, sc, event)
		r.query(t.If.Then, sc, event)
		for _, e := range t.If.Elif {
			r.query(e.Cond, sc, event)
			r.query(e.Then, sc, event)
		}
		r.query(t.If.Else, sc, event)
	case gojq.TermTypeTry:
		r.query(t.Try.Body, sc, event)
		r.query(t.Try.Catch, sc, false) // its input is the error
	case gojq.TermTypeReduce:
		r.query(t.Reduce.Query, sc, event)
		for _, p := range t.Reduce.Patterns {
			r.pattern(p, sc, event)
		}
		r.query(t.Reduce.Start, sc, event)
		r.query(t.Reduce.Update, sc, false)
	case gojq.TermTypeForeach:
		r.query(t.Foreach.Query, sc, event)
		for _, p := range t.Foreach.Patterns {
			r.pattern(p, sc, event)
		}
		r.query(t.Foreach.Start, sc, event)
		r.query(t.Foreach.Update, sc, false)
		r.query(t.Foreach.Extract, sc, false)
	case gojq.TermTypeLabel:
		r.query(t.Label.Body, sc, event)
	case gojq.TermTypeQuery:
		r.query(t.Query, sc, event)
	}
	for _, s := range t.SuffixList {
		r.index(s.Index, sc, event)
	}
}

// fn resolves a function term: a call stays a call, a bare name that means
// nothing else becomes a field read.
func (r *rewriter) fn(t *gojq.Term, sc *scope, event bool) {
	f := t.Func
	name := f.Name
	if len(f.Args) > 0 {
		args := false
		if sc.defines(name, len(f.Args)) {
			args = event // a named filter's arguments are read on its input
		} else if sameInputArgs[name] {
			args = event
		}
		for _, a := range f.Args {
			r.query(a, sc, args)
		}
		return
	}
	if strings.HasPrefix(name, "$") || strings.Contains(name, "::") || sc.defines(name, 0) || jqOnly[name] {
		return
	}
	if r.isBuiltin(name) && !(event && slices.Contains(EventFields, name)) {
		return
	}
	t.Type = gojq.TermTypeIndex
	t.Index = &gojq.Index{Name: name}
	t.Func = nil
}
