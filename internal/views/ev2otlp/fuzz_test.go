package ev2otlp

import (
	"bytes"
	"testing"
)

// FuzzConvert: any input, of any vocabulary or none, never crashes the
// converter, and every line it writes is OTLP/JSON the Collector reads,
// in the letter of the specification; its protobuf form decodes too.
func FuzzConvert(f *testing.F) {
	for _, name := range []string{"../../../examples/events/multiagent.jsonl", "../../../examples/output/zot/uname.gp.jsonl", "testdata/claude.jsonl", "../../../examples/zot/auth-401.jsonl"} {
		f.Add(readFile(f, name))
	}
	f.Add([]byte(`{"run_id":"r","kind":"tool_result","agent_id":"a","payload":{"tool":"x","ok":false}}` + "\n" + `{"kind":"agent_finished","payload":{"outcome":"killed"}}`))
	f.Add([]byte(`{"seq":1e400,"ts":-5,"run_id":"","kind":"model_result","payload":{"input":99999999999999999999,"latency_ms":"x","cost_usd":1e300}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		c := newConverter(config{content: true}, func(b *batch) error {
			out.Write(appendJSON(nil, b))
			out.WriteByte('\n')
			checkProto(t, b)
			return nil
		})
		for _, line := range bytes.Split(data, []byte("\n")) {
			c.line(line)
		}
		c.finish()
		decodeAll(t, out.Bytes())
	})
}
