package runs

import (
	"strings"
	"testing"

	"github.com/evtools/evtools/pkg/event"
)

// life reads lines into a tracker as a view does, and says what each did
// to the run's life: which call an event began, answered or ended.
func life(t testing.TB, lines ...string) []string {
	t.Helper()
	var tr Tracker[struct{}, string]
	var ev event.Event
	var said []string
	var buf []byte
	for i, l := range lines {
		if err := ev.Read([]byte(l)); err != nil {
			if _, skip := t.(*fuzzing); !skip {
				t.Fatalf("line %d: %v", i+1, err)
			}
			continue
		}
		r, begun := tr.Of(&ev)
		if begun {
			said = append(said, "run "+r.ID)
		}
		agent := event.StringOf(ev.AgentID, &buf)
		r.See(agent, ev.Meaning)
		name := string(rune('a' + i))
		switch ev.Meaning {
		case event.ModelCall:
			s, un := r.ModelCall(&ev, agent)
			s.Data = name
			if un != nil {
				said = append(said, "unanswered "+un.Data)
			}
		case event.ModelResult:
			if s, again := r.ModelResult(agent); s != nil {
				said = append(said, "answers "+s.Data+map[bool]string{true: " again"}[again])
			} else {
				said = append(said, "result alone")
			}
		case event.ModelEnd:
			if s := r.ModelEnd(agent); s != nil {
				said = append(said, "ends "+s.Data)
			}
		case event.ModelError:
			if s := r.ModelError(agent); s != nil {
				said = append(said, "fails "+s.Data)
			} else {
				said = append(said, "error alone")
			}
		case event.ToolStart:
			s, begun := r.ToolStart(&tr, &ev, agent)
			if begun {
				s.Data = name
			} else {
				said = append(said, "restates "+s.Data)
			}
		case event.ToolEnd:
			if s, started := r.ToolEnd(&tr, &ev, agent); started {
				said = append(said, "ends "+s.Data)
			} else {
				said = append(said, "end alone "+s.Key)
			}
		case event.AgentStart:
			by := r.Spawner(r.Parent(&ev, &buf))
			s, _, _ := r.AgentStart(agent)
			s.Data = name
			if by != nil {
				said = append(said, agent+" spawned by "+by.Data)
			}
		case event.AgentEnd:
			if _, left := r.AgentEnd(agent); len(left) > 0 {
				said = append(said, "cuts "+left[0].Data)
			}
		case event.RunEnd:
			said = append(said, "main "+r.Main)
			tr.End(r)
		}
		for _, o := range r.Spans() {
			for _, d := range tr.done {
				if o == d {
					t.Fatalf("line %d: a span in flight has ended", i+1)
				}
			}
		}
	}
	return said
}

