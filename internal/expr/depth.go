package expr

import (
	"fmt"
	"strconv"

	"github.com/itchyny/gojq"
)

// maxDepth bounds how deep calls of the expression's own defs may nest on
// one event. gojq has no such bound: `def f: 1+f; f` grows its stack until
// the process dies. Deeper than this, the event's evaluation fails with an
// error, like any other evaluation error.
const maxDepth = 10000

// depthVar is the parameter added to every def of the expression: how deep
// its calls are nested.
const depthVar = "$__evfilter_depth"

// depthSuffix renames the defs given depthVar: with one more parameter
// under their own name, they could hide a def of that arity (`def tool:
// ...` would hide the named filter tool($name)).
const depthSuffix = "__evfilter_depth"

// boundDepth rewrites q's defs, in place, so that each (renamed) takes its
// nesting depth as a last parameter and raises an error past maxDepth: every call
// of such a def passes its caller's depth plus one (0 outside any def).
// Calls are resolved as jq does, by name and arity in lexical scope, so
// a parameter or a named filter of the same name is left alone.
func boundDepth(q *gojq.Query) {
	var b depthBounder
	b.query(q, nil, false)
}

// tooDeep is the function the guard of a def calls past maxDepth, with the
// def's name: it raises evfilter's own error, without gojq's "error: ".
const tooDeep = "_evfilter_too_deep"

var tooDeepFunc = gojq.WithFunction(tooDeep, 1, 1, func(_ any, args []any) any {
	return fmt.Errorf("%v: calls nested deeper than %d (endless recursion?)", args[0], maxDepth)
})

type depthScope struct {
	name   string
	arity  int
	user   bool // a def of the expression, given the depth parameter
	parent *depthScope
}

func (s *depthScope) user0(name string, arity int) bool {
	for ; s != nil; s = s.parent {
		if s.name == name && s.arity == arity {
			return s.user
		}
	}
	return false
}

type depthBounder struct{}

func (b *depthBounder) query(q *gojq.Query, sc *depthScope, inDef bool) {
	if q == nil {
		return
	}
	for _, fd := range q.FuncDefs {
		sc = &depthScope{name: fd.Name, arity: len(fd.Args), user: true, parent: sc}
		body := sc
		for _, a := range fd.Args {
			if len(a) > 0 && a[0] == '$' {
				a = a[1:]
			}
			body = &depthScope{name: a, parent: body}
		}
		b.query(fd.Body, body, true)
		name := fd.Name
		fd.Name += depthSuffix // an arity of its own might hide another def
		fd.Args = append(fd.Args, depthVar)
		guard, err := gojq.Parse(`if ` + depthVar + ` > ` + strconv.Itoa(maxDepth) + ` then ` + tooDeep + `(` +
			strconv.Quote(name) + `) else . end`)
		if err != nil {
			panic(err)
		}
		guard.Term.If.Else = fd.Body
		fd.Body = guard
	}
	b.term(q.Term, sc, inDef)
	b.query(q.Left, sc, inDef)
	b.query(q.Right, sc, inDef)
	for _, p := range q.Patterns {
		b.pattern(p, sc, inDef)
	}
}

func (b *depthBounder) pattern(p *gojq.Pattern, sc *depthScope, inDef bool) {
	if p == nil {
		return
	}
	for _, e := range p.Array {
		b.pattern(e, sc, inDef)
	}
	for _, o := range p.Object {
		b.query(o.KeyQuery, sc, inDef)
		b.str(o.KeyString, sc, inDef)
		b.pattern(o.Val, sc, inDef)
	}
}

func (b *depthBounder) str(s *gojq.String, sc *depthScope, inDef bool) {
	if s == nil {
		return
	}
	for _, q := range s.Queries {
		b.query(q, sc, inDef)
	}
}

func (b *depthBounder) index(ix *gojq.Index, sc *depthScope, inDef bool) {
	if ix == nil {
		return
	}
	b.str(ix.Str, sc, inDef)
	b.query(ix.Start, sc, inDef)
	b.query(ix.End, sc, inDef)
}

func (b *depthBounder) term(t *gojq.Term, sc *depthScope, inDef bool) {
	if t == nil {
		return
	}
	switch t.Type {
	case gojq.TermTypeIndex:
		b.index(t.Index, sc, inDef)
	case gojq.TermTypeFunc:
		f := t.Func
		for _, a := range f.Args {
			b.query(a, sc, inDef)
		}
		if sc.user0(f.Name, len(f.Args)) {
			depth := "0"
			if inDef {
				depth = depthVar + " + 1"
			}
			a, err := gojq.Parse(depth)
			if err != nil {
				panic(err)
			}
			f.Name += depthSuffix
			f.Args = append(f.Args, a)
		}
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			b.str(kv.KeyString, sc, inDef)
			b.query(kv.KeyQuery, sc, inDef)
			b.query(kv.Val, sc, inDef)
		}
	case gojq.TermTypeArray:
		b.query(t.Array.Query, sc, inDef)
	case gojq.TermTypeUnary:
		b.term(t.Unary.Term, sc, inDef)
	case gojq.TermTypeFormat, gojq.TermTypeString:
		b.str(t.Str, sc, inDef)
	case gojq.TermTypeIf:
		b.query(t.If.Cond, sc, inDef)
		b.query(t.If.Then, sc, inDef)
		for _, e := range t.If.Elif {
			b.query(e.Cond, sc, inDef)
			b.query(e.Then, sc, inDef)
		}
		b.query(t.If.Else, sc, inDef)
	case gojq.TermTypeTry:
		b.query(t.Try.Body, sc, inDef)
		b.query(t.Try.Catch, sc, inDef)
	case gojq.TermTypeReduce:
		b.query(t.Reduce.Query, sc, inDef)
		for _, p := range t.Reduce.Patterns {
			b.pattern(p, sc, inDef)
		}
		b.query(t.Reduce.Start, sc, inDef)
		b.query(t.Reduce.Update, sc, inDef)
	case gojq.TermTypeForeach:
		b.query(t.Foreach.Query, sc, inDef)
		for _, p := range t.Foreach.Patterns {
			b.pattern(p, sc, inDef)
		}
		b.query(t.Foreach.Start, sc, inDef)
		b.query(t.Foreach.Update, sc, inDef)
		b.query(t.Foreach.Extract, sc, inDef)
	case gojq.TermTypeLabel:
		b.query(t.Label.Body, sc, inDef)
	case gojq.TermTypeQuery:
		b.query(t.Query, sc, inDef)
	}
	for _, s := range t.SuffixList {
		b.index(s.Index, sc, inDef)
	}
}
