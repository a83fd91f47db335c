package evimport

import (
	"maps"
	"slices"
	"strings"

	"github.com/evtools/evtools/pkg/jsonscan"
)

// maxMembers is how many members of an unknown type's records are named:
// the first by name, then "...". A record whose objects are maps (keyed
// by a path, a model) would otherwise make the note as long as the log.
const maxMembers = 32

// memberSet is the members met in the records of one unknown type: the
// maxMembers first by name, and whether there were more. Kept so, the
// set is the same however the files were shared among the workers.
type memberSet struct {
	names map[string]bool
	more  bool
}

// add notes a member, dropping the last by name when there are too many.
func (m *memberSet) add(name string) {
	if m.names[name] {
		return
	}
	if m.names == nil {
		m.names = map[string]bool{}
	}
	m.names[name] = true
	if len(m.names) > maxMembers {
		last := ""
		for n := range m.names {
			last = max(last, n)
		}
		delete(m.names, last)
		m.more = true
	}
}

// String is the members in order of name: "id, payload.bar, type".
func (m *memberSet) String() string {
	names := slices.Sorted(maps.Keys(m.names))
	if m.more {
		names = append(names, "...")
	}
	return strings.Join(names, ", ")
}

// addMembers notes the members of obj, a JSON object checked as its
// record was decoded: its own, and those of a member that is an object
// (payload.bar), one level down, so that a Codex record's payload shows
// its shape too; an array or an empty object is named alone.
func (m *memberSet) addMembers(obj []byte) {
	var name []byte
	jsonscan.Each(obj, func(k, v []byte) bool {
		name, _ = jsonscan.AppendUnescaped(name[:0], k)
		outer := len(name)
		inner := false
		if jsonscan.KindOf(v) == jsonscan.Object {
			jsonscan.Each(v, func(k, _ []byte) bool {
				name, _ = jsonscan.AppendUnescaped(append(name[:outer], '.'), k)
				m.add(string(name))
				inner = true
				return true
			})
		}
		if !inner {
			m.add(string(name[:outer]))
		}
		return true
	})
}

// shape is the members of the records of the unknown type key met so
// far.
func (c *converter) shape(key string) *memberSet {
	m := c.shapes[key]
	if m == nil {
		m = &memberSet{}
		c.shapes[key] = m
	}
	return m
}

// blockShape notes, under key, the members of the blocks of type typ in
// the message.content of the record being converted (Claude Code's and
// pi's content blocks); typ "" is a block without a type.
func (c *converter) blockShape(key, typ string) {
	content, _ := jsonscan.Lookup(c.rec, "message", "content")
	jsonscan.Elements(content, func(bl []byte) bool {
		t, found := jsonscan.Lookup(bl, "type")
		if found && jsonscan.StringEquals(t, typ) || !found && typ == "" {
			c.shape(key).addMembers(bl)
		}
		return true
	})
}
