package expr

import (
	"encoding/binary"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/itchyny/gojq"
)

// Partial decoding. Most expressions read an event only through a few field
// paths (payload.args.command); building the rest of the event as Go values
// is wasted work. needs works out, conservatively, which paths the
// expression can observe; the event is then decoded along those paths only.
// An object on the way holds just the keys the next step reads, which is
// all the expression can see of it; anything else (a path's end, a value
// that is not an object) is decoded whole, so values and error messages are
// those of the full decode. Whenever the analysis meets a use of the event
// it cannot bound (`.`, `keys`, `tojson`, a def, a binding of the event...),
// the event is decoded whole.

// pathSet is a trie of field paths; full marks a path whose value is used
// as a whole.
type pathSet struct {
	full bool
	kids map[string]*pathSet
}

func (p *pathSet) add(names []string) {
	for _, n := range names {
		if p.full {
			return
		}
		if p.kids == nil {
			p.kids = map[string]*pathSet{}
		}
		k := p.kids[n]
		if k == nil {
			k = &pathSet{}
			p.kids[n] = k
		}
		p = k
	}
	p.full = true
	p.kids = nil
}

// inputAnalysis walks a rewritten query; event says whether the input of
// the part being walked may be the event itself.
type inputAnalysis struct {
	lib   *Library // named filters: a call of one may read anything
	paths pathSet
	whole bool // the event must be decoded whole
}

// needs returns the paths q reads of its input, or nil if it needs the
// whole event. lib is the library q is compiled with.
func needs(q *gojq.Query, lib *Library) *pathSet {
	a := &inputAnalysis{lib: lib}
	a.query(q, true)
	if a.whole {
		return nil
	}
	return &a.paths
}

// query walks q and reports whether its output may be its input (or hold
// it), which matters when q's input is the event.
func (a *inputAnalysis) query(q *gojq.Query, event bool) bool {
	if q == nil || a.whole || !event {
		return false
	}
	if len(q.FuncDefs) > 0 || len(q.Imports) > 0 {
		a.whole = true
		return true
	}
	if q.Term != nil {
		return a.term(q.Term)
	}
	switch q.Op {
	case gojq.OpPipe:
		l := a.query(q.Left, true)
		if len(q.Patterns) > 0 {
			if l {
				a.whole = true // a variable would hold the event
			}
			return a.query(q.Right, true)
		}
		return a.query(q.Right, l)
	case gojq.OpComma, gojq.OpAlt:
		l := a.query(q.Left, true)
		r := a.query(q.Right, true)
		return l || r
	case gojq.OpAnd, gojq.OpOr:
		a.query(q.Left, true)
		a.query(q.Right, true)
		return false // a boolean; an object's truth does not depend on its keys
	case gojq.OpEq, gojq.OpNe, gojq.OpLt, gojq.OpLe, gojq.OpGt, gojq.OpGe,
		gojq.OpAdd, gojq.OpSub, gojq.OpMul, gojq.OpDiv, gojq.OpMod:
		if a.query(q.Left, true) || a.query(q.Right, true) {
			a.whole = true // the event compared, merged or in a message
		}
		return false
	}
	a.whole = true // assignments and updates rebuild the event
	return true
}

// sameInput lists builtins that apply their arguments to their input and
// do not look at the input themselves; the value says whether their output
// may be the input (argument index, -1: never, -2: always).
var sameInput = map[string]int{
	"select/1": -2, "error/1": -1, "isempty/1": -1, "first/1": 0, "last/1": 0, "limit/2": 1,
}

// inputFree lists builtins of no arguments that ignore their input, or see
// only its truth (not: an event is always an object, always true).
var inputFree = map[string]bool{"empty": true, "not": true, "now": true, "env": true, "input_filename": true}

