package event

import "testing"

// BenchmarkRead reads and classifies a mix of glasspane and run-log
// events, the fold every view starts with.
func BenchmarkRead(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"seq":7,"ts":1758800000.12,"run_id":"r_1","agent_id":"","kind":"message_update","payload":{"delta":" system","type":"text_delta"}}`),
		[]byte(`{"seq":8,"ts":1758800000.13,"run_id":"r_1","agent_id":"","kind":"tool_execution_start","payload":{"id":"call_00_x","name":"bash","type":"tool_use_start"}}`),
		[]byte(`{"seq":9,"ts":1758800000.14,"run_id":"r_2","agent_id":"tester","kind":"model_result","payload":{"step":1,"decision_kind":"tool_call","tokens":1200,"prompt_tokens":1100,"completion_tokens":100,"cost_usd":0.0012,"latency_ms":640,"provider":"deepseek","model":"v4"}}`),
		[]byte(`{"seq":10,"ts":1758800000.15,"run_id":"r_2","agent_id":"tester","kind":"tool_result","payload":{"step":1,"tool":"run_tests","ok":true}}`),
	}
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	var e Event
	for b.Loop() {
		for _, l := range lines {
			if err := e.Read(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
