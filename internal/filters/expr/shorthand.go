package expr

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
	sig    string        // how to call it, for a filter with parameters
	def    *gojq.FuncDef // its definition, for a filter with parameters
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
func (s *scope) withParams(name string, params []string, def *gojq.FuncDef) *scope {
	sig := name
	if len(params) > 0 {
		sig += "(" + strings.Join(params, "; ") + ")"
	}
	return &scope{name: name, arity: len(params), sig: sig, def: def, parent: s}
}

// lookup is the nearest def of name and arity, or nil.
func (s *scope) lookup(name string, arity int) *scope {
	for ; s != nil; s = s.parent {
		if s.name == name && s.arity == arity {
			return s
		}
	}
	return nil
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
	inDef    int              // inside a def's body: the input is not known
	compared map[string]bool  // bare names that are an operand of == or !=
	fields   []Field          // bare names read as fields of the event
	errs     []error          // named filters called without their arguments
	args     map[string]Field // bare names that are a named filter's whole argument
}

// Field is a bare name the shorthand reads as a field of the event itself.
type Field struct {
	Name     string
	Compared bool // compared with another bare name (`kind == tool_call`): maybe a string
	// Call is the call of a named filter the name is the whole argument
	// of (`tool(Bash)`), and Quoted that call with the name a string
	// (`tool("Bash")`): null in every event, it was one.
	Call, Quoted string
}

