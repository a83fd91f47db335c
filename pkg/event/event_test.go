package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		line    string
		vocab   string // "" for none
		meaning Meaning
		flags   Flags
	}{
		// the glasspane vocabulary: kinds around zot payloads
		{`{"kind":"message_update","payload":{"type":"text_delta","delta":"Hi"}}`, "glasspane", Text, Delta},
		{`{"kind":"message_update","payload":{"type":"user_message","content":[]}}`, "glasspane", UserMessage, 0},
		{`{"kind":"message_update","payload":{"type":"something_new"}}`, "glasspane", Other, 0},
		{`{"kind":"turn_start","payload":{"type":"turn_start","step":1}}`, "glasspane", ModelCall, Turn},
		{`{"kind":"turn_end","payload":{"type":"turn_end","stop":"end"}}`, "glasspane", ModelEnd, Turn},
		{`{"kind":"tool_execution_start","payload":{"id":"c1","name":"bash"}}`, "glasspane", ToolStart, 0},
		{`{"kind":"tool_execution_update","payload":{"type":"tool_use_args","id":"c1","delta":"{"}}`, "glasspane", ToolUpdate, Delta},
		{`{"kind":"tool_execution_update","payload":{"type":"tool_use_end","id":"c1"}}`, "glasspane", ToolUpdate, 0},
		{`{"kind":"tool_execution_end","payload":{"id":"c1","is_error":true}}`, "glasspane", ToolEnd, 0},
		{`{"kind":"tool_call","payload":{"type":"tool_call","id":"c1","name":"bash","args":{}}}`, "glasspane", ToolStart, Restated},
		{`{"kind":"usage","payload":{"type":"usage","cost_usd":0.1}}`, "glasspane", ModelResult, 0},
		{`{"kind":"error","payload":{"type":"error","message":"401"}}`, "glasspane", Error, 0},
		{`{"kind":"agent_end","payload":{"type":"done"}}`, "glasspane", RunEnd, 0},
		{`{"kind":"response","payload":{"type":"response","success":true}}`, "glasspane", Ack, 0},
		// the run-log vocabulary
		{`{"kind":"tool_call","payload":{"tool":"grep","args":{}}}`, "run-log", ToolStart, 0},
		{`{"kind":"tool_result","payload":{"tool":"grep","ok":false}}`, "run-log", ToolEnd, 0},
		{`{"kind":"model_result","payload":{"tokens":10}}`, "run-log", ModelResult, 0},
		{`{"kind":"assistant_message","payload":{"text":"done"}}`, "run-log", Text, Final},
		{`{"kind":"run_error","payload":{"stopped":"crash"}}`, "run-log", Error, Final},
		{`{"kind":"run_finished","payload":{"outcome":"ok"}}`, "run-log", RunEnd, 0},
		{`{"kind":"killed","payload":{"reason":"budget"}}`, "run-log", Kill, 0},
		{`{"kind":"guardrail","payload":{"rule":"require_tool"}}`, "run-log", Guardrail, 0},
		{`{"kind":"model_error","payload":{}}`, "run-log", ModelError, 0},
		{`{"kind":"agent_spawned","payload":{}}`, "run-log", AgentStart, 0},
		{`{"kind":"agent_finished"}`, "run-log", AgentEnd, 0},
		{`{"kind":"parent_decision","payload":{}}`, "run-log", Decision, 0},
		{`{"kind":"run_started","payload":{}}`, "run-log", RunStart, 0},
		{`{"kind":"user_message","payload":{"text":"hi"}}`, "run-log", UserMessage, 0},
		{`{"kind":"model_call","payload":{}}`, "run-log", ModelCall, 0},
		// raw zot lines
		{`{"type":"text_delta","delta":"This"}`, "zot", Text, Delta},
		{`{"type":"tool_use_start","id":"c","name":"bash"}`, "zot", ToolStart, 0},
		{`{"type":"tool_call","id":"c","name":"bash","args":{}}`, "zot", ToolStart, Restated},
		{`{"type":"done"}`, "zot", RunEnd, 0},
		{`{"type":"assistant_start"}`, "zot", Other, 0},
		// unknown kinds and escaped keys
		{`{"kind":"heartbeat","payload":{}}`, "", Other, 0},
		{`{"k\u0069nd":"run_fin\u0069shed"}`, "run-log", RunEnd, 0},
		{`{"kind":"tool_call","kind":"killed"}`, "run-log", Kill, 0},
	} {
		var e Event
		if err := e.Read([]byte(tc.line)); err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		vocab := ""
		if e.Vocab != nil {
			vocab = e.Vocab.Name
		}
		if vocab != tc.vocab || e.Meaning != tc.meaning || e.Flags != tc.flags {
			t.Errorf("%s: %s %v %b, want %s %v %b", tc.line, vocab, e.Meaning, e.Flags, tc.vocab, tc.meaning, tc.flags)
		}
	}
}

