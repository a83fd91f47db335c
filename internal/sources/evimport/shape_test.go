package evimport

import (
	"fmt"
	"strings"
	"testing"
)

// The members named for an unknown type are those of its records, one
// level into an object member; a record with many members (a map keyed
// by paths) is named by its first maxMembers, then "...", and the names
// are the same whichever worker met which record.
func TestMemberSet(t *testing.T) {
	many := func(from, to int) string {
		var b strings.Builder
		b.WriteString(`{"files":{`)
		for i := from; i < to; i++ {
			if i > from {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"f%03d":1`, i)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	first := func(n int) string {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("files.f%03d", i))
		}
		return strings.Join(names, ", ")
	}
	for _, tt := range []struct {
		name    string
		records []string
		want    string
	}{
		{"top level", []string{`{"type":"foo","id":"a","timestamp":"t"}`}, "id, timestamp, type"},
		{"one level down", []string{`{"type":"foo","payload":{"bar":1,"deep":{"x":1}}}`}, "payload.bar, payload.deep, type"},
		{"arrays and empty objects alone", []string{`{"list":[{"a":1}],"empty":{},"n":null}`}, "empty, list, n"},
		{"the union of the records", []string{`{"type":"foo","a":1}`, `{"type":"foo","b":{"c":2}}`}, "a, b.c, type"},
		{"escaped keys decoded", []string{`{"caf\u00e9":1,"a\"b":{"x\ty":2}}`}, "a\"b.x\ty, café"},
		{"capped, the first by name", []string{many(0, 40)}, first(maxMembers) + ", ..."},
		{"capped in any order", []string{many(20, 40), many(0, 20)}, first(maxMembers) + ", ..."},
		{"exactly the cap", []string{many(0, maxMembers)}, first(maxMembers)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var m memberSet
			for _, r := range tt.records {
				m.addMembers([]byte(r))
			}
			if got := m.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			// each record met by a worker of its own, then merged
			c := newConverter(nil)
			for _, r := range tt.records {
				w := newConverter(nil)
				w.rec = []byte(r)
				w.skip("claude", "foo")
				c.merge(w)
			}
			if got := c.shapes["claude foo"].String(); got != tt.want {
				t.Errorf("merged: got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// Every unknown type has its line, one whose records have no member
// ({}) too: make agents-latest reads these lines, not the count.
func TestUnknownTypeWithoutMembers(t *testing.T) {
	c := newConverter(nil)
	c.rec = []byte(`{}`)
	c.skip("claude", "")
	var b strings.Builder
	c.report(&b)
	want := "evimport: 1 record of an unknown type skipped: claude (none) (1)\n" +
		"evimport: claude (none) (1 record): no members\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}
