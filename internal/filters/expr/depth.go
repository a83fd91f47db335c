package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
)

// maxDepth bounds how deep calls of the expression's own defs may nest on
// one event. gojq has no such bound: `def f: 1+f; f` grows its stack until
// the process dies. Deeper than this, the event's evaluation fails with an
// error, like any other evaluation error.
const maxDepth = 10000

// maxNesting bounds how deep an expression's syntax tree may nest (every
// bracket, call and pipe is a level or two). gojq parses any depth, but
// its compiler, like the walkers here, recurses once a level: 500,000
// nested [ overflow the stack and kill the process.
const maxNesting = 10000

// checkNesting refuses a tree nested deeper than maxNesting. It walks the
// tree with a stack of its own, so that it cannot overflow where the
// recursive walks would.
func checkNesting(q *gojq.Query) error {
	type level struct {
		p     part
		depth int
	}
	stack := []level{{q, 1}}
	for len(stack) > 0 {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if l.depth > maxNesting {
			return fmt.Errorf("expression nested too deeply (more than %d levels)", maxNesting)
		}
		eachPart(l.p, func(child part, _ input) {
			stack = append(stack, level{child, l.depth + 1})
		})
	}
	return nil
}

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
	b.visit(q, nil, false)
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

// visit bounds the defs of p and of the parts below it, and passes the
// depth in their calls; inDef says whether p is inside a def's body, where
// the depth parameter is bound.
func (b *depthBounder) visit(p part, sc *depthScope, inDef bool) {
	if fd, ok := p.(*gojq.FuncDef); ok {
		for _, a := range fd.Args {
			sc = &depthScope{name: strings.TrimPrefix(a, "$"), parent: sc}
		}
		inDef = true
	}
	eachPart(p, func(c part, _ input) {
		if fd, ok := c.(*gojq.FuncDef); ok {
			sc = &depthScope{name: fd.Name, arity: len(fd.Args), user: true, parent: sc}
		}
		b.visit(c, sc, inDef)
	})
	switch p := p.(type) {
	case *gojq.FuncDef:
		guard(p)
	case *gojq.Term:
		if p.Type == gojq.TermTypeFunc && sc.user0(p.Func.Name, len(p.Func.Args)) {
			passDepth(p.Func, inDef)
		}
	}
}

// guard renames fd and gives it the depth parameter, and makes its body
// raise an error past maxDepth.
func guard(fd *gojq.FuncDef) {
	name := fd.Name
	fd.Name += depthSuffix // an arity of its own might hide another def
	fd.Args = append(fd.Args, depthVar)
	guarded, err := gojq.Parse(`if ` + depthVar + ` > ` + strconv.Itoa(maxDepth) + ` then ` + tooDeep + `(` +
		strconv.Quote(name) + `) else . end`)
	if err != nil {
		panic(err)
	}
	guarded.Term.If.Else = fd.Body
	fd.Body = guarded
}

// passDepth makes f, a call of a def guard renamed, call it by its new name
// with the caller's depth plus one (0 outside any def).
func passDepth(f *gojq.Func, inDef bool) {
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
