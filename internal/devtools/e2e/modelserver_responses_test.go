package e2e

import (
	"fmt"
	"net/http"
	"time"
)

// OpenAI's Responses API (POST .../responses), as Codex calls it: a
// streamed request gets server-sent events, response.created and
// response.in_progress, then for each output item (a reasoning item, a
// message, a function_call) response.output_item.added, its deltas
// (response.reasoning_summary_text.delta, response.output_text.delta,
// response.function_call_arguments.delta) and response.output_item.done,
// and last response.completed with the response's usage; one without
// gets the response as one JSON object.

// responsesRequest reads what a step's When may look at: the names of
// the function tools (and the type of the others: local_shell,
// web_search).
func responsesRequest(body []byte) (Request, error) {
	return readRequest(body, "Responses", []string{"name"}, []string{"type"})
}

// responsesUsage is a Usage in the API's terms: input_tokens counts the
// cached part too, as evtools does (the API has no cache writes);
// output_tokens counts the reasoning.
func responsesUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.Output,
	}
}

// responsesItems are the reply's output items, complete, their ids made
// from n.
func responsesItems(reply Reply, n int) []map[string]any {
	var out []map[string]any
	if reply.Thinking != "" {
		out = append(out, map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_evt%04d", n),
			"summary": []any{map[string]any{"type": "summary_text", "text": reply.Thinking}}})
	}
	if reply.Text != "" {
		out = append(out, map[string]any{"type": "message", "id": fmt.Sprintf("msg_evt%04d", n), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}}})
	}
	for i, t := range reply.Tools {
		out = append(out, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_evt%04d_%d", n, i), "status": "completed",
			"call_id": t.ID, "name": t.Name, "arguments": string(t.Input)})
	}
	return out
}

func writeResponses(w http.ResponseWriter, req Request, reply Reply, ex *Exchange) {
	w.Header().Set("x-request-id", fmt.Sprintf("req_evt%04d", ex.N+1))
	if writeError(w, reply, openaiError(reply.Status)) {
		return
	}
	model := reply.model(req)
	items := responsesItems(reply, ex.N+1)
	response := func(status string, output []map[string]any, usage any) map[string]any {
		if output == nil {
			output = []map[string]any{}
		}
		return map[string]any{
			"id": ex.ID, "object": "response", "created_at": time.Now().Unix(), "status": status,
			"model": model, "output": output, "usage": usage,
		}
	}
	if !req.Stream {
		writeJSON(w, response("completed", items, responsesUsage(reply.Usage)))
		return
	}
	send := eventStream(w, "\n")
	seq := 0
	event := func(name string, data map[string]any) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		send(name, data)
	}
	event("response.created", map[string]any{"response": response("in_progress", nil, nil)})
	event("response.in_progress", map[string]any{"response": response("in_progress", nil, nil)})
	for i, item := range items {
		id := item["id"]
		first := map[string]any{}
		for k, v := range item {
			first[k] = v
		}
		switch item["type"] {
		case "reasoning":
			first["summary"] = []any{}
		case "message":
			first["status"], first["content"] = "in_progress", []any{}
		case "function_call":
			first["status"], first["arguments"] = "in_progress", ""
		}
		event("response.output_item.added", map[string]any{"output_index": i, "item": first})
		if reply.Cut {
			cut()
		}
		switch item["type"] {
		case "reasoning":
			part := map[string]any{"type": "summary_text", "text": ""}
			event("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": part})
			for _, d := range halves(reply.Thinking) {
				event("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "delta": d})
			}
			event("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "text": reply.Thinking})
			event("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0,
				"part": map[string]any{"type": "summary_text", "text": reply.Thinking}})
		case "message":
			part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
			event("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
			for _, d := range halves(reply.Text) {
				event("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": d})
			}
			event("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": reply.Text})
			event("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}})
		case "function_call":
			args := item["arguments"].(string)
			for _, d := range halves(args) {
				event("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": d})
			}
			event("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": args})
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	if reply.Cut {
		cut() // a reply without items: cut before its end
	}
	event("response.completed", map[string]any{"response": response("completed", items, responsesUsage(reply.Usage))})
}
