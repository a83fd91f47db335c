package evimport

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// A record type's members read from its struct tags: a member's name is
// written once, in the tag, and the fast decoder of fields.go reads it
// by a table made from the type once, at start (issue 31). encoding/json
// /v2 would read the types too, but took 2-3 times as long as fields.go
// over a whole conversion; encoding/json stays the fuzz tests' oracle.
// Every source's lines are read so.
//
// The table knows the kinds of member the record types have: a string
// (tagged ev:"word" when its few values come back line after line: each
// is decoded once, fields.word), a *string that null clears, an int64, a
// *int64, a bool, a float64 or *float64, a json.Number, a
// json.RawMessage (kept as the line holds it), a record type (an object
// read into it), a pointer to one (read afresh, null clears it), a slice
// of them (an array of objects: null is a nil slice, [] an empty one),
// a map of them by string (a value for each key), and a type that reads
// itself (ownReader: Claude Code's toolUseResult). A type with another
// kind of member is refused at start.
//
// The ev tag says more of a member, in words separated by commas:
//
//	word          a string whose few values come back: decoded once each
//	object        a json.RawMessage that must be an object (or null);
//	string|array  one that must be either (the kinds joined by |)
//	copy          a json.RawMessage copied: the line is not kept
//	plain=F       a json.RawMessage whose bool field F notes that the
//	              line's check found it a plain string (fields.plain)
//	canonical=F   a string that, when spelled as jsontext writes it, is
//	              left undecoded, quoted, in the []byte field F
//	              (fields.canonical), else decoded (F nil)
type table struct {
	members []tableMember
	// byLen lists the members of each length of name: a record type
	// has a dozen to forty, which are found sooner so than by a
	// map's hash or one by one
	byLen [][]int
}

type tableMember struct {
	name   string
	prefix uint64 // its first 8 bytes (keyPrefix): most names are no longer
	field  string // the Go field, for a reader that asks which was read
	// text: a string that is not a word, which read(texts false) checks
	// and leaves undecoded
	text bool
	read readFunc
	// kind and off: a member of the kinds most members are is read by a
	// direct call, in read's switch, not by read's indirect one: a
	// fifth of a Codex payload's decoding went to those calls
	kind memberKind
	off  uintptr
}

type memberKind uint8

const (
	byFunc memberKind = iota
	strKind
	wordKind
	intKind
	boolKind
)

// readFunc reads the value v of a member into the record at p.
type readFunc func(d *fields, v []byte, p unsafe.Pointer)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
	ownReaderType  = reflect.TypeFor[ownReader]()
)

// afterMembers is a record type that reads more once its members are
// read (pi's and Claude Code's message, their content blocks): name is
// its member's name.
type afterMembers interface{ afterMembers(d *fields, name string) }

// ownReader is a member type that reads itself, named name.
type ownReader interface {
	readOwn(d *fields, v []byte, name string)
}

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
		m := tableMember{name: tag, field: f.Name, prefix: keyPrefix([]byte(tag))}
		m.read, m.text = reader(t, f, tag)
		m.off = f.Offset
		switch tag := readTag(t, f); {
		case f.Type == reflect.TypeFor[string]() && tag.word:
			m.kind = wordKind
		case f.Type == reflect.TypeFor[string]() && !tag.quoted:
			m.kind = strKind
		case f.Type == reflect.TypeFor[int64]():
			m.kind = intKind
		case f.Type == reflect.TypeFor[bool]():
			m.kind = boolKind
		}
		for len(tb.byLen) <= len(tag) {
			tb.byLen = append(tb.byLen, nil)
		}
		tb.byLen[len(tag)] = append(tb.byLen[len(tag)], len(tb.members))
		tb.members = append(tb.members, m)
	}
	return tb
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
	word, copy bool
	kinds      []string // object, string, array...: what it must be
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