// term walks a term whose input may be the event.
func (a *inputAnalysis) term(t *gojq.Term) bool {
	var ret bool
	switch t.Type {
	case gojq.TermTypeIndex:
		if !a.path(t) {
			return true
		}
		a.below(t)
		return false
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber, gojq.TermTypeBreak,
		gojq.TermTypeString, gojq.TermTypeArray, gojq.TermTypeUnary:
		a.below(t)
		return false
	case gojq.TermTypeFormat:
		if t.Str == nil {
			a.whole = true // @csv and friends format the input
			return true
		}
		a.below(t)
		return false
	case gojq.TermTypeObject:
		if !a.shortMembers(t.Object) {
			return true
		}
		a.below(t)
		return false
	case gojq.TermTypeFunc:
		ret = a.call(t.Func)
	case gojq.TermTypeIf:
		ret = a.branches(t.If)
	case gojq.TermTypeTry:
		ret = a.query(t.Try.Body, true)
		if t.Try.Catch != nil {
			a.whole = true // the catch sees an error message, which may show the event
			return true
		}
	case gojq.TermTypeLabel:
		ret = a.query(t.Label.Body, true)
	case gojq.TermTypeQuery:
		ret = a.query(t.Query, true)
	default: // ., .., reduce, foreach
		a.whole = true
		return true
	}
	if len(t.SuffixList) == 0 {
		return ret
	}
	// (expr).x, f[0]: the suffixes read the term's output.
	for _, s := range t.SuffixList {
		if s.Index != nil {
			a.below(s.Index)
		}
	}
	if ret {
		a.whole = true
	}
	return false
}

// below walks the parts directly below p, each on p's input: one whose
// output may hold the event uses it whole (in a string, a constructed
// value, a computed key).
func (a *inputAnalysis) below(p part) {
	eachPart(p, func(c part, _ input) {
		var held bool
		switch c := c.(type) {
		case *gojq.Query:
			held = a.query(c, true)
		case *gojq.Term:
			held = a.term(c)
		case *gojq.Index:
			a.below(c)
		default:
			held = true
		}
		if held {
			a.whole = true
		}
	})
}

// path adds the field path an index term reads: with a computed key or a
// step that is not a name, its names as far as they go. It returns false,
// having marked the event whole, when even the first step is not a name.
func (a *inputAnalysis) path(t *gojq.Term) bool {
	names := indexPrefix(t)
	if names == nil {
		a.whole = true
		return false
	}
	a.paths.add(names)
	return true
}

// shortMembers adds the paths an object's members without a value read
// ({kind}, {"kind"}); it returns false, having marked the event whole, for
// one whose key is computed.
func (a *inputAnalysis) shortMembers(o *gojq.Object) bool {
	for _, kv := range o.KeyVals {
		switch {
		case kv.Val == nil && kv.Key != "" && kv.Key[0] != '$':
			a.paths.add([]string{kv.Key}) // {kind}
		case kv.Val == nil && kv.KeyString != nil && kv.KeyString.Queries == nil:
			a.paths.add([]string{kv.KeyString.Str})
		case kv.Val == nil && kv.Key == "":
			a.whole = true
			return false
		}
	}
	return true
}

// call walks a call whose input may be the event.
func (a *inputAnalysis) call(f *gojq.Func) bool {
	switch {
	case len(f.Name) > 0 && f.Name[0] == '$':
		return false
	case a.lib.lookup(f.Name, len(f.Args)) != nil:
		// A named filter, which may hide a builtin of the lists
		// below (def first(f): ...): its body may read any field.
		a.whole = true
		return true
	case len(f.Args) == 0 && inputFree[f.Name]:
		return false
	}
	key := f.Name + "/" + string(rune('0'+len(f.Args)))
	r, ok := sameInput[key]
	if !ok || len(f.Args) > 9 {
		a.whole = true
		return true
	}
	ret := r == -2
	for i, arg := range f.Args {
		if a.query(arg, true) && r == i {
			ret = true
		}
	}
	return ret
}

// branches walks an if whose input may be the event: its output is a
// branch's, or its input where there is no else.
func (a *inputAnalysis) branches(i *gojq.If) bool {
	a.query(i.Cond, true)
	ret := a.query(i.Then, true)
	for _, e := range i.Elif {
		a.query(e.Cond, true)
		ret = a.query(e.Then, true) || ret
	}
	if i.Else == nil {
		return true
	}
	return a.query(i.Else, true) || ret
}

