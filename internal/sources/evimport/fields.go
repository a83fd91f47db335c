package evimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/evtools/evtools/internal/core/jsontext"
	"github.com/evtools/evtools/pkg/jsonscan"
)

// fields decodes the members evimport reads from a line of a log, as the
// tables made from the record types (table.go) say, a kind of member by
// a method: encoding/json took three quarters of the time of a
// conversion, most of it checking again what jsonl and jsonscan.Check
// have checked, and copying values never read. The lines are checked JSON objects, so
// values are skipped with jsonscan.Each, unvalidated. What is read is as
// encoding/json would read it (strings decoded the same way, null leaves
// a member as it is, the last of two members of one name wins), and a
// member of the wrong type is reported in the same words (shapeError):
// "timestamp is a number, not a string". Keys are matched as they are
// spelled, not without regard to case as encoding/json does.
type fields struct {
	err  error
	path []string // the names of the objects above, for a message
	// hard: err ends the reading. A member of the wrong type does not:
	// encoding/json reads on and says the first, unless something worse
	// comes (a json.Number that is no number), which it says instead.
	hard  bool
	words map[string]string // what word decoded, by the JSON string
	// check: the next object walked is a line not checked yet, which
	// the walk validates as it goes (a worker's lines are checked so, in
	// one pass with their decoding, not in one pass each)
	check bool
	// inner holds the members of the checked line's object members,
	// found while it is checked (objs says whose are where, in line): an
	// object member of the line (message, a Codex payload) is then read
	// from them, not walked again. objs is emptied for each record.
	inner jsonscan.Inner
	line  []byte
	objs  []known
	// tape holds the containers deeper in the checked line (an array of
	// tool calls, the objects in them): read from it, not walked again
	tape jsonscan.Tape
	// blockErr is the first content block of the wrong shape, read when
	// its message ends: said unless a member of the line is wrong
	// (settle), as encoding/json, which reads content whole, says those
	blockErr error
	// skipTexts: the strings read that are no words are checked, not
	// decoded (the blocks of a pi message the converter reads itself)
	skipTexts bool
	// piBlocks is the room a pi message's blocks are read into, reused
	// from line to line: they are converted before the next is read
	piBlocks []piBlock
	// member is the decoder of a content block's members, whose errors
	// are said with the block's place (memberDecoder); owner is the
	// line's, whose check found what is plain
	member, owner *fields
}

// memberDecoder is d's decoder of a content block's members, made once:
// a decoder is large, and a message has blocks on most lines. Of no line
// (d nil: blocks read after their line, a Codex message's), it is one of
// lineless, which done hands back.
func (d *fields) memberDecoder() *fields {
	if d == nil {
		return lineless.Get().(*fields)
	}
	if d.member == nil {
		d.member = &fields{owner: d}
	}
	return d.member
}

// done hands back m, d's memberDecoder, when d is nil.
func (d *fields) done(m *fields) {
	if d == nil {
		lineless.Put(m)
	}
}

// lineless are the decoders of blocks read with no line: a decoder read
// by a table escapes to the heap (it is handed to the records' methods),
// 376 bytes for each list of blocks, where the hand decoders kept it on
// the stack.
var lineless = sync.Pool{New: func() any { return &fields{} }}

// settle makes a content block of the wrong shape the line's error, when
// nothing else is wrong with it.
func (d *fields) settle() {
	if d.err == nil {
		d.err = d.blockErr
	}
	d.blockErr = nil
}

// tapedMembers are the members of a line whose containers are read
// member by member (a Claude Code or pi message's content, a Claude Code
// progress line's data, a Gemini CLI message's tool calls, a Codex
// payload, an opencode tool part's state, whose output is then found
// plain by the check): those of the others (a Claude Code
// toolUseResult, often a whole file's lines) are not recorded on the
// tape, only checked.
var tapedMembers = []string{"message", "data", "toolCalls", "payload", "state"}

// known is an object member of the line and where its members are in
// inner.Spans.
type known struct {
	v        []byte
	from, to int
}