// reader is the reader of the member f of t, named name: what it does
// is what the hand decoders fields.go had did for a member of its kind.
func reader(t reflect.Type, f reflect.StructField, name string) (read readFunc, text bool) {
	off, ft, tag := f.Offset, f.Type, readTag(t, f)
	switch {
	case reflect.PointerTo(ft).Implements(ownReaderType):
		return func(d *fields, v []byte, p unsafe.Pointer) {
			reflect.NewAt(ft, unsafe.Add(p, off)).Interface().(ownReader).readOwn(d, v, name)
		}, false
	case ft == rawMessageType:
		return rawReader(off, name, tag), false
	case ft == numberType:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.number(v, name, (*json.Number)(unsafe.Add(p, off))) }, false
	case ft.Kind() == reflect.String && tag.word:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.word(v, name, (*string)(unsafe.Add(p, off))) }, false
	case ft.Kind() == reflect.String && tag.quoted:
		return func(d *fields, v []byte, p unsafe.Pointer) {
			// copied as it is when it can be, not decoded to be quoted again
			q := (*[]byte)(unsafe.Add(p, tag.quotedAt))
			if d.canonical(v) {
				*(*string)(unsafe.Add(p, off)), *q = "", v
			} else if v[0] != 'n' {
				*q = nil
				d.str(v, name, (*string)(unsafe.Add(p, off)))
			}
		}, false
	case ft.Kind() == reflect.String:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.str(v, name, (*string)(unsafe.Add(p, off))) }, true
	case ft.Kind() == reflect.Int64:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.int(v, name, (*int64)(unsafe.Add(p, off))) }, false
	case ft.Kind() == reflect.Bool:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.boolean(v, name, (*bool)(unsafe.Add(p, off))) }, false
	case ft.Kind() == reflect.Float64:
		return func(d *fields, v []byte, p unsafe.Pointer) {
			var f *float64
			if d.float(v, name, &f); f != nil {
				*(*float64)(unsafe.Add(p, off)) = *f
			}
		}, false
	case ft.Kind() == reflect.Pointer:
		return pointerReader(t, f, name), false
	case ft.Kind() == reflect.Struct:
		inner := tableOf(ft)
		return func(d *fields, v []byte, p unsafe.Pointer) {
			// read into as it is, as encoding/json does; null leaves it
			o := unsafe.Add(p, off)
			d.in(v, name, func(k, v []byte) { inner.read(d, k, v, o, true) })
		}, false
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
		return sliceReader(off, ft, name), false
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.Struct:
		return mapReader(off, ft, name), false
	}
	panic(fmt.Sprintf("evimport: %s.%s: no table reader for a member of type %s", t, f.Name, f.Type))
}

// rawReader reads a json.RawMessage: kept as the line holds it (null
// too, as encoding/json keeps it), checked for its kinds, copied, its
// plainness noted, as tag says.
func rawReader(off uintptr, name string, tag evTag) readFunc {
	var want string // "string or an array"
	allowed := [256]bool{'n': true}
	for i, k := range tag.kinds {
		if i > 0 {
			want += " or " + a(k)
		} else {
			want = k
		}
		switch k {
		case "object":
			allowed['{'] = true
		case "array":
			allowed['['] = true
		case "string":
			allowed['"'] = true
		default:
			panic("evimport: no JSON kind " + k)
		}
	}
	check := len(tag.kinds) > 0
	return func(d *fields, v []byte, p unsafe.Pointer) {
		if check && !allowed[v[0]] {
			d.wrong(v, name, want) // of the wrong type: no call's input
		}
		if tag.copy {
			v = bytes.Clone(v)
		}
		*(*json.RawMessage)(unsafe.Add(p, off)) = v
		if tag.plain {
			*(*bool)(unsafe.Add(p, tag.plainAt)) = d.plain(v)
		}
	}
}

// pointerReader reads a member that points to its value: null clears it.
func pointerReader(t reflect.Type, f reflect.StructField, name string) readFunc {
	off, ft := f.Offset, f.Type
	switch ft.Elem().Kind() {
	case reflect.String:
		return func(d *fields, v []byte, p unsafe.Pointer) {
			dst := (**string)(unsafe.Add(p, off))
			if v[0] == 'n' {
				*dst = nil
				return
			}
			var s string
			d.str(v, name, &s)
			*dst = &s
		}
	case reflect.Int64:
		return func(d *fields, v []byte, p unsafe.Pointer) {
			dst := (**int64)(unsafe.Add(p, off))
			if v[0] == 'n' {
				*dst = nil
				return
			}
			var n int64
			if d.int(v, name, &n); d.err == nil {
				*dst = &n
			}
		}
	case reflect.Float64:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.float(v, name, (**float64)(unsafe.Add(p, off))) }
	case reflect.Struct:
		inner := tableOf(ft.Elem())
		after := ft.Implements(reflect.TypeFor[afterMembers]())
		return func(d *fields, v []byte, p unsafe.Pointer) {
			// as objectOrNull: null clears it, another value than an
			// object is of the wrong type; an object is read afresh
			dst := (*unsafe.Pointer)(unsafe.Add(p, off))
			if v[0] == 'n' {
				*dst = nil
			}
			if !d.object(v, name) {
				return
			}
			obj := reflect.New(ft.Elem())
			o := obj.UnsafePointer()
			d.in(v, name, func(k, v []byte) { inner.read(d, k, v, o, true) })
			if after {
				obj.Interface().(afterMembers).afterMembers(d, name)
			}
			*dst = o
		}
	}
	panic(fmt.Sprintf("evimport: %s.%s: no table reader for a member of type %s", t, f.Name, f.Type))
}

