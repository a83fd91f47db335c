package expr

import (
	"errors"
	"fmt"
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

// jqBuiltins is the one list of jq's builtins of no arguments: jq 1.7's
// and 1.8's, and gojq's (TestBuiltinList checks gojq's are all here). A
// bare name on it is left to gojq, which runs it or refuses it ("function
// not defined: debug/0"): read as a field, a builtin gojq lacks (debug,
// stderr, input_filename, input_line_number) would be null on every event
// and a jq user would get nothing, silently. The exceptions are the
// EventFields where the input is the event, and input, which gojq cannot
// run here (each event is judged alone) and which is a field of zot's
// usage lines.
var jqBuiltins = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`
		abs acos acosh add all any arrays ascii ascii_downcase ascii_upcase
		asin asinh atan atanh booleans builtins cbrt ceil combinations cos
		cosh date debug empty env erf erfc error exp exp10 exp2 explode expm1
		fabs finites first flatten floor frexp from_entries fromdate
		fromdateiso8601 fromjson gamma get_jq_origin get_prog_origin
		get_search_list gmtime halt halt_error have_decnum
		have_literal_numbers implode infinite input input_filename
		input_line_number inputs isfinite isinfinite isnan isnormal iterables
		j0 j1 keys keys_unsorted last leaf_paths length lgamma lgamma_r
		localtime log log10 log1p log2 logb ltrim max min mktime modf
		modulemeta nan nearbyint normals not now nulls numbers objects paths
		pow10 recurse recurse_down reverse rint round rtrim scalars
		significand sin sinh sort sqrt stderr strings tan tanh tgamma
		to_entries toarray toboolean todate todateiso8601 tojson tonumber
		tostream tostring transpose trim trunc type unique utf8bytelength
		values y0 y1`) {
		m[name] = true
	}
	return m
}()

// scope is the chain of functions visible at a point of the query, by name
// and arity; jq identifies a function by both.
type scope struct {
	name   string
	arity  int
	sig    string // how to call it, for a filter with parameters
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

// withParams adds a def that has params.
func (s *scope) withParams(name string, params []string) *scope {
	sig := name
	if len(params) > 0 {
		sig += "(" + strings.Join(params, "; ") + ")"
	}
	return &scope{name: name, arity: len(params), sig: sig, parent: s}
}

// needsArgs returns the nearest def of name with parameters, if no def of
// name without is nearer.
func (s *scope) needsArgs(name string) *scope {
	for ; s != nil; s = s.parent {
		if s.name == name {
			if s.arity == 0 {
				return nil
			}
			return s
		}
	}
	return nil
}

// rewriter turns the shorthand into plain jq, in place.
type rewriter struct {
	inDef    int             // inside a def's body: the input is not known
	compared map[string]bool // bare names that are an operand of == or !=
	fields   []Field         // bare names read as fields of the event
	errs     []error         // named filters called without their arguments
}

// Field is a bare name the shorthand reads as a field of the event itself.
type Field struct {
	Name     string
	Compared bool // compared with another bare name (`kind == tool_call`): maybe a string
}

// Rewrite applies the field shorthand to q in place: a bare name that no
// definition in scope (lib's filters, the query's own defs and parameters)
// gives a meaning becomes a field read. See the package documentation for
// the rules.
func Rewrite(q *gojq.Query, lib *Library) {
	var r rewriter
	r.query(q, lib.scope(), true)
}

// rewrite is Rewrite that also returns the bare names read as fields of
// the event (outside defs), and an error for a filter called without its
// arguments.
func rewrite(q *gojq.Query, lib *Library) ([]Field, error) {
	r := rewriter{compared: map[string]bool{}}
	r.query(q, lib.scope(), true)
	return r.fields, errors.Join(r.errs...)
}

// bareName returns the name q is made of, if q is a bare name alone.
func bareName(q *gojq.Query) (string, bool) {
	if q == nil || q.Left != nil || q.Right != nil || len(q.FuncDefs) > 0 || q.Term == nil {
		return "", false
	}
	t := q.Term
	if t.Type != gojq.TermTypeFunc || len(t.Func.Args) > 0 || len(t.SuffixList) > 0 {
		return "", false
	}
	return t.Func.Name, true
}

// query walks q; event says whether q's input is the event itself.
func (r *rewriter) query(q *gojq.Query, sc *scope, event bool) {
	if q == nil {
		return
	}
	for _, fd := range q.FuncDefs {
		sc = sc.withParams(fd.Name, fd.Args)
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
		r.inDef++
		r.query(fd.Body, body, true)
		r.inDef--
	}
	if q.Op == gojq.OpEq || q.Op == gojq.OpNe {
		// `kind == tool_call`: one of the two was meant as a string.
		l, lok := bareName(q.Left)
		rn, rok := bareName(q.Right)
		if lok && rok && r.compared != nil {
			r.compared[l], r.compared[rn] = true, true
		}
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
	if strings.HasPrefix(name, "$") || strings.Contains(name, "::") || sc.defines(name, 0) {
		return
	}
	if jqBuiltins[name] && name != "input" && !(event && slices.Contains(EventFields, name)) {
		return
	}
	// Where the input is the event, a name only a filter with parameters
	// defines is that filter without its arguments (`evfilter tool`), not
	// a field; after a pipe it is the field (`payload | tool`).
	if d := sc.needsArgs(name); d != nil && event {
		args := "an argument"
		if d.arity > 1 {
			args = fmt.Sprintf("%d arguments", d.arity)
		}
		r.errs = append(r.errs, fmt.Errorf("%s needs %s: %s", name, args, d.sig))
		return
	}
	if event && r.inDef == 0 && r.compared != nil && !slices.ContainsFunc(r.fields, func(f Field) bool { return f.Name == name }) {
		r.fields = append(r.fields, Field{Name: name, Compared: r.compared[name]})
	}
	t.Type = gojq.TermTypeIndex
	t.Index = &gojq.Index{Name: name}
	t.Func = nil
}