// canonical reports whether v, a string value of the line d checked
// last (or of any line, d nil), is spelled as jsontext writes its text
// (jsontext.Canonical): without a second look at a long one the check
// found plain (jsonscan.Tape.Plain), most of a log's tool outputs.
func (d *fields) canonical(v []byte) bool {
	return d.plain(v) || jsontext.Canonical(v)
}

// plain reports whether the check found v plain; false says nothing.
func (d *fields) plain(v []byte) bool {
	if d != nil && d.owner != nil {
		return d.owner.plain(v)
	}
	return d != nil && d.tape.Plain(d.line, v)
}

// each calls fn with every member of the object v, its key unescaped,
// until an error is noted.
func (d *fields) each(v []byte, fn func(k, v []byte)) { d.walk(v, fn, nil, nil) }

// eachIn is each reading every member into the record at p by its table
// tb: called directly, not through a closure made for each object.
func (d *fields) eachIn(v []byte, tb *table, p unsafe.Pointer) { d.walk(v, nil, tb, p) }

// walk is each with fn, or eachIn with tb and p when tb is set (which
// unescapes a key when it must). The members of an object on the tape
// are read in loops of their own, not through a closure, and those of
// the line checked read by its closure directly: a call less for each.
func (d *fields) walk(v []byte, fn func(k, v []byte), tb *table, p unsafe.Pointer) {
	if d.check {
		d.check = false
		if d.inner.Spans == nil {
			d.inner.Spans = make([]jsonscan.Span, 0, 256)
		}
		d.inner.Spans, d.inner.Full, d.inner.Deep, d.line = d.inner.Spans[:0], false, &d.tape, v
		d.tape.Keys, d.tape.NotePlain = tapedMembers, true
		seen := 0
		// what is wrong with the JSON is said before what is of the wrong
		// shape, as when the line was checked first
		if err := jsonscan.NestedSpans(v, func(k, v []byte) {
			from := seen
			seen = len(d.inner.Spans)
			if d.hard {
				return
			}
			if len(v) > 0 && v[0] == '{' && !d.inner.Full {
				d.objs = append(d.objs, known{v, from, seen})
			}
			if tb != nil {
				tb.read(d, k, v, p)
			} else {
				fn(unescapedKey(k), v)
			}
		}, &d.inner); err != nil {
			d.err = err
		}
		return
	}
	spans, ok := d.objSpans(v)
	switch {
	case !ok:
		jsonscan.Each(v, func(k, v []byte) bool {
			if tb != nil {
				tb.read(d, k, v, p)
			} else {
				fn(unescapedKey(k), v)
			}
			return !d.hard
		})
	case tb != nil:
		for _, sp := range spans {
			if tb.read(d, d.line[sp.KeyStart:sp.KeyEnd], d.line[sp.ValueStart:sp.ValueEnd], p); d.hard {
				return
			}
		}
	default:
		for _, sp := range spans {
			if fn(unescapedKey(d.line[sp.KeyStart:sp.KeyEnd]), d.line[sp.ValueStart:sp.ValueEnd]); d.hard {
				return
			}
		}
	}
}

// objSpans are the members of v, an object of the line checked, as the
// check found them (an object member of the line, or one on the tape).
func (d *fields) objSpans(v []byte) ([]jsonscan.Span, bool) {
	for _, o := range d.objs {
		if len(v) == len(o.v) && len(v) > 0 && &v[0] == &o.v[0] {
			return d.inner.Spans[o.from:o.to], true
		}
	}
	return d.tape.Container(d.line, v)
}

// unescapedKey is the raw key k of a member (as jsonscan gives it,
// between its quotes) as its name reads.
func unescapedKey(k []byte) []byte {
	if bytes.IndexByte(k, '\\') >= 0 {
		return unescape(k)
	}
	return k
}

// unescape is unescapedKey of a key with an escape.
func unescape(k []byte) []byte {
	k, _ = jsonscan.Unquote(nil, append(append([]byte{'"'}, k...), '"'))
	return k
}

