package expr

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evtools/evtools/pkg/jsonscan"
	"github.com/itchyny/gojq"
)

// The fast path decides expressions made of field paths (.a.b), scalar
// constants, the comparisons == != < <= > >=, and, or, `| not`,
// `| IN(constants)`, `| startswith(c)`, `| endswith(c)`, `| test(re)` and
// `| test(re; flags)` with constant strings (after `| strings` too), a
// top-level select(...),
// named filters and $variables
// standing for such things, straight from the raw line: one validating pass
// over the line that also reads the second level (jsonscan.Nested, so
// payload.tool costs no second scan) and Lookups below it, no Go value
// built. Whatever it cannot decide exactly (a path through something that
// is neither an object nor null, where gojq raises an error) it hands to
// gojq, so its answers are gojq's by construction.

// verdict is what the fast path says about one line.
type verdict uint8

const (
	no verdict = iota
	yes
	bail  // undecided: ask gojq
	empty // no output at all (`strings` of a non-string): not selected, and not false either
)

type nodeOp uint8

const (
	nPath  nodeOp = iota // a field path: a value
	nConst               // a constant: a value
	nCmp                 // l op r, l a path, r a constant
	nAnd
	nOr
	nNot
	nStr // a string test of a path: l | startswith(c), endswith(c), test(re)
)

// strTest is the builtin an nStr node applies.
type strTest uint8

const (
	tStarts strTest = iota
	tEnds
	tRegexp
)

type node struct {
	op    nodeOp
	cmp   gojq.Operator
	slot  int      // nPath: index of the top-level key
	slot2 int      // nPath: index of the second key in fastProg.second, or -1
	rest  []string // nPath: keys below the top level
	c     constant // nConst, and the constant of nCmp
	l, r  *node
	test  strTest        // nStr
	re    *regexp.Regexp // nStr with tRegexp
	only  bool           // nStr behind `strings`: a non-string yields nothing
}

// constant is a scalar with its jq type order (null 0, false 1, true 2,
// number 3, string 4) and, for numbers, gojq's value.
type constant struct {
	rank int
	str  string
	num  any
}

type fastProg struct {
	root   *node
	top    []string // top-level keys the paths start with
	second []member // second keys of the paths, read in the same pass
}

// member names the key name inside the object at top-level key top[top].
type member struct {
	top  int
	name string
}

// fastState is the per-line scratch space, made once per Filter.
type fastState struct {
	vals  [][]byte
	found []bool
	fn    func(key, value []byte)
	buf   []byte
	// Second-level values: pend holds what the scan saw inside the current
	// top-level member, vals2 what the last member of that name held (the
	// last duplicate wins at either level, as in gojq).
	vals2, pend2   [][]byte
	found2, pendOK []bool
	fn2            func(parent, key, value []byte)
}

func (p *fastProg) newState() *fastState {
	st := &fastState{vals: make([][]byte, len(p.top)), found: make([]bool, len(p.top))}
	top, second := p.top, p.second
	st.fn = func(key, value []byte) {
		for i, name := range top {
			if jsonscan.KeyIs(key, name) {
				st.vals[i] = value
				st.found[i] = true
				for j, m := range second {
					if m.top == i {
						st.vals2[j], st.found2[j] = st.pend2[j], st.pendOK[j]
						st.pendOK[j] = false
					}
				}
			}
		}
	}
	if len(second) == 0 {
		return st
	}
	st.vals2, st.pend2 = make([][]byte, len(second)), make([][]byte, len(second))
	st.found2, st.pendOK = make([]bool, len(second)), make([]bool, len(second))
	st.fn2 = func(parent, key, value []byte) {
		for j, m := range second {
			if jsonscan.KeyIs(key, m.name) && jsonscan.KeyIs(parent, top[m.top]) {
				st.pend2[j] = value
				st.pendOK[j] = true
			}
		}
	}
	return st
}

