package evimport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"reflect"
	"strings"
	"unsafe"
)

// A record type's members read from its struct tags: a member's name is
// written once, in the tag, and the decoder of fields.go reads it by a
// table made from the type once, at start (tableFor; issue 31). Every
// source's lines are read so. encoding/json/v2 would read the types too,
// but took 2-3 times as long over a whole conversion; encoding/json
// stays the fuzz tests' oracle.
//
// A table reads as fast as the hand decoders it replaced, which named
// each member again in a switch: a key is found by a perfect hash of
// its words (read), in one probe and a few comparisons of words, where
// a switch compared it with a name after another; a key is looked up
// as the line spells it, unescaped only if it is no name; and the
// members of an object are read in loops, not through closures.
//
// The table knows the kinds of member the record types have: a string
// (tagged ev:"word" when its few values come back line after line: each
// is decoded once, fields.word), a *string that null clears, an int64, a
// *int64, a bool, a float64 or *float64, a json.Number, a
// json.RawMessage (kept as the line holds it), a record type (an object
// read into it), a pointer to one (read afresh, null clears it), a slice
// of them (an array of objects: null is a nil slice, [] an empty one),
// and a map of them by string (a value for each key). A type with
// another kind of member is refused at start.
//
// The ev tag says more of a member, in words separated by commas:
//
//	word          a string whose few values come back: decoded once each
//	object        a json.RawMessage that must be an object (or null);
//	string|array  one that must be either (the kinds joined by |)
//	copy          a json.RawMessage copied: the line is not kept
//	any           a record read afresh from an object, zeroed by any
//	              other value but null, which is no error (Claude
//	              Code's toolUseResult, of many shapes)
//	plain=F       a json.RawMessage whose bool field F notes that the
//	              line's check found it a plain string (fields.plain)
//	canonical=F   a string that, when spelled as jsontext writes it, is
//	              left undecoded, quoted, in the []byte field F
//	              (fields.canonical), else decoded (F nil)
type table struct {
	members []tableMember
	// slots finds a member by its name in one probe: a name's words
	// (keyHash) hashed by mul to the slot of the only member it can be,
	// which read then compares (a perfect hash, sought when the table is
	// made). A switch on names, as the hand decoders had, or a search of
	// the names of a length, cost a comparison for each name passed.
	slots []memberKey
	mul   uint64
	shift uint
}

// memberKey is a member's name as read compares it (its words, keyWords,
// and its length) and its index; an empty slot's matches no name (n 0 and
// a prefix no empty name has).
type memberKey struct {
	prefix, mid, suffix uint64
	n                   uint32
	i                   int32
}

// tableMember is a member of a record type and how it is read: by kind,
// in read's switch, with what the kind needs. Its readers are no func
// values: an indirect call leaks the record to the heap (escape analysis
// cannot see what it does with it), which made every Codex payload an
// allocation, and cost an indirect call a member.
type tableMember struct {
	// the name's words as find compares them (keyWords)
	prefix, mid, suffix uint64
	name                string
	off                 uintptr
	kind                memberKind
	// rawKind: the JSON kinds allowed (check set), said as want, copied,
	// its plainness noted at plainAt (plain set)
	check, copy, plain bool
	allowed            *[256]bool
	want               string
	// quotedKind: where the undecoded []byte goes; plainKind: the bool
	at uintptr
	// the table of a record member (a struct, a pointer to one, a slice
	// or map of them), and the type allocated or grown; of a map, an
	// array of one, which reflect.Copy moves in and out of the record (a
	// reflect.Value of the record's memory set by Value.Set would leak
	// the record to the heap)
	inner *table
	typ   reflect.Type
	after bool // ptrStructKind: the record reads more (afterMembers)
	// structKind tagged any: zero is the record's zero, an array of one
	any  bool
	zero reflect.Value
	// sliceKind: the size of an element, an empty slice's data, and
	// arrays of 1, 2, 4... 256 elements, which a slice grows into (those
	// of more are made as needed: the type of a large array costs its
	// making a walk of its every word)
	size   uintptr
	empty  unsafe.Pointer
	arrays []reflect.Type
	field  string // the Go field, for a reader that asks which was read
}

type memberKind uint8

