package zot2gp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/internal/sources/zot"
	"github.com/evtools/evtools/pkg/jsonscan"
)

func fixedNow() time.Time { return time.Date(2026, 11, 30, 1, 2, 3, 456789000, time.UTC) }

func mustConverter(t testing.TB, cfg config) *converter {
	t.Helper()
	c, err := newConverter(cfg, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAppendRFC3339(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"2026-06-21T22:36:06.817Z", "1782081366.817"},
		{"2026-06-21T22:36:06Z", "1782081366"},
		{"2026-06-21T22:36:06.000Z", "1782081366"},
		{"2026-06-21T22:36:06.000000001Z", "1782081366.000000001"},
		{"2026-06-22T00:36:06.5+02:00", "1782081366.5"},
		{"1970-01-01T00:00:00Z", "0"},
		{"1969-12-31T23:59:59.5Z", "-0.5"},
		{"1969-12-31T23:59:58.25Z", "-1.75"},
		{"1969-12-31T23:59:58Z", "-2"},
		{"1970-01-01T00:00:00.5Z", "0.5"},
	}
	for _, tt := range tests {
		got, ok := appendRFC3339(nil, []byte(tt.in))
		if !ok || string(got) != tt.want {
			t.Errorf("appendRFC3339(%s) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestAppendTime(t *testing.T) {
	var buf []byte
	for raw, want := range map[string]string{
		`"2026-06-21T22:36:06.817Z"`:      "1782081366.817",
		`"2026-06-21T22:36:06\u002e817Z"`: "1782081366.817", // escapes decoded
		`"\u0032026-06-21T22:36:06.817Z"`: "1782081366.817", // the first byte too
		`"..."`:                           "",               // an elided value, as in a trimmed transcript
		`"2026-06-21"`:                    "",
		`1782081366`:                      "", // a number is not RFC 3339
		`null`:                            "",
		`"2026-06-21T22:36:06.817+00:00"`: "1782081366.817",
		`"2026-06-21 22:36:06.817Z"`:      "",
		// Item 22: RFC 3339 allows lowercase t and z, a leap second, and
		// a fraction of any length; all of it is kept.
		`"2026-06-21t22:36:06.817z"`:           "1782081366.817",
		`"2016-12-31T23:59:60Z"`:               "1483228800",
		`"2016-12-31T23:59:60.25Z"`:            "1483228800.25",
		`"2016-12-31T15:59:60-08:00"`:          "1483228800",
		`"2016-12-31T23:58:60Z"`:               "", // not the end of a UTC day
		`"2026-06-21T22:36:06.1234567891234Z"`: "1782081366.1234567891234",
		`"1969-12-31T23:59:58.1234567891Z"`:    "-1.8765432109",
		`"2026-02-29T00:00:00Z"`:               "", // not a leap year
		`"2024-02-29T00:00:00Z"`:               "1709164800",
		`"2026-06-21T22:36:06.Z"`:              "",
		`"2026-06-21T22:36:06.817+24:00"`:      "",
		`"2026-06-21T22:36:61Z"`:               "",
	} {
		ts, ok := appendTime(nil, []byte(raw), &buf)
		if got := string(ts); got != want || ok != (want != "") {
			t.Errorf("appendTime(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}

// seqOf converts one event and returns its seq as written.
func seqOf(t *testing.T, c *converter) string {
	t.Helper()
	out, _, err := c.convert(nil, []byte(`{"type":"turn_start"}`))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Seq json.Number `json:"seq"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return string(env.Seq)
}

// --seq-start: any size of decimal, leading zeros dropped, and counting
// carries into a new digit past 2^64.
func TestSeq(t *testing.T) {
	for start, want := range map[string][2]string{
		"0": {"0", "1"}, "9": {"9", "10"}, "1999": {"1999", "2000"},
		"007": {"7", "8"}, "000": {"0", "1"},
		"99999999999999999999": {"99999999999999999999", "100000000000000000000"},
		"18446744073709551615": {"18446744073709551615", "18446744073709551616"}, // past uint64
	} {
		c := mustConverter(t, config{Stable: true, SeqStart: start})
		if first, second := seqOf(t, c), seqOf(t, c); first != want[0] || second != want[1] {
			t.Errorf("--seq-start %s: seqs %s, %s; want %s, %s", start, first, second, want[0], want[1])
		}
	}
	for _, start := range []string{"", "-1", "1.5", "1e3", " 1", "x"} {
		if _, err := newConverter(config{SeqStart: start}, fixedNow); err != errSeqStart {
			t.Errorf("--seq-start %q: error %v, want errSeqStart", start, err)
		}
	}
}

// The strings zot2gp quotes itself (agent_id, run_id, an unmapped kind)
// follow jsontext's policy: valid JSON, one line, no raw DEL, C1 control or
// U+2028 (which a terminal or a JavaScript reader would act on), and the
// text decodes back (invalid UTF-8 as U+FFFD).
func TestQuotedFields(t *testing.T) {
	const nasty = "a\nb\x7f<\u2028\xff\u009b"
	const decoded = "a\nb\x7f<\u2028\ufffd\u009b"
	c := mustConverter(t, config{Stable: true, SeqStart: "1", Agent: nasty, RunID: nasty})
	out, _, err := c.convert(nil, []byte(`{"type":"x\u007fy\u2028z"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seq":1,"ts":0,"run_id":"a\nb\u007f<\u2028\ufffd\u009b","agent_id":"a\nb\u007f<\u2028\ufffd\u009b",` +
		`"kind":"x\u007fy\u2028z","payload":{"type":"x\u007fy\u2028z"}}` + "\n"
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var env struct {
		RunID   string `json:"run_id"`
		AgentID string `json:"agent_id"`
		Kind    string `json:"kind"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	if env.RunID != decoded || env.AgentID != decoded || env.Kind != "x\x7fy\u2028z" {
		t.Errorf("decoded run_id %q, agent_id %q, kind %q", env.RunID, env.AgentID, env.Kind)
	}
}

// Runs: each prompt is a run from zot's ack (or the first event) to done.
func TestRuns(t *testing.T) {
	stream := []string{
		`{"type":"turn_start","step":1}`,                        // no ack: the first event starts run 1
		`{"type":"done"}`,                                       // ends it
		`{"command":"prompt","success":true,"type":"response"}`, // run 2
		`{"type":"user_message"}`,
		`{"command":"abort","success":true,"type":"response"}`,  // another command: same run
		`{"command":"prompt","success":true,"type":"response"}`, // a prompt ack without done before: run 3
		`{"type":"done"}`,
		`{"command":"prompt","success":false,"type":"response"}`, // refused prompt after done: run 4
		`{"type":"done"}`,
		`{"type":"turn_start"}`, // after done: run 5
	}
	wantRuns := []string{"1", "1", "2", "2", "2", "3", "3", "4", "4", "5"}
	for _, tc := range []struct {
		cfg    config
		prefix string
		name   func(n string) string
	}{
		{config{Stable: true, SeqStart: "1", Agent: "zot"}, "", func(n string) string { return "r_" + n }},
		{config{Stable: true, SeqStart: "1", Agent: "zot", RunID: "nightly"}, "", func(n string) string {
			if n == "1" {
				return "nightly"
			}
			return "nightly." + n
		}},
	} {
		c := mustConverter(t, tc.cfg)
		for i, line := range stream {
			out, written, err := c.convert(nil, []byte(line))
			if err != nil || !written {
				t.Fatalf("line %d: %v", i+1, err)
			}
			var env struct {
				RunID string `json:"run_id"`
			}
			if err := json.Unmarshal(out, &env); err != nil {
				t.Fatal(err)
			}
			if want := tc.name(wantRuns[i]); env.RunID != want {
				t.Errorf("line %d (%s): run_id %q, want %q", i+1, line, env.RunID, want)
			}
		}
	}
	// The default outside stable mode is random, so that appended logs of
	// two invocations do not share ids.
	a := mustConverter(t, config{SeqStart: "1"})
	b := mustConverter(t, config{SeqStart: "1"})
	a.nextRun()
	b.nextRun()
	if bytes.Equal(a.runID, b.runID) || !strings.HasPrefix(string(a.runID), `"r_`) || !strings.HasSuffix(string(a.runID), `_1"`) {
		t.Errorf("default run ids %s and %s: want distinct r_<random>_1", a.runID, b.runID)
	}
}

func TestTS(t *testing.T) {
	lines := []string{
		`{"type":"response"}`,
		`{"time":"2026-06-21T22:36:06.817Z","type":"user_message"}`,
		`{"type":"turn_start"}`,
		`{"time":"...","type":"assistant_message"}`,
		`{"time":"2026-06-21T22:36:09Z","type":"assistant_message"}`,
		`{"type":"done"}`,
	}
	for _, tc := range []struct {
		stable bool
		want   []string
	}{
		{true, []string{"0", "1782081366.817", "1782081366.817", "1782081366.817", "1782081369", "1782081369"}},
		{false, []string{"1796000523.456", "1782081366.817", "1796000523.456", "1796000523.456", "1782081369", "1796000523.456"}},
	} {
		c := mustConverter(t, config{Stable: tc.stable, SeqStart: "1", Agent: "zot"})
		for i, line := range lines {
			out, _, err := c.convert(nil, []byte(line))
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				TS json.Number `json:"ts"`
			}
			dec := json.NewDecoder(bytes.NewReader(out))
			dec.UseNumber()
			if err := dec.Decode(&env); err != nil {
				t.Fatal(err)
			}
			if string(env.TS) != tc.want[i] {
				t.Errorf("stable %v, line %d: ts %s, want %s", tc.stable, i+1, env.TS, tc.want[i])
			}
		}
	}
}

// --ts=now: an event without a time gets the clock's reading when it is
// read, whatever the clock says, the Unix epoch included (a machine
// without a real-time clock boots there).
func TestTSFollowsTheClock(t *testing.T) {
	clock := []time.Time{time.UnixMilli(0), time.UnixMilli(0), time.UnixMilli(1500), time.UnixMilli(1500), time.UnixMilli(2250)}
	want := []string{"0", "0", "1.5", "1.5", "2.25"}
	i := 0
	c, err := newConverter(config{SeqStart: "1"}, func() time.Time { return clock[i] })
	if err != nil {
		t.Fatal(err)
	}
	for ; i < len(clock); i++ {
		out, _, err := c.convert(nil, []byte(`{"type":"turn_start"}`))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			TS json.Number `json:"ts"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if string(env.TS) != want[i] {
			t.Errorf("clock at %v: ts %s, want %s", clock[i].UnixMilli(), env.TS, want[i])
		}
	}
}

// A bad line changes nothing: no seq is used, no run is started.
func TestBadLineKeepsState(t *testing.T) {
	c := mustConverter(t, config{Stable: true, SeqStart: "1", Agent: "zot"})
	for _, bad := range []string{`{"type":`, `[1]`, `7`, `nope`, `{"no":"type"}`} {
		if _, _, err := c.convert(nil, []byte(bad)); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
	out, _, err := c.convert(nil, []byte(`{"type":"done"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seq":1,"ts":0,"run_id":"r_1","agent_id":"","kind":"agent_end","payload":{"type":"done"}}` + "\n"
	if string(out) != want {
		t.Errorf("got %s want %s", out, want)
	}
}

// checkEnvelope checks one envelope line against the zot line it came from.
func checkEnvelope(t *testing.T, line, out []byte, fields *zot.Fields) {
	t.Helper()
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("output is not one line: %q", out)
	}
	if !json.Valid(out) {
		t.Fatalf("output is not JSON: %s", out)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("output is not an object: %s", out)
	}
	if len(env) != 6 {
		t.Fatalf("output has %d keys: %s", len(env), out)
	}
	at := -1
	for _, k := range []string{`{"seq":`, `,"ts":`, `,"run_id":`, `,"agent_id":`, `,"kind":`, `,"payload":`} {
		i := bytes.Index(out, []byte(k))
		if i <= at {
			t.Fatalf("key %s out of order in %s", k, out)
		}
		at = i
	}
	if want := trimSpace(line); !bytes.Equal(env["payload"], want) {
		t.Fatalf("payload %s, want the input %s", env["payload"], want)
	}
	var kind string
	json.Unmarshal(env["kind"], &kind)
	wantKind, _ := zot.Kind(string(fields.Name), fields.Failed())
	if kind != wantKind {
		t.Fatalf("kind %q, want %q", kind, wantKind)
	}
}

// FuzzMap: any line gives either a reason it is not a zot event (and then
// it is not one) or an envelope whose payload is the line's bytes.
func FuzzMap(f *testing.F) {
	for _, s := range []string{
		`{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`,
		`{"command":"prompt","success":false,"type":"response"}`,
		`{"content":[{"text":"hi","type":"text"}],"time":"2026-06-21T22:36:06.817Z","type":"user_message"}`,
		`{"cache_read":12345678901234567890,"cost_usd":0.00012,"type":"usage"}`,
		`{"type":"done"}`, ` {"type":"x\u0000y"} `, `{"t\u0079pe":"tool_call","type":"turn_end"}`,
		`{"type":"\u00e9\ud800"}`, `[{"type":"done"}]`, `12`, `{"type":"done"`, `{"type":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var ref zot.Fields
		refErr := zot.Scan(line, &ref)
		for _, bare := range []bool{false, true} {
			c := mustConverter(t, config{Stable: true, SeqStart: "1", Agent: "zot", Bare: bare})
			out, written, err := c.convert(nil, line)
			if err != nil {
				if refErr == nil {
					t.Fatalf("convert rejected a zot event %q: %v", line, err)
				}
				if len(out) != 0 || written {
					t.Fatalf("output for a bad line: %q", out)
				}
				var v map[string]any
				if json.Unmarshal(line, &v) == nil && v != nil {
					if typ, ok := v["type"].(string); ok && typ != "" {
						t.Fatalf("rejected a JSON object with a type: %q: %v", line, err)
					}
				}
				continue
			}
			if !written {
				t.Fatalf("nothing written without --ui")
			}
			if !bare {
				checkEnvelope(t, line, out, &ref)
				continue
			}
			checkBare(t, line, out, &ref)
		}
	})
}

// checkBare: the output is the input object with type set to the kind and
// zot_type the original type; every other member is unchanged.
func checkBare(t *testing.T, line, out []byte, ref *zot.Fields) {
	t.Helper()
	var in, got map[string]json.RawMessage
	if err := json.Unmarshal(line, &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("bare output is not a JSON object: %s: %v", out, err)
	}
	wantKind, _ := zot.Kind(string(ref.Name), ref.Failed())
	var kind, zotType string
	json.Unmarshal(got["type"], &kind)
	json.Unmarshal(got["zot_type"], &zotType)
	if kind != wantKind || zotType != string(ref.Name) {
		t.Fatalf("bare %s: type %q zot_type %q, want %q %q", out, kind, zotType, wantKind, ref.Name)
	}
	for k, v := range in {
		if k == "type" || k == "zot_type" {
			continue
		}
		if !bytes.Equal(got[k], v) {
			t.Fatalf("bare changed %q: %s -> %s", k, v, got[k])
		}
	}
	if len(got) != len(in)+1 && !(len(got) == len(in) && in["zot_type"] != nil) {
		t.Fatalf("bare %s has %d keys, input %d", out, len(got), len(in))
	}
}

// --ui drops exactly what glasspane does not map.
func TestUI(t *testing.T) {
	c := mustConverter(t, config{Stable: true, SeqStart: "1", Agent: "zot", UI: true})
	for line, keep := range map[string]bool{
		`{"type":"response","success":true}`:  false,
		`{"type":"response","success":false}`: true,
		`{"type":"response"}`:                 false,
		`{"type":"usage"}`:                    false,
		`{"type":"tool_call"}`:                false,
		`{"type":"future_type"}`:              false,
		`{"type":"tool_use_start"}`:           true,
		`{"type":"done"}`:                     true,
	} {
		_, written, err := c.convert(nil, []byte(line))
		if err != nil || written != keep {
			t.Errorf("--ui %s: written %v (err %v), want %v", line, written, err, keep)
		}
	}
}

func BenchmarkConvert(b *testing.B) {
	line := []byte(`{"content":[{"args":{"command":"uname -a"},"id":"call_00_x","name":"bash","type":"tool_call"}],"time":"2026-06-21T22:36:07.101Z","type":"assistant_message"}`)
	c := mustConverter(b, config{Stable: true, SeqStart: "1", Agent: "zot"})
	var out []byte
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		out, _, _ = c.convert(out[:0], line)
	}
}

// nested is a zot event whose deepest value is depth levels down, the
// event object itself being level 1.
func nested(depth int) []byte {
	return []byte(`{"type":"tool_call","s":"[[{\"[","args":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
}

// Item 19: what zot2gp writes, evfilter and evsum read. The envelope is
// one level around the payload, so an event as deep as the limit every
// tool shares would come out one level too deep: it is reported as a bad
// line, not written.
func TestDepthLimitIsTheSiblings(t *testing.T) {
	c := mustConverter(t, config{Stable: true, SeqStart: "1", Agent: "zot"})
	out, _, err := c.convert(nil, nested(jsonscan.MaxDepth-1))
	if err != nil {
		t.Fatalf("an event %d deep: %v", jsonscan.MaxDepth-1, err)
	}
	if err := jsonscan.Members(bytes.TrimSpace(out), func(k, v []byte) {}); err != nil {
		t.Fatalf("the envelope of an event %d deep is refused by the other tools: %v", jsonscan.MaxDepth-1, err)
	}
	out, _, err = c.convert(nil, nested(jsonscan.MaxDepth))
	if err == nil {
		t.Fatalf("an event %d deep was written, and the other tools refuse its envelope", jsonscan.MaxDepth)
	}
	if len(out) != 0 || !strings.Contains(err.Error(), strconv.Itoa(jsonscan.MaxDepth)) {
		t.Errorf("wrote %d bytes; reason %q", len(out), err)
	}
	// --format bare adds no level: the object as deep as the limit passes.
	b := mustConverter(t, config{Bare: true, Stable: true, SeqStart: "1", Agent: "zot"})
	if out, _, err := b.convert(nil, nested(jsonscan.MaxDepth)); err != nil || jsonscan.Members(bytes.TrimSpace(out), func(k, v []byte) {}) != nil {
		t.Errorf("bare, %d deep: %v", jsonscan.MaxDepth, err)
	}
}