// object reports whether v is an object to read member name from: null
// is not, and anything else but an object is a shape error.
func (d *fields) object(v []byte, name string) bool {
	return d.want(v, name, '{', "object")
}

// enter starts the decoding of a line's member name, whose value is v,
// when it is an object: the error and path of the line before are
// cleared, and the member's name is the first of the path of what its
// decoder finds wrong. It reports whether v is an object to decode.
func (d *fields) enter(v []byte, name string) bool {
	d.err, d.hard, d.path = nil, false, d.path[:0]
	if !d.object(v, name) {
		return false
	}
	d.path = append(d.path, name)
	return true
}

// array is object for an array.
func (d *fields) array(v []byte, name string) bool {
	return d.want(v, name, '[', "array")
}

func (d *fields) want(v []byte, name string, open byte, kind string) bool {
	if len(v) == 0 || v[0] == 'n' {
		return false
	}
	if v[0] != open {
		d.wrong(v, name, kind)
		return false
	}
	return true
}

// in reads the object v, member name of the one being read, with fn.
func (d *fields) in(v []byte, name string, fn func(k, v []byte)) {
	if !d.object(v, name) {
		return
	}
	d.path = append(d.path, name)
	d.each(v, fn)
	d.path = d.path[:len(d.path)-1]
}

// objects reads the array v, member name, of objects in one walk: start
// is called for each element, then member with each member of an object,
// its key as the line spells it, until it returns false (a null element
// has none; another value is of the wrong type), each walked once, not
// twice.
func (d *fields) objects(v []byte, name string, start func(), member func(k, v []byte) bool) {
	if !d.array(v, name) {
		return
	}
	d.path = append(d.path, name)
	first := func(first byte) {
		start()
		if first != '{' && first != 'n' {
			d.path = d.path[:len(d.path)-1]
			d.wrong([]byte{first}, name, "object")
			d.path = append(d.path, name)
		}
	}
	d.objectsOf(v, first, member)
	d.path = d.path[:len(d.path)-1]
}

// objectsOf is jsonscan.Objects on v: from the tape of the line d
// checked when v is on it, walked if not (or if d is nil).
func (d *fields) objectsOf(v []byte, start func(first byte), member func(k, v []byte) bool) {
	var elems []jsonscan.Span
	ok := false
	if d != nil {
		elems, ok = d.tape.Container(d.line, v)
	}
	if !ok {
		jsonscan.Objects(v, start, member)
		return
	}
	for _, e := range elems {
		ev := d.line[e.ValueStart:e.ValueEnd]
		start(ev[0])
		if ev[0] != '{' {
			continue
		}
		ms, _ := d.tape.Container(d.line, ev) // on it, as its array is
		for _, m := range ms {
			if !member(d.line[m.KeyStart:m.KeyEnd], d.line[m.ValueStart:m.ValueEnd]) {
				break // the rest of this object, as Objects does
			}
		}
	}
}

func (d *fields) wrong(v []byte, name, want string) {
	if d.err != nil {
		return
	}
	path := name
	if len(d.path) > 0 {
		path = strings.Join(d.path, ".") + "." + name
	}
	d.err = fmt.Errorf("%s is %s, not %s", path, a(kindOf(v)), a(want))
}

// a is the word with its indefinite article: "an object", "a string".
func a(word string) string {
	if strings.IndexByte("aeiou", word[0]) >= 0 {
		return "an " + word
	}
	return "a " + word
}

