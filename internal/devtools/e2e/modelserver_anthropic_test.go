package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
)

// Anthropic's Messages API, as https://docs.anthropic.com/en/api/messages
// and its streaming page describe it and the service sends it: a request
// with "stream":true gets server-sent events (message_start with the
// usage known at the start, a content_block_start/delta/stop triple per
// block, message_delta with the stop reason and the final usage,
// message_stop), one without gets the message as one JSON object.

// anthropicRequest reads what a step's When may look at.
func anthropicRequest(body []byte) (Request, error) {
	return readRequest(body, "Messages", []string{"name"})
}

// anthropicUsage is a Usage in the API's terms: input_tokens is the
// uncached part of the prompt.
func anthropicUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":                u.Input - u.CacheRead - u.CacheWrite,
		"cache_creation_input_tokens": u.CacheWrite,
		"cache_read_input_tokens":     u.CacheRead,
		"cache_creation": map[string]any{
			"ephemeral_5m_input_tokens": u.CacheWrite - u.CacheWrite1h,
			"ephemeral_1h_input_tokens": u.CacheWrite1h,
		},
		"output_tokens": u.Output,
		"service_tier":  "standard",
	}
}

// anthropicErrors are the error types the service gives statuses; any
// other is an api_error.
var anthropicErrors = map[int]string{
	http.StatusBadRequest:      "invalid_request_error",
	http.StatusUnauthorized:    "authentication_error",
	http.StatusTooManyRequests: "rate_limit_error",
	529:                        "overloaded_error",
}

// anthropicBlocks are the reply's content blocks, complete.
func anthropicBlocks(reply Reply) []map[string]any {
	var out []map[string]any
	if reply.Thinking != "" {
		out = append(out, map[string]any{"type": "thinking", "thinking": reply.Thinking, "signature": "c2lnbmF0dXJl"})
	}
	if reply.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": reply.Text})
	}
	for _, t := range reply.Tools {
		out = append(out, map[string]any{"type": "tool_use", "id": t.ID, "name": t.Name, "input": t.Input})
	}
	return out
}

func writeAnthropic(w http.ResponseWriter, req Request, reply Reply, ex *Exchange) {
	h := w.Header()
	h.Set("request-id", fmt.Sprintf("req_evt%04d", ex.N+1))
	h.Set("anthropic-organization-id", "00000000-0000-0000-0000-000000000000")
	if writeError(w, reply, func(msg string) any {
		return map[string]any{"type": "error", "error": map[string]any{"type": cmp.Or(anthropicErrors[reply.Status], "api_error"), "message": msg}}
	}) {
		return
	}
	model := reply.model(req)
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": ex.ID, "type": "message", "role": "assistant", "model": model,
			"content": anthropicBlocks(reply), "stop_reason": stopReason(reply, "tool_use", "end_turn"), "stop_sequence": nil,
			"usage": anthropicUsage(reply.Usage),
		})
		return
	}
	send := eventStream(w, "\n")
	event := func(name string, data map[string]any) {
		data["type"] = name
		send(name, data)
	}
	// message_start has the prompt's usage and the output so far (the
	// service says 1 or a few); message_delta the final usage, the
	// input's members again as the service now sends them
	start := anthropicUsage(reply.Usage)
	start["output_tokens"] = min(reply.Usage.Output, 1)
	event("message_start", map[string]any{"message": map[string]any{
		"id": ex.ID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})
	event("ping", map[string]any{})
	for i, b := range anthropicBlocks(reply) {
		var first map[string]any
		var deltas []map[string]any
		switch b["type"] {
		case "thinking":
			first = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			for _, part := range halves(reply.Thinking) {
				deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": part})
			}
			deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b["signature"]})
		case "text":
			first = map[string]any{"type": "text", "text": ""}
			for _, part := range halves(reply.Text) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": part})
			}
		case "tool_use":
			first = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			in, _ := json.Marshal(b["input"])
			for _, part := range halves(string(in)) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": part})
			}
		}
		event("content_block_start", map[string]any{"index": i, "content_block": first})
		if reply.Cut {
			cut()
		}
		for _, d := range deltas {
			event("content_block_delta", map[string]any{"index": i, "delta": d})
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	if reply.Cut {
		cut() // a reply without blocks: cut before its end
	}
	final := anthropicUsage(reply.Usage)
	delete(final, "cache_creation")
	delete(final, "service_tier")
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stopReason(reply, "tool_use", "end_turn"), "stop_sequence": nil},
		"usage": final,
	})
	event("message_stop", map[string]any{})
}

// halves splits s in two at a rune boundary, so that a client must join
// the deltas; a string of less than two runes is one part.
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}
