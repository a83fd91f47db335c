package expr

import "github.com/itchyny/gojq"

// A part is a node of gojq's syntax tree that the walkers over it (the
// shorthand's rewriter, the depth bound, the partial-decoding analysis)
// descend into: a *gojq.Query, *gojq.FuncDef, *gojq.Term, *gojq.Pattern or
// *gojq.Index. What lies between them (a string's interpolations, an
// object's members, an if's branches, a suffix) is walked through.
type part any

// input says what a part is evaluated on, next to the part above it.
type input uint8

const (
	inputSame  input = iota // the input of the part above
	inputArg                // an argument of a call: whatever the function applies it to
	inputOther              // another value: what a pipe's left side yields, the value an update changes, the error a catch sees, the state of a reduce or foreach; for a def, its caller's input
)

// eachPart calls fn with each part directly below p, in order, and what it
// is evaluated on. It is the one place that knows where gojq's syntax tree
// holds queries: a walker says what it does at a part and leaves the rest
// to eachPart. A query's defs come first (each is in scope in its own body
// and in everything after it), then its term, its left and right sides and
// its patterns.
func eachPart(p part, fn func(child part, in input)) {
	switch p := p.(type) {
	case *gojq.Query:
		queryParts(p, fn)
	case *gojq.FuncDef:
		someQuery(fn, p.Body, inputSame)
	case *gojq.Term:
		termParts(p, fn)
		for _, s := range p.SuffixList {
			someIndex(fn, s.Index)
		}
	case *gojq.Pattern:
		for _, e := range p.Array {
			fn(e, inputSame)
		}
		for _, o := range p.Object {
			someQuery(fn, o.KeyQuery, inputSame)
			someString(fn, o.KeyString)
			if o.Val != nil {
				fn(o.Val, inputSame)
			}
		}
	case *gojq.Index:
		someString(fn, p.Str)
		someQuery(fn, p.Start, inputSame)
		someQuery(fn, p.End, inputSame)
	}
}

func queryParts(q *gojq.Query, fn func(part, input)) {
	for _, fd := range q.FuncDefs {
		fn(fd, inputOther)
	}
	if q.Term != nil {
		fn(q.Term, inputSame)
	}
	someQuery(fn, q.Left, inputSame)
	right := inputSame
	switch q.Op {
	case gojq.OpPipe:
		// A binding (`kind as $k | ...`) keeps the input; a plain pipe
		// changes it.
		if len(q.Patterns) == 0 {
			right = inputOther
		}
	case gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul,
		gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		right = inputOther
	}
	someQuery(fn, q.Right, right)
	for _, p := range q.Patterns {
		fn(p, inputSame)
	}
}

// termParts calls fn with the parts of t but for its suffixes.
func termParts(t *gojq.Term, fn func(part, input)) {
	switch t.Type {
	case gojq.TermTypeIndex:
		someIndex(fn, t.Index)
	case gojq.TermTypeFunc:
		for _, a := range t.Func.Args {
			fn(a, inputArg)
		}
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			someString(fn, kv.KeyString)
			someQuery(fn, kv.KeyQuery, inputSame)
			someQuery(fn, kv.Val, inputSame)
		}
	case gojq.TermTypeArray:
		someQuery(fn, t.Array.Query, inputSame)
	case gojq.TermTypeUnary:
		fn(t.Unary.Term, inputSame)
	case gojq.TermTypeFormat, gojq.TermTypeString:
		someString(fn, t.Str)
	case gojq.TermTypeIf:
		someQuery(fn, t.If.Cond, inputSame)
		someQuery(fn, t.If.Then, inputSame)
		for _, e := range t.If.Elif {
			someQuery(fn, e.Cond, inputSame)
			someQuery(fn, e.Then, inputSame)
		}
		someQuery(fn, t.If.Else, inputSame)
	case gojq.TermTypeTry:
		someQuery(fn, t.Try.Body, inputSame)
		someQuery(fn, t.Try.Catch, inputOther)
	case gojq.TermTypeReduce:
		loopParts(fn, t.Reduce.Query, t.Reduce.Patterns, t.Reduce.Start, t.Reduce.Update, nil)
	case gojq.TermTypeForeach:
		loopParts(fn, t.Foreach.Query, t.Foreach.Patterns, t.Foreach.Start, t.Foreach.Update, t.Foreach.Extract)
	case gojq.TermTypeLabel:
		someQuery(fn, t.Label.Body, inputSame)
	case gojq.TermTypeQuery:
		someQuery(fn, t.Query, inputSame)
	}
}

// loopParts calls fn with the parts of a reduce or foreach: what it runs
// over, its patterns and its start see its input, its update and extract
// the state.
func loopParts(fn func(part, input), over *gojq.Query, patterns []*gojq.Pattern, start, update, extract *gojq.Query) {
	someQuery(fn, over, inputSame)
	for _, p := range patterns {
		fn(p, inputSame)
	}
	someQuery(fn, start, inputSame)
	someQuery(fn, update, inputOther)
	someQuery(fn, extract, inputOther)
}

// someQuery, someString and someIndex call fn with what is there: gojq
// leaves an absent part nil.
func someQuery(fn func(part, input), q *gojq.Query, in input) {
	if q != nil {
		fn(q, in)
	}
}

func someString(fn func(part, input), s *gojq.String) {
	if s != nil {
		for _, q := range s.Queries {
			fn(q, inputSame)
		}
	}
}

func someIndex(fn func(part, input), ix *gojq.Index) {
	if ix != nil {
		fn(ix, inputSame)
	}
}