// eval validates line and decides it; err is set when line is not a JSON
// object.
func (p *fastProg) eval(st *fastState, line []byte) (verdict, error) {
	clear(st.found)
	if st.fn2 == nil {
		if err := jsonscan.Members(line, st.fn); err != nil {
			return no, err
		}
		return p.truth(st, p.root), nil
	}
	for j := range st.found2 {
		st.found2[j], st.pendOK[j] = false, false
	}
	if err := jsonscan.Nested(line, st.fn, st.fn2); err != nil {
		return no, err
	}
	return p.truth(st, p.root), nil
}

func (p *fastProg) truth(st *fastState, n *node) verdict {
	switch n.op {
	case nPath:
		v, ok := p.path(st, n)
		if !ok {
			return bail
		}
		switch jsonscan.KindOf(v) {
		case jsonscan.Invalid, jsonscan.Null, jsonscan.False: // Invalid: missing
			return no
		}
		return yes
	case nConst:
		if n.c.rank <= 1 {
			return no
		}
		return yes
	case nAnd:
		l := p.truth(st, n.l)
		if l != yes {
			return l
		}
		return p.truth(st, n.r)
	case nOr:
		l := p.truth(st, n.l)
		if l != no {
			return l
		}
		return p.truth(st, n.r)
	case nNot:
		switch v := p.truth(st, n.l); v {
		case yes:
			return no
		case no:
			return yes
		default:
			return v // bail, or empty: `empty | not` is empty
		}
	case nStr:
		return p.stringTest(st, n)
	case nCmp:
		// The common case, decided here rather than in a call of its own.
		v, ok := p.path(st, n.l)
		if !ok {
			return bail
		}
		c, ok := st.compare(v, &n.r.c, n.cmp == gojq.OpEq || n.cmp == gojq.OpNe)
		if !ok {
			return bail
		}
		return verdictOf(holds(n.cmp, c))
	}
	return bail
}

// stringTest decides an nStr node: its path's string against the test.
func (p *fastProg) stringTest(st *fastState, n *node) verdict {
	v, ok := p.path(st, n.l)
	if !ok {
		return bail
	}
	if jsonscan.KindOf(v) != jsonscan.String {
		if n.only {
			return empty
		}
		return bail // gojq raises "cannot be applied to" on anything but a string
	}
	s, ok := st.text(v)
	if !ok {
		return bail
	}
	switch n.test {
	case tStarts:
		return verdictOf(bytes.HasPrefix(s, []byte(n.c.str)))
	case tEnds:
		return verdictOf(bytes.HasSuffix(s, []byte(n.c.str)))
	}
	return verdictOf(n.re.Match(s))
}

// holds reports whether op holds of two values that compare as c.
func holds(op gojq.Operator, c int) bool {
	switch op {
	case gojq.OpEq:
		return c == 0
	case gojq.OpNe:
		return c != 0
	case gojq.OpLt:
		return c < 0
	case gojq.OpLe:
		return c <= 0
	case gojq.OpGt:
		return c > 0
	case gojq.OpGe:
		return c >= 0
	}
	return false
}

func verdictOf(b bool) verdict {
	if b {
		return yes
	}
	return no
}

// path returns the raw value of a path, nil when it is null or missing;
// ok is false where gojq would raise an error (indexing a string, a number,
// a boolean or an array with a name).
func (p *fastProg) path(st *fastState, n *node) (v []byte, ok bool) {
	if !st.found[n.slot] {
		return nil, true
	}
	v = st.vals[n.slot]
	rest := n.rest
	if n.slot2 >= 0 && jsonscan.KindOf(v) == jsonscan.Object {
		// The scan read the second key already.
		if !st.found2[n.slot2] {
			return nil, true
		}
		v, rest = st.vals2[n.slot2], rest[1:]
	}
	for _, name := range rest {
		switch jsonscan.KindOf(v) {
		case jsonscan.Null:
			return nil, true
		case jsonscan.Object:
		default:
			return nil, false
		}
		v, ok = jsonscan.Lookup(v, name)
		if !ok {
			return nil, true
		}
	}
	return v, true
}

