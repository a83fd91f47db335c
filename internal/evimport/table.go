package evimport

import (
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
// over a whole conversion. pi's lines are read so; the other sources'
// still by the hand decoders of fields.go.
//
// The table knows the kinds of member the record types have: a string
// (tagged ev:"word" when its few values come back line after line: each
// is decoded once, fields.word), a *string that null clears, an int64, a
// bool, a *float64, a json.Number, a json.RawMessage (kept as the line
// holds it; tagged ev:"object" when it must be an object, as a tool
// call's arguments copied as they are), and a pointer to a record type (an object, read by that
// type's table). A type with another kind of member is refused at start.
type table struct {
	// members, looked for in order: a record type has a dozen, which
	// are found sooner by their length than by a map's hash
	members []tableMember
}

type tableMember struct {
	name string
	// text: a string that is not a word, which read(texts false) checks
	// and leaves undecoded
	text bool
	read func(d *fields, v []byte, p unsafe.Pointer)
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// afterMembers is a record type that reads more once its members are
// read (pi's message, its content blocks): name is its member's name.
type afterMembers interface{ afterMembers(d *fields, name string) }

// tableOf is the table of the record type t (a struct), made with the
// tables of the record types its members point to.
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
		m := tableMember{name: tag}
		m.read, m.text = reader(t, f, tag)
		tb.members = append(tb.members, m)
	}
	return tb
}

// reader is the reader of the member f of t, named name: what it does
// is what the hand decoders of fields.go do for a member of its kind.
func reader(t reflect.Type, f reflect.StructField, name string) (read func(d *fields, v []byte, p unsafe.Pointer), text bool) {
	off := f.Offset
	at := func(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, off) }
	switch ft := f.Type; {
	case ft == rawMessageType && f.Tag.Get("ev") == "object":
		return func(d *fields, v []byte, p unsafe.Pointer) {
			d.object(v, name) // another value than an object is of the wrong type
			*(*json.RawMessage)(at(p)) = raw(v)
		}, false
	case ft == rawMessageType:
		return func(_ *fields, v []byte, p unsafe.Pointer) { *(*json.RawMessage)(at(p)) = raw(v) }, false
	case ft == numberType:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.number(v, name, (*json.Number)(at(p))) }, false
	case ft.Kind() == reflect.String && f.Tag.Get("ev") == "word":
		return func(d *fields, v []byte, p unsafe.Pointer) { d.word(v, name, (*string)(at(p))) }, false
	case ft.Kind() == reflect.String:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.str(v, name, (*string)(at(p))) }, true
	case ft.Kind() == reflect.Int64:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.int(v, name, (*int64)(at(p))) }, false
	case ft.Kind() == reflect.Bool:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.boolean(v, name, (*bool)(at(p))) }, false
	case ft.Kind() != reflect.Pointer:
	case ft.Elem().Kind() == reflect.String:
		return func(d *fields, v []byte, p unsafe.Pointer) {
			dst := (**string)(at(p))
			if v[0] == 'n' {
				*dst = nil
				return
			}
			var s string
			d.str(v, name, &s)
			*dst = &s
		}, false
	case ft.Elem().Kind() == reflect.Float64:
		return func(d *fields, v []byte, p unsafe.Pointer) { d.float(v, name, (**float64)(at(p))) }, false
	case ft.Elem().Kind() == reflect.Struct:
		inner := tableOf(ft.Elem())
		after := ft.Implements(reflect.TypeFor[afterMembers]())
		return func(d *fields, v []byte, p unsafe.Pointer) {
			// as objectOrNull: null clears it, another value than an
			// object is of the wrong type; an object is read afresh
			dst := (*unsafe.Pointer)(at(p))
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
		}, false
	}
	panic(fmt.Sprintf("evimport: %s.%s: no table reader for a member of type %s", t, f.Name, f.Type))
}

// read reads the member k (unescaped), of value v, into the record at p,
// if it is one of the table's. Unless texts is set, a string member that
// is no word is checked, not decoded.
func (tb *table) read(d *fields, k, v []byte, p unsafe.Pointer, texts bool) {
	var m *tableMember
	for i := range tb.members {
		if len(tb.members[i].name) == len(k) && tb.members[i].name == string(k) {
			m = &tb.members[i]
			break
		}
	}
	switch {
	case m == nil:
	case !texts && m.text:
		d.strIf(false, v, m.name, nil)
	default:
		m.read(d, v, p)
	}
}

// decodeTable reads the object data into the record at p, of table tb.
func decodeTable(d *fields, tb *table, data []byte, p unsafe.Pointer) {
	d.each(data, func(k, v []byte) { tb.read(d, k, v, p, true) })
}
