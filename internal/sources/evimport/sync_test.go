package evimport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A state read back is the state written: the files' lines (names and
// keys with tabs, newlines, quotes and NULs in them) and the sessions.
func TestSyncStateRoundTrip(t *testing.T) {
	st := newSyncState()
	st.Files["/home/ana/.claude/projects/a\tb\n\"c\".jsonl"] = &fileMark{Dev: 2049, Ino: 7, Size: 123, MTime: 1_772_000_000_123_456_789,
		Source: "claude", Keys: []string{"s1", "s\x002"}, IDs: []string{"s1"}}
	st.Files["/x/rollout.jsonl"] = &fileMark{Size: 5, Source: "codex", Keys: []string{"p"}, Parent: true}
	st.updated["claude\x00s1"] = &sessionMark{Files: []string{"/a", "/b\tc"}, Runs: []string{"/1 abc", "/2 def"}}
	st.updated["pi\x00s2"] = &sessionMark{Runs: []string{"/1 x"}}
	data := st.marshal()
	back, err := parseSyncState(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.loadSessions(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st.Files, back.Files); diff != "" {
		t.Errorf("files (-written +read):\n%s", diff)
	}
	for key, want := range st.updated {
		got, err := back.session(key)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("session %q (-written +read):\n%s", key, diff)
		}
	}
	// not decoded, the sessions are written back as they were read
	again, _ := parseSyncState(data)
	if !bytes.Equal(again.marshal(), data) {
		t.Errorf("a state read and written again changed:\n%s\n%s", data, again.marshal())
	}
}

// What is not a state of this evimport is refused, with why.
func TestParseSyncStateRefuses(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"version":1,"cursor":null}`, "not an evimport state (an evcursor state?"},
		{`{"version":2,"tool":"evimport"}` + "\n", "state format version 2 is not this evimport's (4)"},
		{`{"version":4,"tool":"evimport"}` + "\n\"/a\"\t1\t2\n", "not an evimport state: line 2"},
		{`{"version":4,"tool":"evimport"}` + "\n", "it ends before its sessions"},
		{`{"version":4,"tool":"evimport"}` + "\nsessions\n{\"a\":", "session line 1"},
		{`{"version":4,"tool":"evimport"}` + "\nsessions\n\"k\"\t\"/a\"\t\"unended\n", "session \"k\""},
	} {
		st, err := parseSyncState([]byte(tc.data))
		if err == nil {
			err = st.loadSessions()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.data, err, tc.want)
		}
	}
}

// The state parser takes any bytes without a panic, and what it accepts
// it writes back to the same state.
func FuzzParseSyncState(f *testing.F) {
	st := newSyncState()
	st.Files["/a.jsonl"] = &fileMark{Size: 3, Source: "pi", Keys: []string{"k"}}
	f.Add(st.marshal())
	f.Add([]byte(`{"version":4,"tool":"evimport"}` + "\nsessions\n\"k\"\t\"/a\"\t\"/1 h\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseSyncState(data)
		if err != nil {
			return
		}
		if st.loadSessions() != nil {
			return
		}
		back, err := parseSyncState(st.marshal())
		if err != nil {
			t.Fatalf("a state written is refused: %v", err)
		}
		if err := back.loadSessions(); err != nil {
			t.Fatalf("the sessions of a state written are refused: %v", err)
		}
		if diff := cmp.Diff(st.Files, back.Files); diff != "" {
			t.Fatalf("files changed:\n%s", diff)
		}
		for key := range st.lines {
			a, _ := st.session(key)
			b, _ := back.session(key)
			if diff := cmp.Diff(a, b); diff != "" {
				t.Fatalf("session %q changed:\n%s", key, diff)
			}
		}
	})
}