// rewrite applies the field shorthand to q in place: a bare name that no
// definition in scope (lib's filters, the query's own defs and parameters)
// gives a meaning becomes a field read (the package documentation has the
// rules). It returns the bare names read as fields of the event (outside
// defs), and an error for a filter called without its arguments.
func rewrite(q *gojq.Query, lib *Library) ([]Field, error) {
	r := rewriter{compared: map[string]bool{}}
	r.visit(q, lib.scope(), true)
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

// visit rewrites p and the parts below it; event says whether p's input
// is the event itself.
func (r *rewriter) visit(p part, sc *scope, event bool) {
	args := false // whether the arguments of a call see the event
	switch p := p.(type) {
	case *gojq.Query:
		r.compare(p)
	case *gojq.FuncDef:
		for _, a := range p.Args {
			sc = sc.with(strings.TrimPrefix(a, "$"), 0) // a $param is also a filter
		}
		// A def is written for its input, usually an event: its body reads
		// like a top-level expression.
		event = true
		r.inDef++
		defer func() { r.inDef-- }()
	case *gojq.Term:
		if p.Type == gojq.TermTypeFunc {
			args = r.fn(p, sc, event)
		}
	}
	eachPart(p, func(c part, in input) {
		if fd, ok := c.(*gojq.FuncDef); ok {
			sc = sc.withParams(fd.Name, fd.Args, fd)
		}
		switch in {
		case inputSame:
			r.visit(c, sc, event)
		case inputArg:
			r.visit(c, sc, args)
		default:
			r.visit(c, sc, false)
		}
	})
}

// compare notes the bare names compared with each other: in
// `kind == tool_call` one of the two was meant as a string.
func (r *rewriter) compare(q *gojq.Query) {
	if r.compared == nil || q.Op != gojq.OpEq && q.Op != gojq.OpNe {
		return
	}
	l, lok := bareName(q.Left)
	rn, rok := bareName(q.Right)
	if lok && rok {
		r.compared[l], r.compared[rn] = true, true
	}
}

// fn resolves a function term: a call stays a call, a bare name that means
// nothing else becomes a field read. It returns whether the call's
// arguments see the event.
func (r *rewriter) fn(t *gojq.Term, sc *scope, event bool) bool {
	f := t.Func
	name := f.Name
	if len(f.Args) > 0 {
		if d := sc.lookup(name, len(f.Args)); d != nil && d.def != nil {
			r.checkArgs(t, d.def)
		}
		// A named filter's arguments are read on its input, and so are
		// those of the builtins that keep it.
		return event && (sc.defines(name, len(f.Args)) || sameInputArgs[name])
	}
	if strings.HasPrefix(name, "$") || strings.Contains(name, "::") || sc.defines(name, 0) {
		return false
	}
	if jqBuiltins[name] && name != "input" && !(event && slices.Contains(EventFields, name)) {
		return false
	}
	// Where the input is the event, a name only a filter with parameters
	// defines is that filter without its arguments (`evfilter tool`), not
	// a field; after a pipe it is the field (`payload | tool`).
	if d := sc.needsArgs(name); d != nil && event {
		need := "an argument"
		if d.arity > 1 {
			need = fmt.Sprintf("%d arguments", d.arity)
		}
		r.errs = append(r.errs, fmt.Errorf("%s needs %s: %s", name, need, d.sig))
		return false
	}
	if event && r.inDef == 0 && r.compared != nil && !slices.ContainsFunc(r.fields, func(f Field) bool { return f.Name == name }) {
		fd := r.args[name]
		fd.Name, fd.Compared = name, r.compared[name]
		r.fields = append(r.fields, fd)
	}
	t.Type = gojq.TermTypeIndex
	t.Index = &gojq.Index{Name: name}
	t.Func = nil
	return false
}

// checkArgs looks at the arguments of t, a call of the named filter def,
// before the shorthand rewrites them. A bare name is noted with the call
// quoted (Field.Call), for the end to refuse it if no event had it. A
// string literal where def compares the parameter with <, <=, > or >= is
// an error: jq orders every string after every number, so slow("10s")
// would match nothing, silently.
func (r *rewriter) checkArgs(t *gojq.Term, def *gojq.FuncDef) {
	f := t.Func
	numeric := orderedParams(def)
	for i, a := range f.Args {
		if name, ok := bareName(a); ok && !strings.HasPrefix(name, "$") && r.inDef == 0 {
			if r.args == nil {
				r.args = map[string]Field{}
			}
			r.args[name] = Field{Call: callWith(f, i, name), Quoted: callWith(f, i, strconv.Quote(name))}
		}
		if i >= len(def.Args) || !numeric[strings.TrimPrefix(def.Args[i], "$")] {
			continue
		}
		str, ok := stringLiteral(a)
		if !ok {
			continue
		}
		err := fmt.Sprintf("%s: %s is compared as a number, not a string", callWith(f, i, strconv.Quote(str)), def.Args[i])
		if n, ok := numberMeant(str, def.Args[i]); ok {
			err += fmt.Sprintf("; did you mean %s?", callWith(f, i, n))
		}
		r.errs = append(r.errs, errors.New(err))
	}
}

// callWith is the call f written with its argument i replaced by arg.
func callWith(f *gojq.Func, i int, arg string) string {
	args := make([]string, len(f.Args))
	for j, a := range f.Args {
		args[j] = a.String()
	}
	args[i] = arg
	return f.Name + "(" + strings.Join(args, "; ") + ")"
}

// orderedParams are the parameters of def (without "$") that its body
// orders against something: numbers, in the filters of the library.
func orderedParams(def *gojq.FuncDef) map[string]bool {
	out := map[string]bool{}
	var walk func(p part)
	walk = func(p part) {
		if q, ok := p.(*gojq.Query); ok && (q.Op == gojq.OpLt || q.Op == gojq.OpLe || q.Op == gojq.OpGt || q.Op == gojq.OpGe) {
			for _, side := range []*gojq.Query{q.Left, q.Right} {
				if name, ok := bareName(side); ok && strings.HasPrefix(name, "$") {
					out[name[1:]] = true
				}
			}
		}
		eachPart(p, func(c part, _ input) { walk(c) })
	}
	walk(def.Body)
	return out
}

// stringLiteral is the string q is made of, if q is a constant string.
func stringLiteral(q *gojq.Query) (string, bool) {
	if q == nil || q.Left != nil || q.Right != nil || len(q.FuncDefs) > 0 || q.Term == nil {
		return "", false
	}
	t := q.Term
	if t.Type != gojq.TermTypeString || len(t.SuffixList) > 0 || t.Str.Queries != nil {
		return "", false
	}
	return t.Str.Str, true
}

// numberMeant is the number a string argument stood for: the string's own
// ("0.5"), or a duration ("10s") in the unit of a parameter named $ms.
func numberMeant(s, param string) (string, bool) {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s, true
	}
	if d, err := time.ParseDuration(s); err == nil && param == "$ms" {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64), true
	}
	return "", false
}
