package event_test

import (
	"fmt"

	"github.com/evtools/evtools/pkg/event"
)

// Events of three vocabularies read into one set of meanings.
func Example() {
	lines := []string{
		`{"seq":1,"ts":1758800000.1,"run_id":"r_1","agent_id":"","kind":"tool_execution_start","payload":{"type":"tool_use_start","id":"call_1","name":"bash"}}`,
		`{"seq":2,"ts":1758800001.3,"run_id":"r_2","agent_id":"tester","kind":"tool_result","payload":{"step":1,"tool":"run_tests","ok":false}}`,
		`{"type":"text_delta","delta":"The kernel is 15.0"}`,
		`{"seq":4,"kind":"model_result","payload":{"prompt_tokens":900,"completion_tokens":40,"cost_usd":0.0021,"latency_ms":812}}`,
	}
	var e event.Event
	var buf []byte
	for _, l := range lines {
		if err := e.Read([]byte(l)); err != nil {
			fmt.Println("bad line:", err)
			continue
		}
		name, _ := e.FieldString(event.Name, &buf)
		switch e.Meaning {
		case event.ToolStart:
			fmt.Printf("%s: %s starts a tool call: %s\n", e.Vocab.Name, e.Name(), name)
		case event.ToolEnd:
			fmt.Printf("%s: %s ends a tool call: %s, failed %v\n", e.Vocab.Name, e.Name(), name, e.Failed())
		case event.Text:
			text, _ := e.FieldString(event.Body, &buf)
			fmt.Printf("%s: %s is assistant text (a piece: %v): %q\n", e.Vocab.Name, e.Name(), e.Flags&event.Delta != 0, text)
		case event.ModelResult:
			u := e.Usage()
			fmt.Printf("%s: %s: %d tokens, %d nano-USD, %d µs\n", e.Vocab.Name, e.Name(), u.Tokens[event.TokTotal], u.CostNano, u.LatencyUS)
		}
	}
	// Output:
	// glasspane: tool_execution_start starts a tool call: bash
	// run-log: tool_result ends a tool call: run_tests, failed true
	// zot: text_delta is assistant text (a piece: true): "The kernel is 15.0"
	// run-log: model_result: 940 tokens, 2100000 nano-USD, 812000 µs
}