func TestFields(t *testing.T) {
	var e Event
	buf := []byte(nil)
	read := func(line string) {
		t.Helper()
		if err := e.Read([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	str := func(f Field) string {
		s, _ := e.FieldString(f, &buf)
		return string(s)
	}

	read(`{"kind":"tool_execution_start","payload":{"type":"tool_use_start","id":"call_1","name":"b\u0061sh"}}`)
	if str(ID) != "call_1" || str(Name) != "bash" || e.Field(Args) != nil {
		t.Errorf("tool start: id %q name %q args %q", str(ID), str(Name), e.Field(Args))
	}
	read(`{"kind":"tool_execution_start","payload":{"id":"c","tool":"grep"}}`)
	if str(Name) != "grep" {
		t.Errorf("name|tool: the second alternative: got %q", str(Name))
	}
	read(`{"kind":"tool_call","payload":{"step":2,"tool":"read_file","args":{"path":"a.go"}}}`)
	if str(Name) != "read_file" || string(e.Field(Args)) != `{"path":"a.go"}` || string(e.Field(Step)) != "2" {
		t.Errorf("run-log tool_call: name %q args %s step %s", str(Name), e.Field(Args), e.Field(Step))
	}

	for _, tc := range []struct {
		line   string
		failed bool
	}{
		{`{"kind":"tool_execution_end","payload":{"id":"c","is_error":true}}`, true},
		{`{"kind":"tool_execution_end","payload":{"id":"c","is_error":false}}`, false},
		{`{"kind":"tool_result","payload":{"tool":"t","ok":false}}`, true},
		{`{"kind":"tool_result","payload":{"tool":"t","ok":true}}`, false},
		{`{"kind":"tool_result","payload":{"tool":"t","ok":null}}`, false},
		{`{"kind":"turn_end","payload":{"stop":"error","error":"http 401"}}`, true},
		{`{"kind":"turn_end","payload":{"stop":"end"}}`, false},
		{`{"type":"response","success":false}`, true},
		{`{"type":"response","success":true}`, false},
		{`{"kind":"heartbeat","payload":{"ok":false}}`, false},
	} {
		read(tc.line)
		if e.Failed() != tc.failed {
			t.Errorf("%s: Failed() = %v", tc.line, !tc.failed)
		}
	}

	read(`{"kind":"run_finished","payload":{"outcome":"max_steps","wall_seconds":12.5}}`)
	if str(Outcome) != "max_steps" || string(e.Field(Wall)) != "12.5" || e.Has(ID) || !e.Has(Outcome) {
		t.Errorf("run_finished: outcome %q wall %s", str(Outcome), e.Field(Wall))
	}
	read(`{"seq":1,"kind":"agent_end"}`)
	if e.Field(Outcome) != nil || e.Failed() {
		t.Error("an event without payload has no fields")
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Usage
	}{
		{`{"kind":"model_result","payload":{"prompt_tokens":100,"completion_tokens":20,"tokens":120,"cost_usd":0.0015,"latency_ms":812.5}}`,
			Usage{Tokens: [NumTokens]int64{100, 20, 0, 0, 120}, CostNano: 1500000, HasCost: true, LatencyUS: 812500, HasLatency: true}},
		// no total: input plus output
		{`{"kind":"model_result","payload":{"input_tokens":7,"output_tokens":3}}`,
			Usage{Tokens: [NumTokens]int64{7, 3, 0, 0, 10}}},
		// the first spelling of each counter counts
		{`{"kind":"model_result","payload":{"input":5,"prompt_tokens":50,"cost_usd":1,"cost":2}}`,
			Usage{Tokens: [NumTokens]int64{5, 0, 0, 0, 5}, CostNano: 1e9, HasCost: true}},
		// zot's usage: no latency member, cumulative roll-ups not read
		{`{"kind":"usage","payload":{"type":"usage","cache_read":896,"cache_write":10,"input":1,"output":2,"latency_ms":9,"cumulative":{"input":1000}}}`,
			Usage{Tokens: [NumTokens]int64{1, 2, 896, 10, 3}}},
		// evimport's parts (reasoning of the output, 1-hour writes of the
		// cache writes: never added to the total) and its mark of a call
		// it found no price for; "unpriced" other than true marks nothing
		{`{"kind":"model_result","payload":{"input":10,"output":5,"reasoning":3,"cache_write":4,"cache_write_1h":2,"unpriced":true}}`,
			Usage{Tokens: [NumTokens]int64{10, 5, 0, 4, 15, 3, 2}, Unpriced: true}},
		{`{"kind":"model_result","payload":{"input":10,"reasoning_tokens":3,"unpriced":"yes","cost_usd":0.5}}`,
			Usage{Tokens: [NumTokens]int64{10, 0, 0, 0, 10, 3, 0}, CostNano: 5e8, HasCost: true}},
		{`{"kind":"model_result","payload":{"tokens":"many","cost_usd":null}}`, Usage{}},
		{`{"kind":"tool_call","payload":{"tokens":5}}`, Usage{}},
		// no provider escapes these names: an escaped one is not read
		{`{"kind":"model_result","payload":{"inp\u0075t":7,"output":3,"latency\u005fms":9}}`,
			Usage{Tokens: [NumTokens]int64{0, 3, 0, 0, 3}}},
	} {
		var e Event
		if err := e.Read([]byte(tc.line)); err != nil {
			t.Fatal(err)
		}
		if got := e.Usage(); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
}

func TestEnvelope(t *testing.T) {
	var e Envelope
	line := `{"seq":1,"ts":1758800000.5,"run_id":"r","agent_id":"","kind":"k","payload":{"seq":9},"s\u0065q":22}`
	if err := e.Scan([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if string(e.Seq) != "22" || len(e.SeqAt) != 2 || line[e.SeqAt[0][0]:e.SeqAt[0][1]] != "1" || line[e.SeqAt[1][0]:e.SeqAt[1][1]] != "22" {
		t.Errorf("seq %s at %v", e.Seq, e.SeqAt)
	}
	if n, ok := e.SeqInt(); n != 22 || !ok {
		t.Errorf("SeqInt = %d, %v", n, ok)
	}
	if us, known, bad := e.Micros(); us != 1758800000500000 || !known || bad {
		t.Errorf("Micros = %d %v %v", us, known, bad)
	}
	if string(e.RunID) != `"r"` || string(e.AgentID) != `""` || string(e.Kind) != `"k"` || string(e.Payload) != `{"seq":9}` {
		t.Errorf("parts: %s %s %s %s", e.RunID, e.AgentID, e.Kind, e.Payload)
	}
	for ts, want := range map[string][3]any{
		`null`: {int64(0), false, false}, `0`: {int64(0), false, false}, `"1"`: {int64(0), false, true},
		`1e3`: {int64(1e9), true, false}, `-1.5`: {int64(-1500000), true, false},
	} {
		e.Scan([]byte(`{"ts":` + ts + `}`))
		us, known, bad := e.Micros()
		if [3]any{us, known, bad} != want {
			t.Errorf("ts %s: Micros = %d %v %v, want %v", ts, us, known, bad, want)
		}
	}
	e.Scan([]byte(`{"kind":"k"}`))
	if e.Seq != nil || e.TS != nil || e.RunID != nil || len(e.SeqAt) != 0 {
		t.Error("a second Scan keeps the first line's parts")
	}
	if _, known, bad := e.Micros(); known || bad {
		t.Error("no ts is unknown, not bad")
	}
	if err := e.Scan([]byte(`[1]`)); err == nil {
		t.Error("an array is not an event")
	}
}

// TestWant: a reader that wants neither user messages nor text reads a
// message_update as its plain row, without its payload's type; one that
// wants them tells them apart.
func TestWant(t *testing.T) {
	line := []byte(`{"kind":"message_update","payload":{"type":"text_delta","delta":"Hi"}}`)
	var e Event
	e.Want = MeaningsOf(ToolStart, ToolEnd)
	e.Read(line)
	if e.Meaning != Other || e.Vocab != Glasspane {
		t.Errorf("want tools only: %v %v, want other in glasspane", e.Meaning, e.Vocab.Name)
	}
	e.Want |= MeaningsOf(Text)
	e.Read(line)
	if e.Meaning != Text || e.Flags != Delta {
		t.Errorf("want text: %v %b", e.Meaning, e.Flags)
	}
	// A kind whose rows differ by type but which the reader wants keeps
	// its exact row; kinds without such rows are never cut short.
	e.Want = MeaningsOf(ToolUpdate)
	e.Read([]byte(`{"kind":"tool_execution_update","payload":{"type":"tool_use_args","id":"c","delta":"{"}}`))
	if e.Meaning != ToolUpdate || e.Flags != Delta || string(e.Field(Args)) != `"{"` {
		t.Errorf("want tool updates: %v %b %s", e.Meaning, e.Flags, e.Field(Args))
	}
	e.Want = MeaningsOf(Kill)
	e.Read([]byte(`{"kind":"assistant_message","payload":{"text":"done"}}`))
	if e.Meaning != Text || e.Flags != Final {
		t.Errorf("a final event is read whatever the reader wants: %v %b", e.Meaning, e.Flags)
	}
	if !MeaningsOf(Ack, Other).Has(Ack) || MeaningsOf(Ack).Has(Other) {
		t.Error("MeaningsOf/Has")
	}
}

func TestNotEvent(t *testing.T) {
	var e Event
	if err := e.Read([]byte(`{"seq":1}`)); err != ErrNotEvent {
		t.Errorf("no kind, no type: %v", err)
	}
	if err := e.Read([]byte(`{"kind":1}`)); err != nil || e.Meaning != Other || e.Name() != nil {
		t.Errorf("kind 1: %v %v %q", err, e.Meaning, e.Name())
	}
}

// TestReadAllocs: reading and classifying does not allocate per event.
func TestReadAllocs(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"seq":7,"ts":1.5,"run_id":"r","agent_id":"a","kind":"message_update","payload":{"type":"text_delta","delta":"x"}}`),
		[]byte(`{"seq":8,"kind":"model_result","payload":{"tokens":3,"cost_usd":0.1,"latency_ms":5}}`),
		[]byte(`{"s\u0065q":9,"kind":"tool_result","payload":{"tool":"t","ok":false}}`),
		[]byte(`{"type":"tool_use_start","id":"c","name":"bash"}`),
	}
	var e Event
	for _, l := range lines {
		e.Read(l)
	}
	n := testing.AllocsPerRun(100, func() {
		for _, l := range lines {
			e.Read(l)
			e.Usage()
			e.Failed()
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per 4 events", n)
	}
}

// TestVocabularies: each row names its kind once per condition, and
// every meaning has a name.
func TestVocabularies(t *testing.T) {
	for m := Meaning(0); m < numMeanings; m++ {
		if m.String() == "" || strings.HasPrefix(m.String(), "Meaning(") {
			t.Errorf("meaning %d has no name", m)
		}
	}
	names := map[string]bool{}
	for _, v := range Vocabularies() {
		names[v.Name] = true
		for i := range v.Entries {
			e := &v.Entries[i]
			if e.Vocabulary() != v {
				t.Errorf("%s %s: Vocabulary() = %v", v.Name, e.Kind, e.Vocabulary())
			}
			if e.Glasspane != "" && Lookup([]byte(e.Glasspane), nil, false) == nil {
				t.Errorf("zot %s maps to %s, which the glasspane vocabulary does not know", e.Kind, e.Glasspane)
			}
		}
	}
	if len(names) != 3 || !names["glasspane"] || !names["run-log"] || !names["zot"] {
		t.Errorf("vocabularies: %v", names)
	}
}

// FuzzRead: any line is read without a panic, and an envelope's parts are
// what encoding/json sees.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"kind":"tool_call","payload":{"tool":"x"}}`,
		`{"type":"text_delta","delta":"a"}`,
		`{"k\u0069nd":"run_finished","payload":{"outcome":"ok"}}`,
		`{"kind":"message_update","payload":{"type":"text_delta"}}`,
		`not json`, `{}`, `[]`, `null`, ` null `,
		// the payload's members as the scan records them: the last
		// payload wins, an escaped key, more members than are kept, a
		// payload that is not an object, a type given twice
		`{"kind":"model_result","payload":{"tokens":1},"payload":{"tokens":2,"cost_usd":0.5}}`,
		`{"kind":"model_result","p\u0061yload":{"t\u006fkens":3},"x":{"tokens":9}}`,
		`{"kind":"model_result","payload":{` + strings.Repeat(`"a":1,`, 70) + `"tokens":4,"latency_ms":7}}`,
		`{"kind":"tool_call","payload":[{"tool":"x"}]}`,
		`{"kind":"message_update","payload":{"type":"text_delta","type":"user","text":"hi"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var e Event
		err := e.Read([]byte(line))
		// Read with the payload's members recorded in the scan reads
		// what a second pass over the payload reads.
		recordPayload = false
		var again Event
		again.Read([]byte(line))
		recordPayload = true
		if e.Entry != again.Entry || e.Meaning != again.Meaning || e.Usage() != again.Usage() {
			t.Fatalf("%q: row %v, meaning %v, usage %+v; read again: %v, %v, %+v", line, e.Entry, e.Meaning, e.Usage(), again.Entry, again.Meaning, again.Usage())
		}
		for f := Field(0); f < numFields; f++ {
			if !bytes.Equal(e.Field(f), again.Field(f)) {
				t.Fatalf("%q: field %d is %s; read again: %s", line, f, e.Field(f), again.Field(f))
			}
		}
		var m map[string]json.RawMessage
		jerr := json.Unmarshal([]byte(line), &m)
		if jerr == nil && m == nil {
			// encoding/json reads null into a map as no map at all; a
			// line that is no object is no event.
			jerr = errors.New("null is not an object")
		}
		if (jerr == nil) != (err == nil || err == ErrNotEvent) {
			t.Fatalf("%q: Read says %v, encoding/json %v", line, err, jerr)
		}
		if jerr != nil {
			return
		}
		for key, got := range map[string][]byte{"seq": e.Seq, "ts": e.TS, "run_id": e.RunID, "agent_id": e.AgentID, "kind": e.Kind, "payload": e.Payload} {
			want, ok := m[key]
			if ok != (got != nil) || ok && compact(want) != compact(got) {
				t.Fatalf("%q: %s = %s, encoding/json %s", line, key, got, want)
			}
		}
		e.Usage()
		e.Failed()
		for f := Field(0); f < numFields; f++ {
			e.Field(f)
		}
	})
}

func compact(b []byte) string {
	var v any
	json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return string(out)
}

// TestRowsOfCache: the kinds' rows come from the event's cache as they
// come from the tables, whatever kinds share a slot and in whatever order
// they are met, envelope and raw kinds of one name apart.
func TestRowsOfCache(t *testing.T) {
	type k struct {
		name string
		raw  bool
	}
	var kinds []k
	for name := range envelopeRows {
		kinds = append(kinds, k{name, false})
	}
	for name := range rawRows {
		kinds = append(kinds, k{name, true})
	}
	kinds = append(kinds, k{"no_such_kind", false}, k{"x", true})
	var e Event
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 * len(kinds) {
		c := kinds[rng.IntN(len(kinds))]
		want := envelopeRows[c.name]
		if c.raw {
			want = rawRows[c.name]
		}
		if got := e.rowsOf([]byte(c.name), c.raw); !slices.Equal(got, want) {
			t.Fatalf("rowsOf(%q, raw %v): %d rows, want %d", c.name, c.raw, len(got), len(want))
		}
	}
}

// TestReadAfterForgetAndManyMembers: an event reads the same after Forget
// (which drops the line, not the reader's rooms), and after many top-level
// objects before the payload, whose members the scan records and lets go
// one object at a time (more of them than it has room for at once).
func TestReadAfterForgetAndManyMembers(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{`)
	for i := range 80 {
		fmt.Fprintf(&many, `"x%d":{"a":%d},`, i, i)
	}
	many.WriteString(`"seq":3,"kind":"model_result","payload":{"tokens":7,"cost_usd":0.5}}`)
	for _, line := range []string{
		`{"seq":3,"kind":"model_result","payload":{"tokens":7,"cost_usd":0.5}}`,
		many.String(),
	} {
		var e Event
		for round := range 3 {
			if err := e.Read([]byte(line)); err != nil {
				t.Fatal(err)
			}
			if u := e.Usage(); string(e.Kind) != `"model_result"` || string(e.Seq) != "3" || u.Tokens[TokTotal] != 7 || u.CostNano != 5e8 {
				t.Fatalf("round %d of %.40s...: kind %s, seq %s, usage %+v", round, line, e.Kind, e.Seq, u)
			}
			e.Forget()
		}
	}
}