const (
	strKind memberKind = iota
	wordKind
	intKind
	boolKind
	quotedKind
	rawKind
	numberKind
	floatKind
	ptrStrKind
	ptrIntKind
	ptrFloatKind
	ptrStructKind
	structKind
	sliceKind
	mapKind
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// afterMembers is a record type that reads more once its members are
// read (pi's and Claude Code's message, their content blocks): name is
// its member's name.
type afterMembers interface{ afterMembers(d *fields, name string) }

// tableOf is the table of the record type t (a struct), made with the
// tables of the record types its members hold.
func tableOf(t reflect.Type) *table {
	tb := &table{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if strings.ContainsAny(tag, `\"`) {
			// read looks a key up as the line spells it, and unescapes it
			// only if it is no name: a name is spelled without escapes
			panic(fmt.Sprintf("evimport: %s.%s: a member name with a backslash or quote", t, f.Name))
		}
		m := tableMember{name: tag, field: f.Name, off: f.Offset}
		m.prefix, m.mid, m.suffix = keyWords([]byte(tag))
		m.setKind(t, f)
		tb.members = append(tb.members, m)
	}
	tb.hash()
	return tb
}

// hash finds the multiplier and size of tb's slots that put each of its
// names in a slot of its own: the smallest size, from twice the names,
// found with one of a few hundred multipliers (forty names take 128
// slots or 256; the search costs less than a hundred microseconds).
// Two names that differ in the bytes keyWords leaves out alone (more
// than 24 bytes long) cannot be told apart by keyHash: a type with such
// names is refused.
func (tb *table) hash() {
	hs := make([]uint64, len(tb.members))
	for i, m := range tb.members {
		hs[i] = keyHash(m.prefix, m.mid, m.suffix, len(m.name))
	}
	rng := uint64(0x9E3779B97F4A7C15)
	for bits := bitsFor(len(tb.members)) + 1; bits <= 12; bits++ {
		var used [1 << 12 / 64]uint64
		for range 512 {
			rng ^= rng << 13 // xorshift: the same multipliers each run
			rng ^= rng >> 7
			rng ^= rng << 17
			mul, shift := rng|1, uint(64-bits)
			clear(used[:])
			ok := true
			for _, h := range hs {
				at := h * mul >> shift
				if used[at/64]&(1<<(at%64)) != 0 {
					ok = false
					break
				}
				used[at/64] |= 1 << (at % 64)
			}
			if !ok {
				continue
			}
			tb.slots, tb.mul, tb.shift = make([]memberKey, 1<<bits), mul, shift
			for i := range tb.slots {
				tb.slots[i].prefix = ^uint64(0)
			}
			for i, m := range tb.members {
				tb.slots[hs[i]*mul>>shift] = memberKey{m.prefix, m.mid, m.suffix, uint32(len(m.name)), int32(i)}
			}
			return
		}
	}
	panic(fmt.Sprintf("evimport: no perfect hash of the member names %q (two alike but in their middle?)", tb.names()))
}

// bitsFor is the bits of the smallest power of two not below n.
func bitsFor(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// keyHash mixes a name's words (keyWords) and length into one word,
// which a multiplication and a shift make a slot's index.
func keyHash(prefix, mid, suffix uint64, n int) uint64 {
	if n <= 8 {
		return prefix // a name of 8 bytes or fewer is its prefix
	}
	return prefix ^ bits.RotateLeft64(mid, 19) ^ bits.RotateLeft64(suffix, 41) ^ uint64(n)<<56
}

// keyWords are the words of a name that find compares: its first 8
// bytes (keyPrefix), and of a longer one its last 8 and second 8
// (longWords).
func keyWords(k []byte) (prefix, mid, suffix uint64) {
	if len(k) <= 8 {
		return keyPrefix(k), 0, 0
	}
	return longWords(k)
}

// longWords are keyWords of a name of more than 8 bytes: its first 8, of
// one of more than 16 its second 8 (mid), and its last 8, as numbers.
// Names alike in these and their length (both of more than 24 bytes)
// are told apart by the bytes between, compared as strings.
func longWords(k []byte) (prefix, mid, suffix uint64) {
	if len(k) > 16 {
		mid = binary.LittleEndian.Uint64(k[8:16])
	}
	return binary.LittleEndian.Uint64(k), mid, binary.LittleEndian.Uint64(k[len(k)-8:])
}

// member is the index of the member of Go field name, for a reader that
// asks which member read returned.
func (tb *table) member(field string) int {
	for i, m := range tb.members {
		if m.field == field {
			return i
		}
	}
	panic("evimport: no table member of field " + field)
}

// evTag is a member's ev tag, read.
type evTag struct {
	word, copy, any bool
	kinds           []string // object, string, array...: what it must be
	// plain=, canonical=: where their fields are (set: has them)
	plain, quoted     bool
	plainAt, quotedAt uintptr
}

func readTag(t reflect.Type, f reflect.StructField) evTag {
	var e evTag
	sibling := func(name string, want reflect.Type) uintptr {
		s, ok := t.FieldByName(name)
		if !ok || s.Type != want {
			panic(fmt.Sprintf("evimport: %s.%s: no field %s of type %s", t, f.Name, name, want))
		}
		return s.Offset
	}
	for _, w := range strings.Split(f.Tag.Get("ev"), ",") {
		switch k, v, _ := strings.Cut(w, "="); k {
		case "":
		case "word":
			e.word = true
		case "copy":
			e.copy = true
		case "any":
			e.any = true
		case "plain":
			e.plain, e.plainAt = true, sibling(v, reflect.TypeFor[bool]())
		case "canonical":
			e.quoted, e.quotedAt = true, sibling(v, reflect.TypeFor[[]byte]())
		default:
			e.kinds = strings.Split(w, "|")
		}
	}
	return e
}

// setKind sets how the member f of t is read: what it does is what the
// hand decoders fields.go had did for a member of its kind.
func (m *tableMember) setKind(t reflect.Type, f reflect.StructField) {
	ft, tag := f.Type, readTag(t, f)
	switch {
	case ft == rawMessageType:
		m.setRaw(tag)
	case ft == numberType:
		m.kind = numberKind
	case ft.Kind() == reflect.String && tag.word:
		m.kind = wordKind
	case ft.Kind() == reflect.String && tag.quoted:
		m.kind, m.at = quotedKind, tag.quotedAt
	case ft.Kind() == reflect.String:
		m.kind = strKind
	case ft.Kind() == reflect.Int64:
		m.kind = intKind
	case ft.Kind() == reflect.Bool:
		m.kind = boolKind
	case ft.Kind() == reflect.Float64:
		m.kind = floatKind
	case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String:
		m.kind = ptrStrKind
	case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Int64:
		m.kind = ptrIntKind
	case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Float64:
		m.kind = ptrFloatKind
	case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
		m.kind, m.typ, m.inner = ptrStructKind, ft.Elem(), tableOf(ft.Elem())
		m.after = ft.Implements(reflect.TypeFor[afterMembers]())
	case ft.Kind() == reflect.Struct:
		m.kind, m.inner, m.any = structKind, tableOf(ft), tag.any
		m.typ = reflect.ArrayOf(1, ft)
		m.zero = reflect.New(m.typ).Elem()
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
		m.kind, m.typ, m.inner = sliceKind, ft, tableOf(ft.Elem())
		m.size, m.empty = ft.Elem().Size(), reflect.MakeSlice(ft, 0, 0).UnsafePointer()
		for c := 1; c <= 1<<8; c *= 2 {
			m.arrays = append(m.arrays, reflect.ArrayOf(c, ft.Elem()))
		}
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.Struct:
		m.kind, m.typ, m.inner = mapKind, reflect.ArrayOf(1, ft), tableOf(ft.Elem())
	default:
		panic(fmt.Sprintf("evimport: %s.%s: no table reader for a member of type %s", t, f.Name, f.Type))
	}
}

// setRaw sets how a member kept as raw JSON is read: copied or noted
// plain as its tag says, and checked to be of the kinds it names, if any
// (null is always allowed).
func (m *tableMember) setRaw(tag evTag) {
	m.kind, m.copy, m.plain, m.at = rawKind, tag.copy, tag.plain, tag.plainAt
	m.check = len(tag.kinds) > 0
	m.allowed = &[256]bool{'n': true}
	for i, k := range tag.kinds {
		if i > 0 {
			m.want += " or " + a(k)
		} else {
			m.want = k // "string or an array"
		}
		first, ok := jsonKindStarts[k]
		if !ok {
			panic("evimport: no JSON kind " + k)
		}
		m.allowed[first] = true
	}
}

// jsonKindStarts is the first byte of a value of each JSON kind a raw
// member's tag may name.
var jsonKindStarts = map[string]byte{"object": '{', "array": '[', "string": '"'}

// read reads the member k (as the line spells it), of value v, into the
// record at p, if it is one of the table's, and says which (-1: none).
// When d.skipTexts is set, a string member that is no word is checked,
// not decoded.
//
// read is called for every member of every line: the member is found by
// loading the name's words and one slot (keyHash), written out here, not
// called (a call of its own cost more than the finding).
func (tb *table) read(d *fields, k, v []byte, p unsafe.Pointer) int {
	var key *memberKey
	mask := uint64(len(tb.slots) - 1)
	if len(k) <= 8 {
		kp := keyPrefix(k)
		key = &tb.slots[kp*tb.mul>>(tb.shift&63)&mask]
		if key.prefix != kp || int(key.n) != len(k) {
			if hasBackslash(kp) {
				return tb.readEscaped(d, k, v, p)
			}
			return -1
		}
	} else {
		kp, km, ks := longWords(k)
		key = &tb.slots[keyHash(kp, km, ks, len(k))*tb.mul>>(tb.shift&63)&mask]
		if key.prefix != kp || key.suffix != ks || key.mid != km || int(key.n) != len(k) ||
			len(k) > 24 && !sameMiddle(tb.members[key.i].name, k) {
			if hasBackslash(kp) || hasBackslash(km) || hasBackslash(ks) || len(k) > 24 {
				return tb.readEscaped(d, k, v, p)
			}
			return -1
		}
	}
	i := int(key.i)
	{
		m := &tb.members[i]
		switch at := unsafe.Add(p, m.off); m.kind {
		case strKind:
			if !d.skipTexts {
				d.str(v, m.name, (*string)(at))
			} else {
				d.checkStr(v, m.name)
			}
		case wordKind:
			d.word(v, m.name, (*string)(at))
		case intKind:
			d.int(v, m.name, (*int64)(at))
		case boolKind:
			d.boolean(v, m.name, (*bool)(at))
		case rawKind:
			m.readRaw(d, v, p, at)
		case structKind:
			m.readStruct(d, v, at)
		case ptrStructKind:
			m.readPointer(d, v, at)
		default:
			m.readOther(d, v, p, at)
		}
	}
	return i
}

// hasBackslash reports whether a byte of the word x might be a
// backslash: true of every word with one, and of a few without.
func hasBackslash(x uint64) bool {
	const ones, highs, bs = 0x0101010101010101, 0x8080808080808080, '\\' * 0x0101010101010101
	y := x ^ bs // a backslash's byte is 0
	return (y-ones)&^y&highs != 0
}

// sameMiddle reports whether the name and the key k, of one length of
// more than 24 bytes, have the same bytes from the 16th to the last 8
// (those keyWords leaves out), compared in a loop: a call of memequal
// would make read keep its arguments on the stack for every member.
func sameMiddle(name string, k []byte) bool {
	if len(name) != len(k) {
		return false
	}
	for i := 16; i < len(k)-8; i++ {
		if name[i] != k[i] {
			return false
		}
	}
	return true
}

// readEscaped is read of a key that is no name as the line spells it:
// no name has a backslash, so one with an escape is looked up unescaped
// (once: \\ unescaped still has one).
func (tb *table) readEscaped(d *fields, k, v []byte, p unsafe.Pointer) int {
	if bytes.IndexByte(k, '\\') < 0 {
		return -1
	}
	if k = unescape(k); bytes.IndexByte(k, '\\') >= 0 {
		return -1
	}
	return tb.read(d, k, v, p)
}

// readRaw reads a json.RawMessage member, kept as the line spells it
// (or a copy), at at in the record at p.
func (m *tableMember) readRaw(d *fields, v []byte, p, at unsafe.Pointer) {
	if m.check && !m.allowed[v[0]] {
		d.wrong(v, m.name, m.want) // of the wrong type: no call's input
	}
	if m.copy {
		v = bytes.Clone(v)
	}
	*(*json.RawMessage)(at) = v
	if m.plain {
		*(*bool)(unsafe.Add(p, m.at)) = d.plain(v)
	}
}

// readStruct reads a member that is a record: read into as it is, as
// encoding/json does; null leaves it. One tagged any is read afresh,
// from an object alone.
func (m *tableMember) readStruct(d *fields, v []byte, at unsafe.Pointer) {
	if m.any && v[0] != 'n' {
		reflect.Copy(reflect.NewAt(m.typ, at).Elem(), m.zero)
		if v[0] != '{' {
			return
		}
	}
	if d.object(v, m.name) {
		d.path = append(d.path, m.name)
		d.eachIn(v, m.inner, at)
		d.path = d.path[:len(d.path)-1]
	}
}

// readPointer reads a member that points to a record: as encoding/json
// does, null clears it, another value than an object is of the wrong
// type; an object is read afresh.
func (m *tableMember) readPointer(d *fields, v []byte, at unsafe.Pointer) {
	dst := (*unsafe.Pointer)(at)
	if v[0] == 'n' {
		*dst = nil
	}
	if !d.object(v, m.name) {
		return
	}
	obj := reflect.New(m.typ)
	o := obj.UnsafePointer()
	d.path = append(d.path, m.name)
	d.eachIn(v, m.inner, o)
	d.path = d.path[:len(d.path)-1]
	if m.after {
		obj.Interface().(afterMembers).afterMembers(d, m.name)
	}
	*dst = o
}

// readOther reads a member of the kinds fewer members are, at at in the
// record at p.
func (m *tableMember) readOther(d *fields, v []byte, p, at unsafe.Pointer) {
	name := m.name
	switch m.kind {
	case quotedKind:
		// copied as it is when it can be, not decoded to be quoted again
		q := (*[]byte)(unsafe.Add(p, m.at))
		if d.canonical(v) {
			*(*string)(at), *q = "", v
		} else if v[0] != 'n' {
			*q = nil
			d.str(v, name, (*string)(at))
		}
	case numberKind:
		d.number(v, name, (*json.Number)(at))
	case floatKind:
		var f *float64
		if d.float(v, name, &f); f != nil {
			*(*float64)(at) = *f
		}
	case ptrFloatKind:
		d.float(v, name, (**float64)(at))
	case ptrStrKind:
		dst := (**string)(at)
		if v[0] == 'n' {
			*dst = nil
			return
		}
		s := new(string)
		d.str(v, name, s)
		*dst = s
	case ptrIntKind:
		dst := (**int64)(at)
		if v[0] == 'n' {
			*dst = nil
			return
		}
		n := new(int64)
		if d.int(v, name, n); d.err == nil {
			*dst = n
		}
	case sliceKind:
		m.readSlice(d, v, at)
	case mapKind:
		m.readMap(d, v, at)
	default:
		panic("evimport: no reader of member kind " + fmt.Sprint(m.kind))
	}
}

// copyOut is a copy on the heap of the member at at, an array of one.
func (m *tableMember) copyOut(at unsafe.Pointer) reflect.Value {
	own := reflect.New(m.typ).Elem()
	reflect.Copy(own, reflect.NewAt(m.typ, at).Elem())
	return own
}

// sliceHeader is a slice's memory: the record's slice is set by it, not
// by a reflect.Value of it, which would leak the record to the heap.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// readSlice reads an array of objects in one walk (fields.objects): null
// is a nil slice, [] an empty one, each object read afresh. The slice is
// grown by hand, as append grows one: reflect.Append allocates a header
// for each element, and the record's slice is set as memory, not by a
// reflect.Value of it, which would leak the record to the heap.
func (m *tableMember) readSlice(d *fields, v []byte, at unsafe.Pointer) {
	dst := (*sliceHeader)(at)
	*dst = sliceHeader{}
	if v[0] == 'n' || !d.array(v, m.name) {
		return
	}
	s := sliceHeader{data: m.empty}
	var e unsafe.Pointer
	var room reflect.Value // the array s is in, once grown
	d.objects(v, m.name, func() {
		if s.len == s.cap {
			s, room = m.grow(s, room)
		}
		e = unsafe.Add(s.data, uintptr(s.len)*m.size)
		s.len++
	}, func(k, v []byte) bool {
		m.inner.read(d, k, v, e)
		return !d.hard
	})
	*dst = s
}

// grow is the slice s, full, in room, an array of twice its room
// (zeroed): of one element, the first, an element. Its memory is taken
// by UnsafeAddr and the old room kept as a reflect.Value: a type made
// by reflect.ArrayOf has no pointer type of its own, which reflect.New,
// Addr and NewAt look up in a sync.Map each time.
func (m *tableMember) grow(s sliceHeader, old reflect.Value) (sliceHeader, reflect.Value) {
	c := max(1, 2*s.cap)
	var room reflect.Value
	switch {
	case c == 1:
		room = reflect.New(m.typ.Elem()).Elem()
	case s.cap == 1:
		room = reflect.New(m.array(c)).Elem()
		room.Index(0).Set(old)
	default:
		room = reflect.New(m.array(c)).Elem()
		reflect.Copy(room, old)
	}
	return sliceHeader{unsafe.Pointer(room.UnsafeAddr()), s.len, c}, room
}

// array is the type of an array of c elements, c a power of two.
func (m *tableMember) array(c int) reflect.Type {
	if i := bits.Len(uint(c)) - 1; i < len(m.arrays) {
		return m.arrays[i]
	}
	return reflect.ArrayOf(c, m.typ.Elem())
}

// readMap reads an object of objects as encoding/json reads a map of
// them: a zero value for each key (null, or one of the wrong type, which
// its path does not name), added to those it holds.
func (m *tableMember) readMap(d *fields, v []byte, at unsafe.Pointer) {
	if v[0] == 'n' {
		*(*unsafe.Pointer)(at) = nil // a map is a pointer
		return
	}
	if !d.object(v, m.name) {
		return
	}
	own := m.copyOut(at)
	mv := own.Index(0)
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(mv.Type()))
	}
	name := m.name
	d.in(v, name, func(k, v []byte) {
		e := reflect.New(mv.Type().Elem())
		switch v[0] {
		case 'n':
		case '{':
			d.eachIn(v, m.inner, e.UnsafePointer())
		default:
			d.path = d.path[:len(d.path)-1]
			d.wrong(v, name, "object")
			d.path = append(d.path, name)
		}
		mv.SetMapIndex(reflect.ValueOf(string(k)), e.Elem())
	})
	reflect.Copy(reflect.NewAt(m.typ, at).Elem(), own)
}

