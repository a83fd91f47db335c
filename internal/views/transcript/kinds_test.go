package transcript

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evtools/evtools/pkg/event"
)

// Every kind of every vocabulary has its rendering: an event whose row
// gives it a meaning never shows as an unknown kind with its payload, and
// one that means something a reader sees (not a turn's end, an
// acknowledgement gone well, a restated call, a piece of arguments) adds
// an entry.
func TestEveryKindIsRendered(t *testing.T) {
	quiet := event.MeaningsOf(event.RunStart, event.ModelEnd, event.Ack, event.ToolUpdate, event.ModelResult, event.AgentStart, event.AgentEnd)
	for _, v := range event.Vocabularies() {
		for _, e := range v.Entries {
			if e.Meaning == event.Other {
				continue
			}
			payload := `{"step":1,"text":"a text","content":"a text","delta":"a piece","message":"a message","error":"an error","reason":"a reason","rule":"a rule","tool":"bash","name":"bash","id":"c1","args":{"command":"ls"},"role":"helper","model":"m1","outcome":"ok","success":true`
			if e.Type != "" {
				payload += `,"type":"` + e.Type + `"`
			}
			payload += "}"
			var line string
			if v.Raw {
				line = strings.Replace(payload, "{", `{"type":"`+e.Kind+`",`, 1) // a raw line: its type is the kind
			} else {
				line = fmt.Sprintf(`{"seq":1,"ts":1780000000,"run_id":"r","agent_id":"a","kind":%q,"payload":%s}`, e.Kind, payload)
			}
			var b bytes.Buffer
			w := New(&b, Options{Loc: time.UTC})
			w.Write([]byte(`{"seq":0,"ts":1780000000,"run_id":"r","agent_id":"a","kind":"user_message","payload":{"text":"start"}}` + "\n"))
			w.Write([]byte(line + "\n"))
			w.Close()
			page := b.String()
			name := v.Name + " " + e.Kind
			if e.Type != "" {
				name += " (" + e.Type + ")"
			}
			if strings.Contains(page, `class="e other"`) {
				t.Errorf("%s (%s) shows as an unknown kind", name, e.Meaning)
			}
			entries := strings.Count(page, `<li class="e `)
			if !quiet.Has(e.Meaning) && e.Flags&event.Restated == 0 && entries < 2 {
				t.Errorf("%s (%s) adds no entry", name, e.Meaning)
			}
		}
	}
}
