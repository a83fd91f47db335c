package modelserver

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestZZServe(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	f, _ := os.Create("/tmp/oc/reqs.log")
	n := 0
	s := Start(Script{Other: func(r *Request) Reply {
		n++
		var b struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(r.Body, &b)
		last := b.Messages[len(b.Messages)-1]
		tools, _ := json.Marshal(r.Tools)
		fmt.Fprintf(f, "REQ %d %s %s tools=%s last=%s %v\n%.4000s\n\n", n, r.Path, r.Model, tools, last.Role, last.Content, r.Body)
		text := fmt.Sprint(last.Content)
		switch {
		case r.HasTool("task") && last.Role == "user" && contains(text, "subagent"):
			return Reply{Text: "Asking a helper.", Usage: Usage{Input: 1300, CacheRead: 1000, Output: 20},
				Tools: []ToolCall{{Name: "task", Input: json.RawMessage(`{"description":"count files","prompt":"count the files here","subagent_type":"general"}`)}}}
		case r.HasTool("bash") && last.Role == "user" && !contains(text, "Generate a title"):
			return Reply{Text: "Let me look.", Thinking: "hmm", Usage: Usage{Input: 1000, CacheRead: 200, Output: 30, Reasoning: 5},
				Tools: []ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"ls","description":"list files"}`)}}}
		case contains(text, "fail"):
			return Reply{Status: 400, Error: "bad request here"}
		}
		return Reply{Text: "Two files.", Usage: Usage{Input: 1100, CacheRead: 1000, Output: 10}}
	}})
	os.WriteFile("/tmp/oc/url", []byte(s.URL), 0o644)
	time.Sleep(15 * time.Minute)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