// frozen is a pathSet as slices, quicker to walk per member.
type frozen struct {
	full  bool
	names []string
	subs  []*frozen
}

func (p *pathSet) freeze() *frozen {
	f := &frozen{full: p.full}
	for name, sub := range p.kids {
		f.names = append(f.names, name)
		f.subs = append(f.subs, sub.freeze())
	}
	return f
}

// partialDecoder decodes the top level of a line along a frozen path set,
// validating it in the same pass. It also remembers verdicts: gojq's answer
// depends only on the raw bytes of the members it reads, and in an event
// stream those repeat (kinds, types, tool names, missing fields), so a
// verdict is looked up by them before gojq runs. Expressions that are not
// pure functions of their input (now, input, debug...) are never cached.
type partialDecoder struct {
	paths *frozen
	vals  [][]byte
	found []bool
	fn    func(key, value []byte)

	cache   map[string]cached
	key     []byte
	keyOK   bool
	lookups int
	hits    int
}

type cached struct {
	ok  bool
	err error
}

const (
	cacheKeyMax  = 256  // longer member values are not worth remembering
	cacheEntries = 4096 // then start afresh
)

func newPartialDecoder(paths *frozen, cache bool) *partialDecoder {
	d := &partialDecoder{paths: paths, vals: make([][]byte, len(paths.names)), found: make([]bool, len(paths.names))}
	d.fn = func(key, value []byte) {
		for i, name := range d.paths.names {
			if jsonscan.KeyIs(key, name) {
				d.vals[i] = value
				d.found[i] = true
			}
		}
	}
	if cache {
		d.cache = map[string]cached{}
	}
	return d
}

// scan validates line as jsonscan.Members does and finds the members the
// expression reads.
func (d *partialDecoder) scan(line []byte) error {
	clear(d.found)
	return jsonscan.Members(line, d.fn)
}

// lookup returns the remembered verdict for the members scan found.
func (d *partialDecoder) lookup() (cached, bool) {
	d.keyOK = false
	if d.cache == nil {
		return cached{}, false
	}
	d.key = d.key[:0]
	for i, v := range d.vals {
		if !d.found[i] {
			d.key = append(d.key, 0xff) // never starts a JSON value
			continue
		}
		d.key = binary.AppendUvarint(d.key, uint64(len(v)))
		d.key = append(d.key, v...)
		if len(d.key) > cacheKeyMax {
			return cached{}, false
		}
	}
	d.keyOK = true
	d.lookups++
	c, ok := d.cache[string(d.key)]
	if ok {
		d.hits++
	}
	if d.lookups == 4*cacheEntries && d.hits < d.lookups/8 {
		d.cache = nil // the values do not repeat: stop paying for the lookups
	}
	return c, ok
}

// store remembers the verdict for the key lookup built.
func (d *partialDecoder) store(ok bool, err error) {
	if !d.keyOK || d.cache == nil {
		return
	}
	if len(d.cache) >= cacheEntries {
		clear(d.cache)
	}
	d.cache[string(d.key)] = cached{ok, err}
}

// value is the partial event of the members scan found.
func (d *partialDecoder) value() any {
	m := make(map[string]any, len(d.paths.names))
	for i, name := range d.paths.names {
		if d.found[i] {
			m[name] = decodeAlong(d.vals[i], d.paths.subs[i])
		}
	}
	return m
}

// impure names the builtins whose answer is not a function of the input
// alone; an expression whose text mentions one is never cached.
var impure = []string{"now", "input", "debug", "stderr", "halt"}

func pure(texts ...string) bool {
	for _, t := range texts {
		for _, w := range impure {
			if strings.Contains(t, w) {
				return false
			}
		}
	}
	return true
}

// decodeAlong decodes a valid value, whole or along p.
func decodeAlong(value []byte, p *frozen) any {
	if p.full || jsonscan.KindOf(value) != jsonscan.Object {
		return Decode(value)
	}
	m := make(map[string]any, len(p.names))
	for i, name := range p.names {
		if v, ok := jsonscan.Lookup(value, name); ok {
			m[name] = decodeAlong(v, p.subs[i])
		}
	}
	return m
}