var kindRank = [...]int{
	jsonscan.Invalid: 0, // missing: null
	jsonscan.Null:    0,
	jsonscan.False:   1,
	jsonscan.True:    2,
	jsonscan.Number:  3,
	jsonscan.String:  4,
	jsonscan.Array:   5,
	jsonscan.Object:  6,
}

// compare orders the raw value v (nil for null) against c as gojq.Compare
// does. eq says only equality matters, which strings answer faster.
func (st *fastState) compare(v []byte, c *constant, eq bool) (int, bool) {
	k := jsonscan.KindOf(v)
	r := kindRank[k]
	if r != c.rank {
		if r < c.rank {
			return -1, true
		}
		return 1, true
	}
	switch k {
	case jsonscan.String:
		if eq {
			if jsonscan.StringEquals(v, c.str) {
				return 0, true
			}
			return 1, true
		}
		var ok bool
		st.buf, ok = jsonscan.Unquote(st.buf[:0], v)
		if !ok {
			return 0, false
		}
		return bytes.Compare(st.buf, []byte(c.str)), true
	case jsonscan.Number:
		return compareNumber(v, c.num), true
	}
	return 0, true // null, false, true: one value each
}

// text returns the string a raw JSON string value decodes to, as Decode
// gives it to gojq: the raw bytes themselves when they hold no escape and
// are valid UTF-8 (the common case), else the unquoted bytes, with invalid
// UTF-8 and lone surrogates as U+FFFD.
func (st *fastState) text(v []byte) ([]byte, bool) {
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s, true
	}
	var ok bool
	st.buf, ok = jsonscan.Unquote(st.buf[:0], v)
	return st.buf, ok
}

// compareNumber is gojq.Compare(json.Number(raw), c) without building the
// json.Number where the answer is plain: gojq reads an integer literal that
// fits an int as an int and a literal with '.', 'e' or 'E' as a float64,
// then compares int with int exactly and anything else as floats.
func compareNumber(raw []byte, c any) int {
	if i, ok := smallInt(raw); ok {
		switch c := c.(type) {
		case int:
			return cmp.Compare(i, c)
		case float64:
			return floatCompare(float64(i), c)
		}
	} else if bytes.ContainsAny(raw, ".eE") {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			switch c := c.(type) {
			case int:
				return floatCompare(f, float64(c))
			case float64:
				return floatCompare(f, c)
			}
		}
	}
	return gojq.Compare(json.Number(raw), c)
}

