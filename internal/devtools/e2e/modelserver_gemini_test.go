package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Google's Gemini API (POST .../models/MODEL:generateContent and
// :streamGenerateContent?alt=sse), as Gemini CLI calls it: a streamed
// request gets server-sent events, each a GenerateContentResponse (the
// thoughts in one chunk, the text in pieces, the function calls whole in
// one), every chunk with the usage known so far and the last with the
// finish reason and the whole usage; one that is not streamed gets the
// response as one JSON object. The model is named by the path, not the
// body.

// geminiAction is the method a Gemini path calls (generateContent or
// streamGenerateContent), "" for a path of no Gemini method.
func geminiAction(path string) string {
	i := strings.LastIndexByte(path, ':')
	if i < 0 || !strings.Contains(path[:i], "/models/") {
		return ""
	}
	switch a := path[i+1:]; a {
	case "generateContent", "streamGenerateContent":
		return a
	}
	return ""
}

// geminiRequest reads what a step's When may look at: the model, from
// the path, and the names of the functions declared.
func geminiRequest(path string, body []byte) (Request, error) {
	var in struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("not a Gemini request: %v", err)
	}
	action := geminiAction(path)
	model := path[strings.LastIndex(path, "/models/")+len("/models/") : len(path)-len(action)-1]
	req := Request{Model: model, Stream: action == "streamGenerateContent", Body: body}
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, f.Name)
		}
	}
	return req, nil
}

// geminiUsage is a Usage in the API's terms: promptTokenCount counts the
// cached part too (cachedContentTokenCount), as evtools does, but
// candidatesTokenCount leaves the thoughts out (thoughtsTokenCount). The
// API has no cache writes. Members that are 0 are left out, as the
// service leaves them.
func geminiUsage(u Usage) map[string]any {
	m := map[string]any{
		"promptTokenCount":    u.Input,
		"totalTokenCount":     u.Input + u.Output,
		"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": u.Input}},
	}
	if c := u.Output - u.Reasoning; c > 0 {
		m["candidatesTokenCount"] = c
	}
	if u.Reasoning > 0 {
		m["thoughtsTokenCount"] = u.Reasoning
	}
	if u.CacheRead > 0 {
		m["cachedContentTokenCount"] = u.CacheRead
		m["cacheTokensDetails"] = []any{map[string]any{"modality": "TEXT", "tokenCount": u.CacheRead}}
	}
	return m
}

// geminiStatuses are the status words (google.rpc.Code) the service
// gives HTTP statuses; any other is INTERNAL.
var geminiStatuses = map[int]string{
	http.StatusBadRequest:         "INVALID_ARGUMENT",
	http.StatusUnauthorized:       "UNAUTHENTICATED",
	http.StatusForbidden:          "PERMISSION_DENIED",
	http.StatusNotFound:           "NOT_FOUND",
	http.StatusTooManyRequests:    "RESOURCE_EXHAUSTED",
	http.StatusServiceUnavailable: "UNAVAILABLE",
	http.StatusGatewayTimeout:     "DEADLINE_EXCEEDED",
}

// geminiChunks are the parts of the reply, a list for each chunk of the
// stream: the thoughts (a part marked "thought"), the text (in two
// pieces when streamed), the function calls together.
func geminiChunks(reply Reply, stream bool) [][]map[string]any {
	var out [][]map[string]any
	if reply.Thinking != "" {
		out = append(out, []map[string]any{{"text": reply.Thinking, "thought": true}})
	}
	if reply.Text != "" {
		pieces := []string{reply.Text}
		if stream {
			pieces = halves(reply.Text)
		}
		for _, part := range pieces {
			out = append(out, []map[string]any{{"text": part}})
		}
	}
	if len(reply.Tools) > 0 {
		var calls []map[string]any
		for _, t := range reply.Tools {
			calls = append(calls, map[string]any{"functionCall": map[string]any{"id": t.ID, "name": t.Name, "args": t.Input}})
		}
		out = append(out, calls)
	}
	if len(out) == 0 {
		out = append(out, []map[string]any{{"text": ""}})
	}
	return out
}

func writeGemini(w http.ResponseWriter, req Request, reply Reply, ex *Exchange) {
	if reply.Status != 0 {
		writeGeminiError(w, reply)
		return
	}
	model := reply.model(req)
	stop := reply.Stop
	if stop == "" {
		stop = "STOP" // function calls too: the API has no stop of its own for them
	}
	response := func(parts []map[string]any, usage map[string]any, last bool) map[string]any {
		candidate := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		if last {
			candidate["finishReason"] = stop
		}
		return map[string]any{"candidates": []any{candidate}, "usageMetadata": usage, "modelVersion": model, "responseId": ex.ID}
	}
	chunks := geminiChunks(reply, req.Stream)
	if !req.Stream {
		if reply.Cut {
			cut() // the connection dropped before the response
		}
		var parts []map[string]any
		for _, c := range chunks {
			parts = append(parts, c...)
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		json.NewEncoder(w).Encode(response(parts, geminiUsage(reply.Usage), true))
		return
	}
	send := eventStream(w, "\r\n")
	// the chunks before the last know the prompt, not the output
	partial := geminiUsage(Usage{Input: reply.Usage.Input, CacheRead: reply.Usage.CacheRead})
	for i, parts := range chunks {
		last := i == len(chunks)-1
		usage := partial
		if last {
			usage = geminiUsage(reply.Usage)
		}
		send("", response(parts, usage, last))
		if reply.Cut {
			cut()
		}
	}
}

// writeGeminiError writes the error object of the API, a
// google.rpc.Status; a retry-after is its RetryInfo detail, as the
// service says when to try again.
func writeGeminiError(w http.ResponseWriter, reply Reply) {
	msg := reply.Error
	if msg == "" {
		msg = http.StatusText(reply.Status)
	}
	status := map[string]any{"code": reply.Status, "message": msg, "status": cmp.Or(geminiStatuses[reply.Status], "INTERNAL")}
	if reply.RetryAfter != "" {
		status["details"] = []any{map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": reply.RetryAfter + "s",
		}}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(reply.Status)
	json.NewEncoder(w).Encode(map[string]any{"error": status})
}
