package summary

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/folds/record"
)

// What --merge accepts and refuses in a state's sketch: bucket counts of at
// least 1, indexes within ±2^20 (1 ns to 10^9 s is far inside); member
// names may be escaped, as any JSON tool may write them.
func TestMergerSketchLines(t *testing.T) {
	header := `{"evsum":"partial","version":1,"by":"run","tz":"UTC"}`
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":1,"max":1,"b":[[0,33]]}}`, true},
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":1,"max":1,"b":[[0,33],[5,0]]}}`, false},
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":1,"max":1,"b":[[1048576,33]]}}`, true},
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":1,"max":1,"b":[[-1048576,33]]}}`, true},
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":1,"max":1,"b":[[1048577,33]]}}`, false},
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":1,"max":1,"b":[[-1048577,33]]}}`, false},
		{`{"group":["r"],"events":1,"latency_ms":{"n":33,"min":2,"max":1,"b":[[0,33]]}}`, false},
	}
	for _, tt := range tests {
		m := NewMerger()
		if err := m.Add([]byte(header)); err != nil {
			t.Fatal(err)
		}
		if err := m.Add([]byte(tt.line)); (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want accepted %v", tt.line, err, tt.ok)
		}
	}

	m := NewMerger()
	for _, l := range []string{header, `{"gr\u006fup":["r"],"\u0065vents":2}`} {
		if err := m.Add([]byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	if recs := m.State.Report(); len(recs) != 2 || recs[1].Counts[record.Events] != 2 {
		t.Errorf("escaped member names: report %+v, want one group of 2 events", recs)
	}
}

// A combiner (--merge --partial) writes the values it read, even once its
// groups are frozen, and even a value that is not a whole microsecond.
func TestCombinerKeepsValues(t *testing.T) {
	defer func(n int) { hotLimit = n }(hotLimit)
	hotLimit = 1
	m := NewMerger()
	for _, l := range []string{
		`{"evsum":"partial","version":1,"by":"run","tz":"UTC"}`,
		`{"group":["a"],"events":1,"latency_ms":{"n":2,"min":0.0004,"max":2.5,"v":[0.0004,2.5]}}`,
		`{"group":["b"],"events":1}`,
		`{"group":["c"],"events":1}`,
	} {
		if err := m.Add([]byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	var b bytes.Buffer
	if err := m.State.WritePartial(&b); err != nil {
		t.Fatal(err)
	}
	if want := `"latency_ms":{"n":2,"min":0.0004,"max":2.5,"v":[0.0004,2.5]}`; !strings.Contains(b.String(), want) {
		t.Errorf("state written:\n%s\nwant %s", b.String(), want)
	}
}

// A state that does not fit what was written is refused whole, with one
// message: negative counts, tools that do not add up, a time span
// backwards, a sketch whose min or max is not its values'.
func TestMergerRefusesCorruptStates(t *testing.T) {
	header := `{"evsum":"partial","version":2,"by":"run","tz":"UTC","lines":2}`
	good := `{"group":["r"],"events":1,"tool_calls":1,"tools":{"ls":[1,0]}}`
	tests := []string{
		`{"group":["r"],"events":-1}`,
		`{"group":["r"],"events":1,"tool_failures":-1}`,
		`{"group":["r"],"events":1,"tool_calls":2,"tools":{"ls":[1,0]}}`,
		`{"group":["r"],"events":1,"tool_calls":1,"tool_failures":1,"tools":{"ls":[1,0]}}`,
		`{"group":["r"],"events":1,"tool_calls":0,"tools":{"ls":[1,0],"cat":[-1,0]}}`,
		`{"group":["r"],"events":1,"first_us":2,"last_us":1}`,
		`{"group":["r"],"events":1,"latency_ms":{"n":2,"min":1,"max":9,"v":[1,2]}}`,
		`{"group":["r"],"events":1,"latency_ms":{"n":2,"min":0,"max":2,"v":[1,2]}}`,
		`{"run":"r","finished":-1}`,
		`{"run":"r","turn_starts":-2}`,
		`{"run":"r","min_us":5,"max_us":4}`,
		`{"run":"r","agents":{"a":{"spawned":true,"ends":-1}}}`,
		`{"run":"r","agents":{"a":{"outcome":"ok"}}}`,
		// call notes: an event no event is, fewer than two, or ones that
		// do not leave the pending call the line has
		`{"run":"r","call_notes":{"c":[{"event":"begin","group":"r"},{"event":"end","group":"r"}]}}`,
		`{"run":"r","call_notes":{"c":[{"event":"end","name":"ls","group":"r"},{"event":"end","group":"r"}]}}`,
		`{"run":"r","call_notes":{"c":[{"event":"start","failed":true,"group":"r"},{"event":"end","group":"r"}]}}`,
		`{"run":"r","call_notes":{"c":[{"event":"end","group":"r"}]}}`,
		`{"run":"r","call_notes":{"c":[{"event":"start","name":"ls","group":"r"},{"event":"start","name":"ls","group":"r"}]}}`,
		`{"run":"r","calls":{"c":{"name":"ls","group":"r","started":true}},"call_notes":{"c":[{"event":"start","name":"ls","group":"r"},{"event":"end","group":"r"}]}}`,
	}
	for _, bad := range tests {
		m := NewMerger()
		if err := m.AddFrom("f", 1, []byte(header)); err != nil {
			t.Fatal(err)
		}
		err := m.AddFrom("f", 2, []byte(bad))
		if err == nil || !strings.Contains(err.Error(), "the state of f:1 is refused") {
			t.Errorf("%s: error %v, want the state refused", bad, err)
		}
		// the rest of the state is neither read nor reported
		if err := m.AddFrom("f", 3, []byte(`{"group":["r"],"events":-5}`)); err != nil {
			t.Errorf("%s: a second message for the refused state: %v", bad, err)
		}
		if err := m.EndFile(); err != nil {
			t.Errorf("%s: a second message for the refused state: %v", bad, err)
		}
		if m.Refused() != 1 {
			t.Errorf("%s: refused %d states, want 1", bad, m.Refused())
		}
	}
	// tools_open may be negative: a part may end what the part before began
	m := NewMerger()
	for i, l := range []string{header, good, `{"run":"r","tools_open":-1}`} {
		if err := m.AddFrom("f", i+1, []byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	if err := m.EndFile(); err != nil || m.Refused() != 0 {
		t.Errorf("a good state: %v, refused %d", err, m.Refused())
	}
	// call notes that leave the run's pending call
	m = NewMerger()
	for i, l := range []string{header, good, `{"run":"r","calls":{"c":{"name":"ls","group":"r","started":true}},"call_notes":{"c":[{"event":"start","name":"ls","group":"r"},{"event":"end","group":"r"},{"event":"start","name":"ls","group":"r"}]}}`} {
		if err := m.AddFrom("f", i+1, []byte(l)); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	if err := m.EndFile(); err != nil || m.Refused() != 0 {
		t.Errorf("a good state with call notes: %v, refused %d", err, m.Refused())
	}
}

// The header's line count finds a line lost or added, at the end of the
// file, also when the file is sorted (headers first).
func TestMergerCountsLines(t *testing.T) {
	h := func(n int) string {
		return `{"evsum":"partial","version":2,"by":"run","tz":"UTC","lines":` + string(rune('0'+n)) + `}`
	}
	g := `{"group":["r"],"events":1}`
	tests := []struct {
		lines []string
		ok    bool
	}{
		{[]string{h(1), g}, true},
		{[]string{h(2), g}, false},
		{[]string{h(0), g}, false},
		{[]string{h(1), h(2), g, g, g}, true}, // sorted: headers first
		{[]string{h(1), h(2), g, g}, false},
		{[]string{h(0)}, true},
	}
	for _, tt := range tests {
		m := NewMerger()
		for i, l := range tt.lines {
			if err := m.AddFrom("f", i+1, []byte(l)); err != nil {
				t.Fatalf("%q: %v", tt.lines, err)
			}
		}
		err := m.EndFile()
		if (err == nil) != tt.ok || (m.Refused() == 0) != tt.ok {
			t.Errorf("%q: %v, refused %d, want accepted %v", tt.lines, err, m.Refused(), tt.ok)
		}
	}
}

// States made with other windows do not merge; the same duration (7d)
// given to several processes is the same window, though its times differ.
func TestMergerWindows(t *testing.T) {
	tests := []struct {
		a, b string
		ok   bool
	}{
		{`"since":"2026-11-01T00:00:00Z",`, `"since":"2026-11-01T00:00:00Z",`, true},
		{`"since":"2026-11-01T00:00:00Z",`, ``, false},
		{`"since":"2026-11-01T00:00:00Z",`, `"since":"2026-11-02T00:00:00Z",`, false},
		{`"until":"2026-11-01T00:00:00Z",`, `"since":"2026-11-01T00:00:00Z",`, false},
		{`"since":"2026-11-01T00:00:00Z","since_arg":"7d",`, `"since":"2026-11-01T00:00:05Z","since_arg":"7d",`, true},
		{`"since":"2026-11-01T00:00:00Z","since_arg":"7d",`, `"since":"2026-11-01T00:00:00Z","since_arg":"168h",`, false},
	}
	for _, tt := range tests {
		m := NewMerger()
		if err := m.AddFrom("a", 1, []byte(`{"evsum":"partial","version":2,"by":"run","tz":"UTC",`+tt.a+`"lines":0}`)); err != nil {
			t.Fatal(err)
		}
		err := m.AddFrom("b", 1, []byte(`{"evsum":"partial","version":2,"by":"run","tz":"UTC",`+tt.b+`"lines":0}`))
		if (err == nil) != tt.ok {
			t.Errorf("%s with %s: %v, want accepted %v", tt.a, tt.b, err, tt.ok)
		}
	}
	// the merged state keeps the window: a combiner writes it again
	m := NewMerger()
	m.Add([]byte(`{"evsum":"partial","version":2,"by":"run","tz":"UTC","since":"2026-11-01T00:00:00Z","since_arg":"7d","lines":0}`))
	var b bytes.Buffer
	m.State.WritePartial(&b)
	if want := `"since":"2026-11-01T00:00:00Z","since_arg":"7d"`; !strings.Contains(b.String(), want) {
		t.Errorf("combined state %s, want %s", b.String(), want)
	}
}

// Version 1 states (no line count, no window) are read among version 1
// states only.
func TestMergerVersions(t *testing.T) {
	v1 := `{"evsum":"partial","version":1,"by":"run","tz":"UTC"}`
	v2 := `{"evsum":"partial","version":2,"by":"run","tz":"UTC","lines":0}`
	for _, tt := range []struct {
		a, b string
		ok   bool
	}{{v1, v1, true}, {v2, v2, true}, {v1, v2, false}, {v2, v1, false}} {
		m := NewMerger()
		if err := m.AddFrom("a", 1, []byte(tt.a)); err != nil {
			t.Fatal(err)
		}
		err := m.AddFrom("b", 1, []byte(tt.b))
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "a:1") {
			t.Errorf("%s then %s: %v, want accepted %v", tt.a, tt.b, err, tt.ok)
		}
	}
	if err := NewMerger().Add([]byte(`{"evsum":"partial","version":2,"by":"run","tz":"UTC"}`)); err == nil {
		t.Error("a version 2 header without lines is accepted")
	}
}

// A line with several faults is refused for one of them, always the same:
// the first member (in the line) that does not decode or is unknown, else
// the first fault in the order the group's keys, the time spans, the
// counts and the members that are objects are checked.
func TestMergerNamesFirstFault(t *testing.T) {
	header := `{"evsum":"partial","version":2,"by":"run","tz":"UTC","lines":1}`
	for _, tt := range []struct{ line, want string }{
		{`{"group":["r"],"events":-1,"first_us":2,"last_us":1}`, "first_us is after last_us"},
		{`{"group":["r","x"],"events":-1,"first_us":2}`, "group has 2 keys, --by run has 1"},
		{`{"group":["r"],"kills":-1,"tools":{"ls":[1,0]}}`, "kills is negative"},
		{`{"group":["r"],"events":-1,"colour":1,"kills":"x"}`, `unknown field "colour"`},
		{`{"group":["r"],"kills":"x","colour":1}`, "cannot unmarshal string into Go value of type int64"},
		{`{"run":"r","agents":{"a":{"outcome":"ok"}},"turn_ends":-1,"max_us":1}`, "min_us without max_us"},
		{`{"run":"r","calls":{"c":{"group":""}},"agents":{"a":{"outcome":"ok"}}}`, "impossible agent"},
	} {
		m := NewMerger()
		if err := m.AddFrom("f", 1, []byte(header)); err != nil {
			t.Fatal(err)
		}
		err := m.AddFrom("f", 2, []byte(tt.line))
		if want := "f:1"; err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", tt.line, err, tt.want)
		}
	}
}
