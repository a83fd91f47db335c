package summary

import (
	"bytes"
	"encoding/json"
	"testing"
)

var fuzzSeeds = []string{
	`{"seq":1,"ts":1793520000.5,"run_id":"r_1","agent_id":"","kind":"run_finished","payload":{"outcome":"ok","wall_seconds":1.5}}`,
	`{"seq":2,"ts":1793520001,"run_id":"r_1","agent_id":"a","kind":"model_result","payload":{"prompt_tokens":10,"completion_tokens":2,"tokens":12,"cost_usd":0.001,"latency_ms":350,"model":"m"}}`,
	`{"seq":3,"ts":1793520002,"run_id":"r_1","agent_id":"a","kind":"tool_call","payload":{"tool":"grep","args":{}}}`,
	`{"seq":4,"ts":1793520003,"run_id":"r_1","agent_id":"a","kind":"tool_result","payload":{"tool":"grep","ok":false}}`,
	`{"seq":5,"ts":1793520004,"run_id":"r_2","agent_id":"zot","kind":"tool_execution_start","payload":{"id":"c1","name":"bash"}}`,
	`{"seq":6,"ts":1793520005,"run_id":"r_2","agent_id":"zot","kind":"tool_call","payload":{"id":"c1","name":"bash","args":{}}}`,
	`{"seq":7,"ts":1793520006,"run_id":"r_2","agent_id":"zot","kind":"tool_execution_end","payload":{"id":"c1","is_error":true}}`,
	`{"seq":8,"ts":0,"run_id":"r_2","agent_id":"zot","kind":"usage","payload":{"input":5,"output":1,"cache_read":3,"cost_usd":1e-5,"cumulative":{"input":9}}}`,
	`{"seq":9,"ts":1793520007,"run_id":"r_2","agent_id":"zot","kind":"turn_start","payload":{"step":1}}`,
	`{"seq":10,"ts":1793520008,"run_id":"r_2","agent_id":"zot","kind":"turn_end","payload":{"stop":"error"}}`,
	`{"kind":"agent_end","run_id":null,"payload":{},"ts":null}`,
	`{"k\u0069nd":"error","run_id":"r_\u00e9","payload":{"message":"x"},"model":{"model":"y"}}`,
	`not json`, `[1]`, `{"kind":1}`, `{"kind":"x","ts":"now"}`, `{"kind":"x","payload":[]}`,
}

// Add never panics; a line it refuses leaves the state as it was, and the
// report is always valid JSON.
func FuzzAdd(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(i))
		f.Add([]byte(s), uint8(i)|0x80)
	}
	bys := []string{"run", "agent,tool", "model,kind", "day,hour", "payload.model", "none"}
	f.Fuzz(func(t *testing.T, line []byte, by uint8) {
		keys, err := ParseBy(bys[int(by)%len(bys)])
		if err != nil {
			t.Fatal(err)
		}
		if by&0x80 != 0 {
			// everything frozen between events: the codec round-trips
			defer func(n int) { hotLimit = n }(hotLimit)
			hotLimit = 1
		}
		s := New(Options{By: keys})
		s.Add([]byte(fuzzSeeds[4])) // a pending call for the line to meet
		s.Add([]byte(fuzzSeeds[0]))
		s.Add([]byte(fuzzSeeds[1]))
		before := report(t, s)
		if err := s.Add(line); err != nil {
			if err.Error() == "" {
				t.Fatal("empty reason")
			}
			if after := report(t, s); after != before {
				t.Fatalf("a refused line changed the state:\n%s\n%s", before, after)
			}
		}
		for _, l := range bytes.Split([]byte(report(t, s)), []byte("\n")) {
			if len(l) > 0 && !json.Valid(l) {
				t.Fatalf("report line is not JSON: %s", l)
			}
		}
		var buf bytes.Buffer
		if err := s.WritePartial(&buf); err != nil {
			t.Fatal(err)
		}
		m := NewMerger()
		for _, l := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
			if err := m.Add(l); err != nil {
				t.Fatalf("own partial line refused: %v\n%s", err, l)
			}
		}
		if got, want := report(t, m.State), report(t, s); got != want {
			t.Fatalf("partial round trip changed the report:\n%s\n%s", got, want)
		}
	})
}

// The partial-state reader never panics, refuses bad lines with a reason,
// and whatever it accepts still gives a valid report.
func FuzzPartial(f *testing.F) {
	header := `{"evsum":"partial","version":1,"by":"run","tz":"UTC"}`
	for _, s := range []string{
		`{"group":["r_1"],"events":2,"first_us":1,"last_us":2,"tokens":[1,2,0,0,3],"tools":{"grep":[1,0]},"latency_ms":{"n":1,"min":3,"max":3,"v":[3]},"runs":["r_1"]}`,
		`{"group":["r_1"],"events":1,"tokens":[0,0,0,0,0],"latency_ms":{"n":40,"min":1,"max":9,"b":[[0,1],[50,39]]}}`,
		`{"run":"r_1","min_us":1,"max_us":2,"run_log":true,"finished":1,"finish_seq":4,"outcome":"ok","wall_us":5,"end_marks":1,"end_seq":3}`,
		`{"run":"r_1","turn_starts":1,"turns":{"any":true,"open":true,"open_us":5},"calls":{"c1":{"name":"bash","group":"\"r_1\"","started":true}}}`,
		`{"run":"r_1","turns":{"any":true,"orphan":true,"orphan_us":9,"orphan_group":"\"r_1\""},"calls":{"c1":{"group":"","ended":true,"failed":true}}}`,
		`{"run":"r_1","calls":{"c1":{"name":"ls","group":"\"r_1\"","started":true}},"call_notes":{"c1":[{"event":"end","failed":true,"group":"\"r_1\""},{"event":"restated","name":"ls","group":"\"r_1\""},{"event":"start","name":"ls","group":"\"r_1\""},{"event":"start","name":"ls","group":"\"r_1\""}]}}`,
		header, `{"evsum":"partial","version":2,"by":"run","tz":"UTC"}`, `{"evsum":"partial","version":1,"by":"agent","tz":"Nowhere/Else"}`,
		`{"group":[],"events":1,"tokens":[0,0,0,0,0]}`, `{}`, `[]`, `{"run":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m := NewMerger()
		if err := m.Add([]byte(header)); err != nil {
			t.Fatal(err)
		}
		if err := m.Add(line); err != nil && err.Error() == "" {
			t.Fatal("empty reason")
		}
		m.Add(line) // the same line twice merges with itself
		for _, l := range bytes.Split([]byte(report(t, m.State)), []byte("\n")) {
			if len(l) > 0 && !json.Valid(l) {
				t.Fatalf("report line is not JSON: %s", l)
			}
		}
	})
}
