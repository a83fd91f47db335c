package zot_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/evtools/evtools/internal/sources/zot"
	"github.com/evtools/evtools/pkg/event"
)

// The glasspane mapping (docs/formats.md), row by row.
func TestKind(t *testing.T) {
	tests := []struct {
		typ    string
		failed bool
		kind   string
		mapped bool
	}{
		{"response", false, "response", false},
		{"response", true, "error", true},
		{"user_message", false, "message_update", true},
		{"turn_start", false, "turn_start", true},
		{"assistant_start", false, "message_start", true},
		{"tool_use_start", false, "tool_execution_start", true},
		{"tool_use_args", false, "tool_execution_update", true},
		{"tool_use_end", false, "tool_execution_update", true},
		{"usage", false, "usage", false},
		{"assistant_message", false, "message_end", true},
		{"tool_call", false, "tool_call", false},
		{"turn_end", false, "turn_end", true},
		{"tool_progress", false, "tool_execution_update", true},
		{"tool_result", false, "tool_execution_end", true},
		{"text_delta", false, "message_update", true},
		{"error", false, "error", true},
		{"done", false, "agent_end", true},
		// Only a response can fail; success:false elsewhere changes nothing.
		{"turn_end", true, "turn_end", true},
		{"tool_call", true, "tool_call", false},
		// Types zot adds later pass through as their own kind.
		{"compaction", false, "compaction", false},
		{"Done", false, "Done", false},
	}
	for _, tt := range tests {
		kind, mapped := zot.Kind(tt.typ, tt.failed)
		if kind != tt.kind || mapped != tt.mapped {
			t.Errorf("Kind(%q, %v) = %q, %v; want %q, %v", tt.typ, tt.failed, kind, mapped, tt.kind, tt.mapped)
		}
	}
}

// The zot table has zot's 16 types, and glasspane's mapping sends each one
// it maps to a glasspane kind; the others keep their type as their kind.
func TestTableIsComplete(t *testing.T) {
	if n := len(event.Zot.Entries); n != 16 {
		t.Errorf("%d zot types, the zot RPC stream has 16", n)
	}
	glasspane := map[string]bool{}
	for _, e := range event.Glasspane.Entries {
		glasspane[e.Kind] = true
	}
	unmapped := 0
	for _, e := range event.Zot.Entries {
		kind, inTable := zot.Glasspane[e.Kind]
		switch {
		case !inTable:
			unmapped++
		case kind != e.Glasspane || !glasspane[kind]:
			t.Errorf("%s maps to %q, not to the glasspane kind %q of its row", e.Kind, kind, e.Glasspane)
		}
	}
	if unmapped != 3 || len(zot.Glasspane) != 13 {
		t.Errorf("%d types mapped and %d not; glasspane maps 13 and leaves response, usage and tool_call", len(zot.Glasspane), unmapped)
	}
}

// The session's own events (agent_id "") are the response, the user's
// message and the end; an unknown type is the agent's.
func TestSessionLevel(t *testing.T) {
	for _, e := range event.Zot.Entries {
		want := e.Kind == "response" || e.Kind == "user_message" || e.Kind == "done"
		if r := zot.Row([]byte(e.Kind)); r == nil || r.Session != want {
			t.Errorf("%s: session %v, want %v", e.Kind, r != nil && r.Session, want)
		}
	}
	if zot.Row([]byte("compaction")) != nil {
		t.Errorf("an unknown type has a row")
	}
}

