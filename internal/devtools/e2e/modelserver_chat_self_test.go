package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// chatChunks posts a Chat Completions request and reads its data lines:
// the chunks, and whether [DONE] ended them.
func chatChunks(t *testing.T, s *modelServer, body string) (chunks []map[string]any, done bool, err error) {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.StatusCode != 200 {
		t.Fatalf("status %d, content type %q", resp.StatusCode, ct)
	}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return chunks, done, err
		}
		data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: ")
		switch {
		case !ok:
		case data == "[DONE]":
			done = true
		default:
			var c map[string]any
			if err := json.Unmarshal([]byte(data), &c); err != nil {
				t.Fatalf("chunk %s: %v", data, err)
			}
			chunks = append(chunks, c)
		}
	}
}

// A streamed Chat Completions reply is chunks whose deltas join into the
// reasoning, the text and the tool call's arguments, a finish_reason,
// then (asked by stream_options.include_usage) a chunk of no choices
// with the usage in the API's terms (prompt_tokens with the cached ones,
// completion_tokens with the reasoning), and [DONE]. Without
// include_usage no usage is sent; a cut stream has no [DONE]; an error
// is OpenAI's error object.
func TestChatStream(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{
		{Reply: Reply{
			Thinking: "Look first.", Text: "Let me look.",
			Tools: []ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}},
			Usage: Usage{Input: 5000, CacheRead: 3000, Output: 40, Reasoning: 12},
		}},
		{Reply: Reply{Text: "Done.", Usage: Usage{Input: 10, Output: 2}}},
		{Reply: Reply{Text: "cut", Cut: true}},
		{Reply: Reply{Status: 500, Error: "boom"}},
	}})
	defer s.Close()
	body := `{"model":"evt-1","stream":true,"stream_options":{"include_usage":true},"messages":[],"tools":[{"type":"function","function":{"name":"bash"}},{"type":"function","function":{"name":"task"}}]}`
	chunks, done, err := chatChunks(t, s, body)
	if err != nil || !done {
		t.Fatalf("err %v, [DONE] %v", err, done)
	}
	var reasoning, text, args, finish string
	var usage map[string]any
	for _, c := range chunks {
		if c["object"] != "chat.completion.chunk" || c["id"] != "chatcmpl-evt0001" || c["model"] != "evt-1" {
			t.Errorf("chunk %v", c)
		}
		if u, ok := c["usage"].(map[string]any); ok {
			usage = u
		}
		for _, ch := range c["choices"].([]any) {
			ch := ch.(map[string]any)
			d := ch["delta"].(map[string]any)
			r, _ := d["reasoning_content"].(string)
			x, _ := d["content"].(string)
			reasoning, text = reasoning+r, text+x
			for _, tc := range asList(d["tool_calls"]) {
				f := tc.(map[string]any)["function"].(map[string]any)
				a, _ := f["arguments"].(string)
				args += a
				if id, ok := tc.(map[string]any)["id"]; ok && (id != "call_evt0002" || f["name"] != "bash") {
					t.Errorf("tool call %v", tc)
				}
			}
			if f, ok := ch["finish_reason"].(string); ok {
				finish = f
			}
		}
	}
	if reasoning != "Look first." || text != "Let me look." || args != `{"command":"ls"}` || finish != "tool_calls" {
		t.Errorf("reasoning %q, text %q, arguments %q, finish %q", reasoning, text, args, finish)
	}
	if usage == nil || num(usage["prompt_tokens"]) != 5000 || num(usage["completion_tokens"]) != 40 ||
		num(usage["prompt_tokens_details"].(map[string]any)["cached_tokens"]) != 3000 ||
		num(usage["completion_tokens_details"].(map[string]any)["reasoning_tokens"]) != 12 {
		t.Errorf("usage %v", usage)
	}
	if ex := s.Exchanges()[0]; ex.Request.API != Chat || !ex.Request.HasTool("task") || ex.Usage.Input != 5000 {
		t.Errorf("exchange %+v", ex)
	}

	chunks, done, _ = chatChunks(t, s, strings.Replace(body, `"include_usage":true`, `"include_usage":false`, 1))
	for _, c := range chunks {
		if c["usage"] != nil {
			t.Errorf("usage sent unasked: %v", c)
		}
	}
	if !done || chunks[len(chunks)-1]["choices"].([]any)[0].(map[string]any)["finish_reason"] != "stop" {
		t.Errorf("a reply of text: %v", chunks)
	}

	if _, done, _ = chatChunks(t, s, body); done {
		t.Error("a cut stream ended with [DONE]")
	}

	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Message, Type string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 500 || e.Error.Message != "boom" || e.Error.Type != "server_error" {
		t.Errorf("500: status %d, %+v", resp.StatusCode, e)
	}
}

// A request that does not stream gets one chat.completion with the
// message and the usage.
func TestChatJSON(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{{Reply: Reply{Text: "hi", Tools: []ToolCall{{Name: "bash", Input: json.RawMessage(`{}`)}},
		Usage: Usage{Input: 7, CacheRead: 2, Output: 3}}}}})
	defer s.Close()
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct {
		Object  string
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []struct{ ID string } `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
			Details      struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 || c.Choices[0].Message.Content != "hi" || c.Choices[0].FinishReason != "tool_calls" ||
		len(c.Choices[0].Message.ToolCalls) != 1 || c.Usage.PromptTokens != 7 || c.Usage.Details.Cached != 2 {
		t.Errorf("%+v", c)
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }
