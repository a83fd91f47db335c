package evimport

import "testing"

func TestUUIDV7Time(t *testing.T) {
	for _, c := range []struct {
		id string
		ms int64
		ok bool
	}{
		{"019c8a53-a0dd-7130-bcd7-95445d84846a", 0x019c8a53a0dd, true},
		{"019C8A53-A0DD-7130-BCD7-95445D84846A", 0x019c8a53a0dd, true},
		{"019c8a53-a0dd-4130-bcd7-95445d84846a", 0, false}, // version 4: no time
		{"019c8a53a0dd-7130-bcd7-95445d84846a0", 0, false},
		{"019c8a53-a0dd-7130-bcd7-95445d84846g", 0, false},
		{"019c8a53-a0dd-7130-bcd7-95445d84846", 0, false},
		{"t1", 0, false},
		{"", 0, false},
	} {
		ms, ok := uuidV7Time(c.id)
		if ms != c.ms || ok != c.ok {
			t.Errorf("uuidV7Time(%q) = %d, %v, want %d, %v", c.id, ms, ok, c.ms, c.ok)
		}
	}
}

// A fork's copy ends where a turn begun after the fork was made begins,
// whatever the records' times; without turns named by a UUIDv7, at the
// end of the second the fork was made.
func TestCopyLen(t *testing.T) {
	const (
		fork   = "019ce146-46d0-7c33-8e43-7f5a6b7c8da3"   // 09:00:05.200
		before = `"019ce146-3668-7b22-9d32-6e4f5a6b7c92"` // 09:00:01.000
		after  = `"019ce146-4734-7d44-9f54-8a6b7c8d9eb4"` // 09:00:05.300
	)
	meta := codexPayload{ID: fork, Timestamp: "2026-03-12T09:00:05.200Z"}
	second := parseTime("2026-03-12T09:00:05.900Z")
	rec := func(turn string, ms int64) codexRec {
		return codexRec{ms: ms, p: codexPayload{TurnID: []byte(turn)}}
	}
	for _, c := range []struct {
		name  string
		lines []codexRec
		want  int
	}{
		{"own turn in the fork's second", []codexRec{rec("", second), rec(before, second), rec(after, second), rec("", second)}, 2},
		{"own turn with only the parent's meta", []codexRec{rec("", second), rec("", second), rec(after, second)}, 2},
		{"only the parent's turns", []codexRec{rec("", second), rec(before, second), rec("", second+5000)}, 3},
		{"turns without UUIDv7s", []codexRec{rec("", second), rec(`"t1"`, second), rec(`"t2"`, second+5000)}, 2},
		{"a turn_id that is no string", []codexRec{rec("", second), rec(`7`, second), rec(`null`, second+5000)}, 2},
	} {
		if got := copyLen(&codexFile{meta: meta, lines: c.lines}); got != c.want {
			t.Errorf("%s: copyLen = %d, want %d", c.name, got, c.want)
		}
	}
}