func TestScan(t *testing.T) {
	tests := []struct {
		line    string
		name    string
		time    string
		failed  bool
		prompt  bool
		types   int
		wantErr string // substring of the reason
	}{
		{line: `{"command":"prompt","data":{"started":true},"id":"1","success":true,"type":"response"}`,
			name: "response", prompt: true, types: 1},
		{line: `{"command":"prompt","id":"1","success":false,"type":"response"}`,
			name: "response", failed: true, types: 1},
		{line: `{"command":"abort","success":true,"type":"response"}`, name: "response", types: 1},
		{line: `{"time":"2026-06-21T22:36:06.817Z","type":"user_message","content":[{"type":"text","time":"x"}]}`,
			name: "user_message", time: `"2026-06-21T22:36:06.817Z"`, types: 1},
		{line: ` {"type" : "done"} `, name: "done", types: 1},
		{line: `{"t\u0079pe":"tool_\u0063all"}`, name: "tool_call", types: 1},
		{line: `{"type":"a","type":"turn_end"}`, name: "turn_end", types: 2},
		{line: `{"type":"text_delta","delta":"caf\u00e9"}`, name: "text_delta", types: 1},
		{line: `{"type":"new_thing"}`, name: "new_thing", types: 1},
		// Decoded as encoding/json does (zot2gp writes it as the kind):
		// escapes undone, invalid UTF-8 as U+FFFD.
		{line: `{"type":"\\"}`, name: `\`, types: 1},
		{line: `{"type":"a\\\"b"}`, name: `a\"b`, types: 1},
		{line: "{\"type\":\"\x80\"}", name: "\ufffd", types: 1},
		{line: "{\"type\":\"\xc3\xa9\"}", name: "é", types: 1},
		// A type nested deeper is not the event's type.
		{line: `{"content":[{"type":"text"}]}`, wantErr: `no "type" member`},
		{line: `{}`, wantErr: `no "type" member`},
		{line: `{"type":""}`, wantErr: `"type" is empty`},
		{line: `{"type":1}`, wantErr: `"type" is a number, not a string`},
		{line: `{"type":null}`, wantErr: `"type" is null, not a string`},
		{line: `{"type":["done"]}`, wantErr: `"type" is an array, not a string`},
		{line: `[{"type":"done"}]`, wantErr: "object"},
		{line: `42`, wantErr: "object"},
		{line: `{"type":"done"`, wantErr: "end"},
		{line: `not json`, wantErr: "invalid"},
	}
	var f zot.Fields
	for _, tt := range tests {
		err := zot.Scan([]byte(tt.line), &f)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Scan(%s) error = %v, want one containing %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Scan(%s): %v", tt.line, err)
			continue
		}
		if string(f.Name) != tt.name || string(f.Time) != tt.time || f.Failed() != tt.failed ||
			f.IsPromptAck() != tt.prompt || len(f.TypeValues) != tt.types {
			t.Errorf("Scan(%s) = name %q time %q failed %v prompt %v types %d; want %q %q %v %v %d",
				tt.line, f.Name, f.Time, f.Failed(), f.IsPromptAck(), len(f.TypeValues),
				tt.name, tt.time, tt.failed, tt.prompt, tt.types)
		}
	}
}

// FuzzScan: Scan accepts exactly the JSON objects whose last top-level
// "type" is a non-empty string, and decodes it as encoding/json does.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"type":"done"}`, `{"type":"response","success":false,"command":"prompt"}`,
		`{"t\u0079pe":"x\u00e9"}`, `{"type":1}`, `{"type":"a","type":"b"}`, `[]`, `{"type":"\ud800"}`,
		`{"time":"2026-06-21T22:36:06.817Z","type":"user_message"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fields zot.Fields
		err := zot.Scan(line, &fields)
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) != nil || obj == nil {
			if err == nil {
				t.Fatalf("Scan accepted %q, which is not a JSON object", line)
			}
			return
		}
		var typ string
		raw, has := obj["type"]
		isString := has && json.Unmarshal(raw, &typ) == nil
		switch {
		case !has:
			if !errors.Is(err, zot.ErrNoType) {
				t.Fatalf("Scan(%q) = %v, want ErrNoType", line, err)
			}
		case !isString:
			if err == nil {
				t.Fatalf("Scan(%q) accepted a non-string type %s", line, raw)
			}
		case typ == "":
			if !errors.Is(err, zot.ErrEmptyType) {
				t.Fatalf("Scan(%q) = %v, want ErrEmptyType", line, err)
			}
		default:
			if err != nil {
				t.Fatalf("Scan(%q): %v", line, err)
			}
			if string(fields.Name) != typ {
				t.Fatalf("Scan(%q) type %q, want %q", line, fields.Name, typ)
			}
		}
	})
}

func BenchmarkScan(b *testing.B) {
	line := []byte(`{"content":[{"args":{"command":"uname -a"},"id":"call_00_x","name":"bash","type":"tool_call"}],"time":"2026-06-21T22:36:07.101Z","type":"assistant_message"}`)
	var f zot.Fields
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if err := zot.Scan(line, &f); err != nil {
			b.Fatal(err)
		}
	}
}