// kindOf is what encoding/json calls the JSON value v in a type error.
func kindOf(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// checkStr notes v, member name, when it is neither a string nor null:
// a member whose text is read later (or not at all) is checked alone.
func (d *fields) checkStr(v []byte, name string) {
	if len(v) > 0 && v[0] != '"' && v[0] != 'n' {
		d.wrong(v, name, "string")
	}
}

func (d *fields) str(v []byte, name string, dst *string) {
	if len(v) == 0 || v[0] == 'n' {
		return
	}
	if v[0] != '"' {
		d.wrong(v, name, "string")
		return
	}
	*dst = unquote(v)
}

// word is str for a member whose few values come back line after line
// (a type, a model, a session, a folder): each is decoded once.
func (d *fields) word(v []byte, name string, dst *string) {
	short := len(v) > 2 && len(v) <= 130 && v[0] == '"'
	if s, ok := d.words[string(v)]; ok && short {
		*dst = s
		return
	}
	d.str(v, name, dst)
	if short && d.err == nil {
		if d.words == nil || len(d.words) >= 512 {
			d.words = map[string]string{}
		}
		d.words[string(v)] = *dst
	}
}

// unquote is the JSON string v decoded; most need no unescaping, and are
// told so a word at a time (invalid UTF-8 is decoded, to U+FFFD).
func unquote(v []byte) string {
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	b, _ := jsonscan.Unquote(make([]byte, 0, len(s)), v)
	return string(b)
}

// errorMessage is the message of the error v, if v is an object whose
// message is a string, else otherwise; and whether v is an object.
func errorMessage(v []byte, otherwise string) (string, bool) {
	if len(v) == 0 || v[0] != '{' {
		return otherwise, false
	}
	if m, _ := jsonscan.Lookup(v, "message"); len(m) > 1 && m[0] == '"' {
		return unquote(m), true
	}
	return otherwise, true
}

func (d *fields) int(v []byte, name string, dst *int64) {
	if len(v) == 0 || v[0] == 'n' {
		return
	}
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		d.wrong(v, name, "number")
		return
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		d.badNumber(v, name)
		return
	}
	*dst = n
}

// badNumber notes a number that is no int64 (or float64), in the words
// of encoding/json: "input_tokens is a number 1.5, not a number".
func (d *fields) badNumber(v []byte, name string) {
	if d.err == nil {
		d.wrong(v, name, "number")
		d.err = errors.New(strings.Replace(d.err.Error(), " a number,", " a number "+string(v)+",", 1))
	}
}

func (d *fields) float(v []byte, name string, dst **float64) {
	if len(v) == 0 || v[0] == 'n' {
		return
	}
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		d.wrong(v, name, "number")
		return
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		d.badNumber(v, name)
		return
	}
	*dst = &f
}

func (d *fields) boolean(v []byte, name string, dst *bool) {
	if len(v) == 0 || v[0] == 'n' {
		return
	}
	if v[0] != 't' && v[0] != 'f' {
		d.wrong(v, name, "boolean")
		return
	}
	*dst = v[0] == 't'
}

// number reads a json.Number: a number, or a string that holds one.
func (d *fields) number(v []byte, name string, dst *json.Number) {
	if len(v) == 0 || v[0] == 'n' {
		return
	}
	s := string(v)
	if v[0] == '"' {
		s = unquote(v)
	} else if v[0] == '{' || v[0] == '[' || v[0] == 't' || v[0] == 'f' {
		d.wrong(v, name, "string")
		return
	}
	if !validNumber(s) {
		d.err, d.hard = fmt.Errorf("json: invalid number literal, trying to unmarshal %q into Number", v), true
		return
	}
	*dst = json.Number(s)
}

// validNumber reports whether s is a JSON number, as encoding/json
// requires of a json.Number's text ("00" and "+1" are not).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// decode decodes each record into a T by its table tb and hands it to
// fn; a record that is JSON but not of the shape its agent writes (a
// number where a string goes) is reported as bad.
func decode[T any](c *converter, tb recordTable[T], records []record, fn func(r record, v *T)) {
	d := c.takeFields()
	defer c.giveFields(d)
	decodeWith(c, d, tb, records, fn)
}

// takeFields is a decoder for a file's lines with the memory of the last
// file's (the check's notes, the tape, the words decoded), which
// giveFields hands back: a decoder's buffers grow with a file's longest
// lines, and a worker reads thousands of files.
func (c *converter) takeFields() *fields {
	d := c.fields
	c.fields = nil
	if d == nil {
		return &fields{}
	}
	return d
}

func (c *converter) giveFields(d *fields) { c.fields = d }