// sliceReader reads an array of objects in one walk (fields.objects): null
// is a nil slice, [] an empty one, each object read afresh.
func sliceReader(off uintptr, ft reflect.Type, name string) readFunc {
	inner := tableOf(ft.Elem())
	return func(d *fields, v []byte, p unsafe.Pointer) {
		s := reflect.NewAt(ft, unsafe.Add(p, off)).Elem()
		s.SetZero()
		if v[0] == 'n' {
			return
		}
		if d.array(v, name) {
			s.Set(reflect.MakeSlice(ft, 0, 0))
		}
		var e unsafe.Pointer
		d.objects(v, name, func() {
			n := s.Len()
			s.Grow(1)
			s.SetLen(n + 1)
			e = s.Index(n).Addr().UnsafePointer()
		}, func(k, v []byte) { inner.read(d, k, v, e, true) })
	}
}

// mapReader reads an object of objects as encoding/json reads a map of
// them: a zero value for each key (null, or one of the wrong type, which
// its path does not name), added to those it holds.
func mapReader(off uintptr, ft reflect.Type, name string) readFunc {
	inner := tableOf(ft.Elem())
	return func(d *fields, v []byte, p unsafe.Pointer) {
		m := reflect.NewAt(ft, unsafe.Add(p, off)).Elem()
		if v[0] == 'n' {
			m.SetZero()
			return
		}
		if !d.object(v, name) {
			return
		}
		if m.IsNil() {
			m.Set(reflect.MakeMap(ft))
		}
		d.in(v, name, func(k, v []byte) {
			e := reflect.New(ft.Elem())
			switch v[0] {
			case 'n':
			case '{':
				d.each(v, func(k, v []byte) { inner.read(d, k, v, e.UnsafePointer(), true) })
			default:
				d.path = d.path[:len(d.path)-1]
				d.wrong(v, name, "object")
				d.path = append(d.path, name)
			}
			m.SetMapIndex(reflect.ValueOf(string(k)), e.Elem())
		})
	}
}

// read reads the member k (unescaped), of value v, into the record at p,
// if it is one of the table's, and says which (-1: none). Unless texts
// is set, a string member that is no word is checked, not decoded.
func (tb *table) read(d *fields, k, v []byte, p unsafe.Pointer, texts bool) int {
	if len(k) >= len(tb.byLen) {
		return -1
	}
	kp := keyPrefix(k)
	for _, i := range tb.byLen[len(k)] {
		m := &tb.members[i]
		if m.prefix != kp || len(k) > 8 && m.name[8:] != string(k[8:]) {
			continue
		}
		switch at := unsafe.Add(p, m.off); {
		case !texts && m.text:
			d.strIf(false, v, m.name, nil)
		case m.kind == strKind:
			d.str(v, m.name, (*string)(at))
		case m.kind == wordKind:
			d.word(v, m.name, (*string)(at))
		case m.kind == intKind:
			d.int(v, m.name, (*int64)(at))
		case m.kind == boolKind:
			d.boolean(v, m.name, (*bool)(at))
		default:
			m.read(d, v, p)
		}
		return i
	}
	return -1
}

// keyPrefix is the first 8 bytes of a key, as a number (zeros after a
// shorter one): one comparison tells most names apart, as a switch's
// compiled comparisons do, where a string comparison is a call.
func keyPrefix(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.LittleEndian.Uint64(k)
	}
	var n uint64
	for i := len(k) - 1; i >= 0; i-- {
		n = n<<8 | uint64(k[i])
	}
	return n
}

// decodeTable reads the object data into the record at p, of table tb.
func decodeTable(d *fields, tb *table, data []byte, p unsafe.Pointer) {
	d.each(data, func(k, v []byte) { tb.read(d, k, v, p, true) })
}
