package summary

import (
	"bytes"
	"strings"
	"testing"
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
	if recs := m.State.Report(); len(recs) != 2 || recs[1].Counts[Events] != 2 {
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