func TestLife(t *testing.T) {
	const (
		call   = `{"run_id":"r","agent_id":"p","kind":"model_call","payload":{}}`
		result = `{"run_id":"r","agent_id":"p","kind":"model_result","payload":{}}`
		finish = `{"run_id":"r","agent_id":"p","kind":"run_finished","payload":{}}`
	)
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"a result answers its agent's call", []string{call, result, finish}, "run r|answers a|main p"},
		{"a call after an unanswered one ends it", []string{call, call, result}, "run r|unanswered a|answers b"},
		{"a result without a call is one of its own", []string{result}, "run r|result alone"},
		{"a model error fails the call in flight", []string{call,
			`{"run_id":"r","agent_id":"p","kind":"model_error","payload":{}}`,
			`{"run_id":"r","agent_id":"p","kind":"model_error","payload":{}}`}, "run r|fails a|error alone"},
		{"a turn ends at its end, not its result", []string{
			`{"run_id":"z","kind":"turn_start","payload":{"type":"turn_start"}}`,
			`{"run_id":"z","kind":"usage","payload":{"type":"usage"}}`,
			`{"run_id":"z","kind":"usage","payload":{"type":"usage"}}`,
			`{"run_id":"z","kind":"turn_end","payload":{"type":"turn_end"}}`}, "run z|answers a|answers a again|ends a"},
		{"tool calls pair by id", []string{
			`{"run_id":"r","agent_id":"p","kind":"tool_call","payload":{"id":"1","tool":"x"}}`,
			`{"run_id":"r","agent_id":"p","kind":"tool_call","payload":{"id":"2","tool":"x"}}`,
			`{"run_id":"r","agent_id":"p","kind":"tool_result","payload":{"id":"2","tool":"x"}}`,
			`{"run_id":"r","agent_id":"p","kind":"tool_result","payload":{"id":"1"}}`}, "run r|ends b|ends a"},
		{"without ids, by agent and tool, the first in flight", []string{
			`{"run_id":"r","agent_id":"p","kind":"tool_call","payload":{"tool":"x"}}`,
			`{"run_id":"r","agent_id":"q","kind":"tool_call","payload":{"tool":"x"}}`,
			`{"run_id":"r","agent_id":"q","kind":"tool_result","payload":{"tool":"x"}}`,
			`{"run_id":"r","agent_id":"p","kind":"tool_result","payload":{"tool":"y"}}`}, "run r|ends b|end alone /y"},
		{"zot's complete call restates its start", []string{
			`{"run_id":"z","kind":"tool_execution_start","payload":{"type":"tool_use_start","id":"t","name":"bash"}}`,
			`{"run_id":"z","kind":"tool_call","payload":{"type":"tool_call","id":"t","name":"bash"}}`,
			`{"run_id":"z","kind":"tool_execution_end","payload":{"type":"tool_result","id":"t"}}`}, "run z|restates a|ends a"},
		{"a sub-agent goes under the oldest call that spawned none", []string{
			`{"run_id":"r","agent_id":"p","kind":"tool_call","payload":{"id":"1","tool":"Task"}}`,
			`{"run_id":"r","agent_id":"p","kind":"tool_call","payload":{"id":"2","tool":"Task"}}`,
			`{"run_id":"r","agent_id":"s1","kind":"agent_spawned","payload":{"parent_id":"p"}}`,
			`{"run_id":"r","agent_id":"s2","kind":"agent_spawned","payload":{"parent_id":"p"}}`,
			`{"run_id":"r","agent_id":"s2","kind":"tool_call","payload":{"tool":"x"}}`,
			`{"run_id":"r","agent_id":"s2","kind":"agent_finished","payload":{}}`,
			finish}, "run r|s1 spawned by a|s2 spawned by b|cuts e|main p"},
		{"a spawned agent is never the run's own", []string{
			`{"run_id":"r","agent_id":"s","kind":"agent_spawned","payload":{}}`,
			`{"run_id":"r","agent_id":"s","kind":"model_call","payload":{}}`,
			finish}, "run r|main p"},
		{"an ended run's id begins a new run", []string{finish, result}, "run r|main p|run r|result alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(life(t, tt.lines...), "|"); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzLife reads any lines through the pairing rules: none panics, and a
// span in flight is never one that ended.
func FuzzLife(f *testing.F) {
	f.Add("{\"run_id\":\"r\",\"agent_id\":\"p\",\"kind\":\"tool_call\",\"payload\":{\"tool\":\"x\"}}\n" +
		"{\"run_id\":\"r\",\"agent_id\":\"s\",\"kind\":\"agent_spawned\",\"payload\":{\"parent_id\":\"p\"}}\n" +
		"{\"run_id\":\"r\",\"agent_id\":\"s\",\"kind\":\"model_call\",\"payload\":{}}\n" +
		"{\"run_id\":\"r\",\"agent_id\":\"s\",\"kind\":\"agent_finished\",\"payload\":{}}\n")
	f.Add("{\"kind\":\"turn_start\",\"payload\":{\"type\":\"turn_start\"}}\n{\"kind\":\"usage\",\"payload\":{}}\n{\"type\":\"tool_result\",\"id\":\"\"}")
	f.Fuzz(func(t *testing.T, data string) {
		lines := strings.Split(data, "\n")
		if len(lines) > 200 {
			lines = lines[:200]
		}
		life(&fuzzing{T: t}, lines...)
	})
}

// fuzzing is a test that skips the lines that are not events.
type fuzzing struct{ *testing.T }
