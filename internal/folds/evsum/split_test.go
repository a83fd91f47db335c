package evsum

import (
	"fmt"
	"strings"
	"testing"
)

// TestMergeOfPartialsIsOnePass: a log cut in two files anywhere, each
// summarised by its own `evsum --partial` and the two states merged by
// `evsum --merge`, gives the report of `evsum` on the whole log. The log
// reuses zot tool call ids, so a cut between a call and its result leaves
// the call open in the first state while the second has more events of
// its id: one pass pairs the first of them with the open call, and so
// must the merge.
func TestMergeOfPartialsIsOnePass(t *testing.T) {
	var log []string
	for i, ev := range []string{
		"start c0 read", "end c0 ok", "start c0 bash", "end c0 failed", "start c0 grep", "end c0 ok",
		"end c1 failed", "start c1 bash", "end c1 ok", "start c1 read",
		"call c2 edit", "end c2 failed", "start c2 bash", "call c2 edit", "end c2 ok",
	} {
		f := strings.Fields(ev)
		switch f[0] {
		case "start":
			log = append(log, fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":"r","agent_id":"a%d","kind":"tool_execution_start","payload":{"id":%q,"name":%q}}`, i, 1793520000+i, i%2, f[1], f[2]))
			continue
		case "call":
			log = append(log, fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":"r","agent_id":"a%d","kind":"tool_call","payload":{"id":%q,"name":%q}}`, i, 1793520000+i, i%2, f[1], f[2]))
			continue
		}
		payload := fmt.Sprintf(`{"id":%q,"is_error":%v}`, f[1], f[2] == "failed")
		log = append(log, fmt.Sprintf(`{"seq":%d,"ts":%d,"run_id":"r","agent_id":"a%d","kind":"tool_execution_end","payload":%s}`, i, 1793520000+i, i%2, payload))
	}
	whole := writeFile(t, "whole.jsonl", []byte(strings.Join(log, "\n")+"\n"))
	for _, by := range []string{"run", "agent"} {
		want := evsumOn(t, 1, []string{"--format", "jsonl", "--by", by, whole})
		for at := 0; at <= len(log); at++ {
			var states []string
			for i, lines := range [][]string{log[:at], log[at:]} {
				in := writeFile(t, fmt.Sprintf("part%d.jsonl", i), []byte(strings.Join(lines, "\n")+"\n"))
				got := evsumOn(t, 1, []string{"--partial", "--by", by, in})
				if got.code != 0 {
					t.Fatalf("evsum --partial: status %d\n%s", got.code, got.err)
				}
				states = append(states, writeFile(t, fmt.Sprintf("part%d.state", i), []byte(got.out)))
			}
			got := evsumOn(t, 1, append([]string{"--format", "jsonl", "--merge"}, states...))
			if got != want {
				t.Errorf("--by %s, cut before line %d: the merge of the partial states differs from one pass:\nstatus %d, want %d\nstderr:\n%s\nstdout:\n%s\nwant:\n%s",
					by, at+1, got.code, want.code, got.err, got.out, want.out)
			}
		}
	}
}
