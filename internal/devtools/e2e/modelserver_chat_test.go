package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// OpenAI's Chat Completions API (POST .../chat/completions), as opencode
// and other agents call it through an OpenAI-compatible provider: a
// streamed request gets server-sent data lines, chat.completion.chunk
// objects (the role first, then the reasoning_content, content and
// tool_calls deltas, then a chunk with the finish_reason), the usage in a
// last chunk without choices when stream_options.include_usage asks for
// it, and data: [DONE]; one without gets a chat.completion object.

// chatRequest reads what a step's When may look at: the names of the
// function tools.
func chatRequest(body []byte) (Request, error) {
	return readRequest(body, "Chat Completions", []string{"function", "name"})
}

// chatUsage is a Usage in the API's terms: prompt_tokens counts the
// cached part too, as evtools does (the API has no cache writes);
// completion_tokens counts the reasoning.
func chatUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.Input,
		"completion_tokens":         u.Output,
		"total_tokens":              u.Input + u.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
	}
}

// chatToolCalls are the reply's tool calls as a message holds them.
func chatToolCalls(reply Reply) []map[string]any {
	var out []map[string]any
	for i, t := range reply.Tools {
		out = append(out, map[string]any{"index": i, "id": t.ID, "type": "function",
			"function": map[string]any{"name": t.Name, "arguments": string(t.Input)}})
	}
	return out
}

func writeChat(w http.ResponseWriter, req Request, reply Reply, ex *Exchange) {
	w.Header().Set("x-request-id", fmt.Sprintf("req_evt%04d", ex.N+1))
	if writeError(w, reply, openaiError(reply.Status)) {
		return
	}
	created := time.Now().Unix()
	object := func(kind string, choices []map[string]any) map[string]any {
		if choices == nil {
			choices = []map[string]any{}
		}
		return map[string]any{"id": ex.ID, "object": kind, "created": created, "model": reply.model(req), "choices": choices}
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if reply.Text != "" {
			msg["content"] = reply.Text
		}
		if reply.Thinking != "" {
			msg["reasoning_content"] = reply.Thinking
		}
		if calls := chatToolCalls(reply); calls != nil {
			msg["tool_calls"] = calls
		}
		resp := object("chat.completion", []map[string]any{{"index": 0, "message": msg, "finish_reason": stopReason(reply, "tool_calls", "stop")}})
		resp["usage"] = chatUsage(reply.Usage)
		writeJSON(w, resp)
		return
	}
	var opts struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	json.Unmarshal(req.Body, &opts)
	send := eventStream(w, "\n")
	chunk := func(delta map[string]any, finish any) {
		send("", object("chat.completion.chunk", []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}))
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if reply.Cut {
		cut()
	}
	for _, d := range halves(reply.Thinking) {
		if d != "" {
			chunk(map[string]any{"reasoning_content": d}, nil)
		}
	}
	for _, d := range halves(reply.Text) {
		if d != "" {
			chunk(map[string]any{"content": d}, nil)
		}
	}
	for i, t := range reply.Tools {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": t.ID, "type": "function",
			"function": map[string]any{"name": t.Name, "arguments": ""}}}}, nil)
		for _, d := range halves(string(t.Input)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": d}}}}, nil)
		}
	}
	chunk(map[string]any{}, stopReason(reply, "tool_calls", "stop"))
	if opts.StreamOptions.IncludeUsage {
		last := object("chat.completion.chunk", nil)
		last["usage"] = chatUsage(reply.Usage)
		send("", last)
	}
	send("", []byte("[DONE]"))
}