// decodeWith is decode with d, which fn may use to decode a member of the
// record further: an object member of a line checked as it was decoded
// is read from what the check found.
func decodeWith[T any](c *converter, d *fields, tb recordTable[T], records []record, fn func(r record, v *T)) {
	defer func(prev []byte) { c.rec = prev }(c.rec)
	// one record for every line, made anew: fn copies what it keeps of
	// it, never keeps it, and a record made for each line was most of
	// what a conversion allocated
	var v T
	for _, r := range records {
		v = *new(T)
		d.err, d.hard, d.path, d.check, d.objs, d.line, d.blockErr = nil, false, d.path[:0], r.unchecked, d.objs[:0], nil, nil
		tb.decodeLine(d, r.data, &v)
		if d.err != nil {
			c.bad(r, d.err)
			continue
		}
		c.rec = r.data // what skip notes the members of
		fn(r, &v)
	}
}

// blockWrong notes what is wrong with the content of message, member name
// of the object being read: with block i, when i >= 0 (what is
// "[1].type is a number, not a string"), else with the content itself.
func (d *fields) blockWrong(name string, i int, what string) {
	if d.blockErr != nil {
		return
	}
	path := strings.Join(append(d.path[:len(d.path):len(d.path)], name, "content"), ".")
	if i >= 0 {
		d.blockErr = fmt.Errorf("%s[%d]%s", path, i, what)
		return
	}
	d.blockErr = fmt.Errorf("%s %s", path, what)
}

// blockArray reports whether v, the content of the line's message
// member name, is a list of blocks to read: a string or null holds
// none, and another value is the line's error (blockWrong).
func (d *fields) blockArray(v []byte, name string) bool {
	if len(v) == 0 || v[0] == '"' || v[0] == 'n' {
		return false
	}
	if v[0] != '[' {
		d.blockWrong(name, -1, "is "+a(kindOf(v))+", not a string or an array")
		return false
	}
	return true
}

// readBlocks appends to bs the content blocks of the list v, read by
// tb in one walk (each block's members are read as its end is found),
// from the tape of line (nil: walked). When message is set, the blocks
// are those of the line's message member of that name: a block that is
// no object, or a member of the wrong type, is noted to line
// (blockWrong), and member, when set, is told of each member read (its
// index in tb, its value, the block's index).
func readBlocks[T any](line *fields, v []byte, message string, tb recordTable[T], bs []T, member func(i int, v []byte, at int)) []T {
	d := line.memberDecoder()
	defer line.done(d)
	line.objectsOf(v, func(first byte) {
		bs = append(bs, *new(T))
		if message != "" && first != '{' && first != 'n' {
			line.blockWrong(message, len(bs)-1, " is "+a(kindOf([]byte{first}))+", not an object")
		}
	}, func(k, v []byte) bool {
		i := tb.readIn(d, k, v, &bs[len(bs)-1])
		if d.err != nil {
			if message != "" {
				line.blockWrong(message, len(bs)-1, "."+d.err.Error())
			}
			d.err, d.hard = nil, false
		}
		if member != nil && message != "" {
			member(i, v, len(bs)-1)
		}
		return true
	})
	return bs
}

// textBlocks checks the list of text blocks v, member name of the
// object being read (a Codex message's {type, text}, a Gemini CLI
// message's parts): a list, each block an object whose members keys
// are strings; what is not is noted with its place
// ("payload.content[0].text is a number, not a string").
func (d *fields) textBlocks(v []byte, name string, keys ...string) {
	if !d.array(v, name) {
		return
	}
	i := 0
	jsonscan.Elements(v, func(e []byte) bool {
		at := fmt.Sprintf("%s[%d]", name, i)
		i++
		if e[0] != '{' {
			if e[0] != 'n' {
				d.wrong(e, at, "object")
			}
			return d.err == nil
		}
		d.path = append(d.path, at)
		jsonscan.Each(e, func(k, v []byte) bool {
			if k := string(unescapedKey(k)); slices.Contains(keys, k) {
				d.checkStr(v, k)
			}
			return d.err == nil
		})
		d.path = d.path[:len(d.path)-1]
		return d.err == nil
	})
}
