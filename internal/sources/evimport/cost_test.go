package evimport

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// Gemini bills thinking at the output rate: a Gemini CLI call's cost is
// its uncached input, its cached input and its output and thoughts
// together, each at the table's price, computed here by hand from the
// table's entries (gemini-3-pro-preview: input $2, cache reads $0.20,
// output $12; gemini-3-pro-image-preview: input $2, no cache price, text
// output $12). gemini-3-pro is the name Gemini CLI logs.
func TestGeminiCostCountsThoughtsAsOutput(t *testing.T) {
	chat := `{"sessionId":"7d2e4f6a-1b3c-4d5e-8f90-a1b2c3d4e5f6","projectHash":"ab12","startTime":"2026-03-05T10:00:00.000Z","kind":"main"}
{"id":"c-u1","timestamp":"2026-03-05T10:00:00.000Z","type":"user","content":"why does the build fail?"}
{"id":"c-m1","timestamp":"2026-03-05T10:00:06.000Z","type":"gemini","content":"A missing import.","model":"gemini-3-pro","tokens":{"input":12000,"output":80,"cached":9000,"thoughts":450,"tool":0,"total":12530}}
{"id":"c-m2","timestamp":"2026-03-05T10:00:09.000Z","type":"gemini","content":"Fixed.","model":"gemini-3-pro-image-preview","tokens":{"input":3000,"output":20,"cached":1000,"thoughts":130,"tool":0,"total":3150}}
`
	dir := writeFiles(t, map[string]string{"chats/session-2026-03-05T10-00-7d2e4f6a.jsonl": chat})
	code, out, errs := runMain("", dir+"/chats/session-2026-03-05T10-00-7d2e4f6a.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := map[string]float64{
		"gemini-3-pro":               (3000*2 + 9000*0.2 + (80+450)*12) / 1e6,
		"gemini-3-pro-image-preview": (2000*2 + 1000*2 + (20+130)*12) / 1e6,
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(line, `"kind":"model_result"`) {
			continue
		}
		var ev struct {
			Payload struct {
				Model    string
				CostUSD  *float64 `json:"cost_usd"`
				Unpriced bool
			}
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		w, ok := want[ev.Payload.Model]
		if !ok {
			t.Errorf("model_result of %q", ev.Payload.Model)
			continue
		}
		delete(want, ev.Payload.Model)
		if ev.Payload.CostUSD == nil {
			t.Errorf("%s: no cost (unpriced %v)", ev.Payload.Model, ev.Payload.Unpriced)
		} else if math.Abs(*ev.Payload.CostUSD-w) > 1e-9 {
			t.Errorf("%s: cost %v, want %v", ev.Payload.Model, *ev.Payload.CostUSD, w)
		}
	}
	for m := range want {
		t.Errorf("no model_result of %s", m)
	}
}