// keyPrefix is a key of at most 8 bytes as a number (zeros after a
// shorter one): one comparison tells most names apart, as a switch's
// compiled comparisons do, where a string comparison is a call. A key
// of 4 to 8 bytes is two loads of 4 that overlap, one of fewer its
// bytes: no loop, no call (a call in read would make it keep its
// arguments on the stack for every member), and nothing read past the
// key.
func keyPrefix(k []byte) uint64 {
	n := len(k)
	if n >= 4 {
		return uint64(binary.LittleEndian.Uint32(k)) | uint64(binary.LittleEndian.Uint32(k[n-4:]))<<(8*(n-4)&63)
	}
	if n > 0 {
		return uint64(k[0]) | uint64(k[n/2])<<(8*(n/2)) | uint64(k[n-1])<<(8*(n-1))
	}
	return 0
}

// recordTable is the table of the record type T, which reads into a T.
type recordTable[T any] struct{ *table }

// tableFor is the table of T, made from its type (tableOf).
func tableFor[T any]() recordTable[T] { return recordTable[T]{tableOf(reflect.TypeFor[T]())} }

// decode reads the object data into v.
func (tb recordTable[T]) decode(d *fields, data []byte, v *T) {
	d.eachIn(data, tb.table, unsafe.Pointer(v))
}

// decodeLine reads the line data into v: a content block of the wrong
// shape (Claude Code's, pi's: messageBlocks, readPiBlocks) is the line's
// error unless a member of the line is wrong (settle).
func (tb recordTable[T]) decodeLine(d *fields, data []byte, v *T) {
	tb.decode(d, data, v)
	d.settle()
}

// readIn reads the member k, of value v, into r (read).
func (tb recordTable[T]) readIn(d *fields, k, v []byte, r *T) int {
	return tb.read(d, k, v, unsafe.Pointer(r))
}

func (tb *table) names() []string {
	var ns []string
	for _, m := range tb.members {
		ns = append(ns, m.name)
	}
	return ns
}