// smallInt parses an integer literal of at most 18 digits, which cannot
// overflow an int.
func smallInt(raw []byte) (int, bool) {
	s := raw
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// floatCompare orders floats as gojq does (NaN first).
func floatCompare(l, r float64) int {
	switch {
	case l < r || math.IsNaN(l):
		return -1
	case l == r:
		return 0
	}
	return 1
}

// fastCompiler builds a fastProg from a rewritten query.
type fastCompiler struct {
	lib    *Library
	top    []string
	second []member
	depth  int
}

// compileFast returns the fast program for q, or nil if q is not in the
// fast subset.
func compileFast(q *gojq.Query, lib *Library, vars map[string]any) *fastProg {
	fc := &fastCompiler{lib: lib}
	// A top-level select(f) passes exactly when f does: it yields the
	// event, an object, which is truthy.
	if q.Term != nil && q.Term.Type == gojq.TermTypeFunc && q.Term.Func.Name == "select" &&
		len(q.Term.Func.Args) == 1 && len(q.Term.SuffixList) == 0 && len(q.FuncDefs) == 0 &&
		lib.lookup("select", 1) == nil {
		q = q.Term.Func.Args[0]
	}
	env := map[string]constant{}
	for name, v := range vars {
		if c, ok := constOf(v); ok {
			env[name] = c
		}
	}
	n := fc.query(q, env, true)
	if n == nil {
		return nil
	}
	return &fastProg{root: n, top: fc.top, second: fc.second}
}

func constOf(v any) (constant, bool) {
	switch v := v.(type) {
	case nil:
		return constant{rank: 0}, true
	case bool:
		if v {
			return constant{rank: 2}, true
		}
		return constant{rank: 1}, true
	case string:
		return constant{rank: 4, str: v}, true
	case json.Number, int, float64, *big.Int:
		return constant{rank: 3, num: v}, true
	}
	return constant{}, false
}

// query compiles q; calls says whether named filters may be inlined (only
// from the user's expression, where the last def of a name is the one seen).
func (fc *fastCompiler) query(q *gojq.Query, env map[string]constant, calls bool) *node {
	if q == nil || len(q.FuncDefs) > 0 || len(q.Patterns) > 0 || len(q.Imports) > 0 || q.Meta != nil {
		return nil
	}
	if q.Term != nil {
		return fc.term(q.Term, env, calls)
	}
	switch q.Op {
	case gojq.OpAnd, gojq.OpOr:
		l := fc.query(q.Left, env, calls)
		r := fc.query(q.Right, env, calls)
		if l == nil || r == nil {
			return nil
		}
		op := nAnd
		if q.Op == gojq.OpOr {
			op = nOr
		}
		return &node{op: op, l: l, r: r}
	case gojq.OpEq, gojq.OpNe, gojq.OpLt, gojq.OpLe, gojq.OpGt, gojq.OpGe:
		return fc.comparison(q, env, calls)
	case gojq.OpPipe:
		return fc.pipe(q, env, calls)
	}
	return nil
}

// comparison compiles PATH op CONSTANT, either way round.
func (fc *fastCompiler) comparison(q *gojq.Query, env map[string]constant, calls bool) *node {
	l := fc.query(q.Left, env, calls)
	r := fc.query(q.Right, env, calls)
	if l == nil || r == nil {
		return nil
	}
	op := q.Op
	if l.op == nConst && r.op == nPath {
		l, r = r, l
		op = mirror(op)
	}
	if l.op != nPath || r.op != nConst {
		return nil
	}
	return &node{op: nCmp, cmp: op, l: l, r: r}
}

// pipe compiles X | not, PATH | IN(constants), PATH | startswith(c),
// endswith(c), test(re[; flags]), and those behind `strings`.
func (fc *fastCompiler) pipe(q *gojq.Query, env map[string]constant, calls bool) *node {
	if n := fc.stringsPipe(q, env, calls); n != nil {
		return n
	}
	l := fc.query(q.Left, env, calls)
	if l == nil || q.Right == nil || q.Right.Term == nil || q.Right.Term.Type != gojq.TermTypeFunc ||
		len(q.Right.Term.SuffixList) > 0 || len(q.Right.FuncDefs) > 0 {
		return nil
	}
	f := q.Right.Term.Func
	if fc.lib.lookup(f.Name, len(f.Args)) != nil {
		return nil // a library def hides the builtin
	}
	switch {
	case f.Name == "not" && len(f.Args) == 0:
		return &node{op: nNot, l: l}
	case l.op != nPath:
		return nil
	case f.Name == "IN" && len(f.Args) == 1:
		return fc.in(l, f.Args[0], env, calls)
	case (f.Name == "startswith" || f.Name == "endswith") && len(f.Args) == 1:
		c := fc.query(f.Args[0], env, calls)
		if c == nil || c.op != nConst || c.c.rank != 4 {
			return nil // gojq raises an error on a non-string argument
		}
		t := tStarts
		if f.Name == "endswith" {
			t = tEnds
		}
		return &node{op: nStr, l: l, c: c.c, test: t}
	case f.Name == "test" && (len(f.Args) == 1 || len(f.Args) == 2):
		return fc.test(l, f.Args, env, calls)
	}
	return nil
}

// in compiles PATH | IN(s): any output of s equals the input.
func (fc *fastCompiler) in(path *node, set *gojq.Query, env map[string]constant, calls bool) *node {
	var alts []*gojq.Query
	if !commaList(set, &alts) {
		return nil
	}
	var or *node
	for _, a := range alts {
		c := fc.query(a, env, calls)
		if c == nil || c.op != nConst {
			return nil
		}
		eq := &node{op: nCmp, cmp: gojq.OpEq, l: path, r: c}
		if or == nil {
			or = eq
		} else {
			or = &node{op: nOr, l: or, r: eq}
		}
	}
	return or
}

// test compiles PATH | test(re) and test(re; flags) as gojq compiles them
// (compileRegexp): Go's regexp, "i" as (?i), "m" as (?s), "g" ignored by
// test.
func (fc *fastCompiler) test(path *node, args []*gojq.Query, env map[string]constant, calls bool) *node {
	re := fc.query(args[0], env, calls)
	if re == nil || re.op != nConst || re.c.rank != 4 {
		return nil
	}
	src := re.c.str
	if len(args) == 2 {
		fl := fc.query(args[1], env, calls)
		if fl == nil || fl.op != nConst || (fl.c.rank != 4 && fl.c.rank != 0) {
			return nil
		}
		flags := fl.c.str
		if strings.Trim(flags, "gim") != "" {
			return nil // gojq raises an error
		}
		if strings.ContainsRune(flags, 'i') {
			src = "(?i)" + src
		}
		if strings.ContainsRune(flags, 'm') {
			src = "(?s)" + src
		}
	}
	rx, err := regexp.Compile(src)
	if err != nil {
		return nil // gojq raises an error
	}
	return &node{op: nStr, l: path, test: tRegexp, re: rx}
}

// stringsPipe compiles PATH | strings | TEST, TEST a string test: `strings`
// passes a string on and yields nothing for anything else, and nothing
// stays nothing through the test and through and, or and not around it.
func (fc *fastCompiler) stringsPipe(q *gojq.Query, env map[string]constant, calls bool) *node {
	r := q.Right
	if r == nil || r.Op != gojq.OpPipe || len(r.FuncDefs) > 0 || r.Left == nil || r.Left.Term == nil ||
		r.Left.Term.Type != gojq.TermTypeFunc || len(r.Left.Term.SuffixList) > 0 || len(r.Left.FuncDefs) > 0 {
		return nil
	}
	f := r.Left.Term.Func
	if f.Name != "strings" || len(f.Args) > 0 || fc.lib.lookup("strings", 0) != nil {
		return nil
	}
	n := fc.query(&gojq.Query{Left: q.Left, Op: gojq.OpPipe, Right: r.Right}, env, calls)
	if n == nil || n.op != nStr {
		return nil
	}
	n.only = true
	return n
}

// commaList flattens a, b, c into its parts.
func commaList(q *gojq.Query, out *[]*gojq.Query) bool {
	if q.Op == gojq.OpComma && q.Term == nil && len(q.FuncDefs) == 0 {
		return commaList(q.Left, out) && commaList(q.Right, out)
	}
	*out = append(*out, q)
	return true
}

func mirror(op gojq.Operator) gojq.Operator {
	switch op {
	case gojq.OpLt:
		return gojq.OpGt
	case gojq.OpGt:
		return gojq.OpLt
	case gojq.OpLe:
		return gojq.OpGe
	case gojq.OpGe:
		return gojq.OpLe
	}
	return op
}

func (fc *fastCompiler) term(t *gojq.Term, env map[string]constant, calls bool) *node {
	switch t.Type {
	case gojq.TermTypeIndex:
		names, ok := indexNames(t)
		if !ok {
			return nil
		}
		return fc.pathNode(names)
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber, gojq.TermTypeUnary:
		if len(t.SuffixList) > 0 {
			return nil
		}
		if t.Type == gojq.TermTypeUnary && (t.Unary.Term.Type != gojq.TermTypeNumber || len(t.Unary.Term.SuffixList) > 0) {
			return nil
		}
		v, ok := constValue(t)
		if !ok {
			return nil
		}
		c, ok := constOf(v)
		if !ok {
			return nil
		}
		return &node{op: nConst, c: c}
	case gojq.TermTypeString:
		if len(t.SuffixList) > 0 || t.Str.Queries != nil {
			return nil
		}
		return &node{op: nConst, c: constant{rank: 4, str: t.Str.Str}}
	case gojq.TermTypeQuery:
		if len(t.SuffixList) > 0 {
			return nil
		}
		return fc.query(t.Query, env, calls)
	case gojq.TermTypeFunc:
		if len(t.SuffixList) > 0 {
			return nil
		}
		f := t.Func
		if len(f.Name) > 1 && f.Name[0] == '$' && len(f.Args) == 0 {
			c, ok := env[f.Name[1:]]
			if !ok {
				return nil
			}
			return &node{op: nConst, c: c}
		}
		d := fc.lib.lookup(f.Name, len(f.Args))
		if d == nil || !calls || fc.depth > 8 {
			return nil
		}
		inner := map[string]constant{}
		for i, p := range d.Params {
			if len(p) < 2 || p[0] != '$' {
				return nil // a filter parameter: not a constant
			}
			a := fc.query(f.Args[i], env, calls)
			if a == nil || a.op != nConst {
				return nil
			}
			inner[p[1:]] = a.c
		}
		fc.depth++
		defer func() { fc.depth-- }()
		return fc.query(d.def.Body, inner, false)
	}
	return nil
}

// indexNames returns the keys of a plain path .a.b."c".
func indexNames(t *gojq.Term) ([]string, bool) {
	names := indexPrefix(t)
	return names, names != nil && len(names) == 1+len(t.SuffixList)
}

// indexPrefix returns the keys of the index term t as far as they are
// names (.a.b of .a.b[0].c), or nil if its first step is not one.
func indexPrefix(t *gojq.Term) []string {
	name, ok := indexName(t.Index)
	if !ok {
		return nil
	}
	names := []string{name}
	for _, s := range t.SuffixList {
		if s.Index == nil || s.Iter || s.Optional {
			break
		}
		name, ok := indexName(s.Index)
		if !ok {
			break
		}
		names = append(names, name)
	}
	return names
}

func indexName(ix *gojq.Index) (string, bool) {
	switch {
	case ix == nil || ix.IsSlice || ix.End != nil:
		return "", false
	case ix.Name != "":
		return ix.Name, true
	case ix.Str != nil && ix.Str.Queries == nil && ix.Start == nil:
		return ix.Str.Str, true
	case ix.Start != nil && ix.Str == nil && ix.Start.Term != nil && ix.Start.Term.Type == gojq.TermTypeString &&
		ix.Start.Term.Str.Queries == nil && len(ix.Start.Term.SuffixList) == 0 && ix.Start.Left == nil &&
		len(ix.Start.FuncDefs) == 0:
		return ix.Start.Term.Str.Str, true
	}
	return "", false
}

func (fc *fastCompiler) pathNode(names []string) *node {
	slot := -1
	for i, n := range fc.top {
		if n == names[0] {
			slot = i
		}
	}
	if slot < 0 {
		slot = len(fc.top)
		fc.top = append(fc.top, names[0])
	}
	slot2 := -1
	if len(names) > 1 {
		for j, m := range fc.second {
			if m.top == slot && m.name == names[1] {
				slot2 = j
			}
		}
		if slot2 < 0 {
			slot2 = len(fc.second)
			fc.second = append(fc.second, member{top: slot, name: names[1]})
		}
	}
	return &node{op: nPath, slot: slot, slot2: slot2, rest: names[1:]}
}

// constValue asks gojq for the value of a constant term, so that numbers
// are exactly what gojq makes of them.
func constValue(t *gojq.Term) (any, bool) {
	code, err := gojq.Compile(&gojq.Query{Term: t})
	if err != nil {
		return nil, false
	}
	it := code.Run(nil)
	v, ok := it.Next()
	if !ok {
		return nil, false
	}
	if _, isErr := v.(error); isErr {
		return nil, false
	}
	if _, more := it.Next(); more {
		return nil, false
	}
	return v, true
}
