package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// What the APIs' writers share: how a request is read for a step's When,
// how an HTTP error is sent, and how server-sent events are written.

// readRequest reads a request body of the API named what: its model,
// whether it streams, and the names of the tools it offers: of each
// entry of tools, the first string found at one of the paths.
func readRequest(body []byte, what string, paths ...[]string) (Request, error) {
	var in struct {
		Model  string            `json:"model"`
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, fmt.Errorf("not a %s request: %v", what, err)
	}
	req := Request{Model: in.Model, Stream: in.Stream, Body: body}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, toolName(t, paths))
	}
	return req, nil
}

// toolName is the first string at one of the paths of a tool's entry.
func toolName(raw json.RawMessage, paths [][]string) string {
	for _, path := range paths {
		v := raw
		for _, k := range path {
			var m map[string]json.RawMessage
			json.Unmarshal(v, &m)
			v = m[k]
		}
		var name string
		if json.Unmarshal(v, &name) == nil && name != "" {
			return name
		}
	}
	return ""
}

// stopReason is the reason a reply stops, as an API names the two: the
// script's, else toolUse when it calls tools, else end.
func stopReason(reply Reply, toolUse, end string) string {
	switch {
	case reply.Stop != "":
		return reply.Stop
	case len(reply.Tools) > 0:
		return toolUse
	}
	return end
}

// model is the model a reply names: the script's, else the request's.
func (r Reply) model(req Request) string {
	if r.Model != "" {
		return r.Model
	}
	return req.Model
}

// writeError sends reply's HTTP error, with its retry-after, its body
// the API's spelling of the message (the status's text when the script
// gives none). It reports whether reply is an error.
func writeError(w http.ResponseWriter, reply Reply, body func(msg string) any) bool {
	if reply.Status == 0 {
		return false
	}
	h := w.Header()
	if reply.RetryAfter != "" {
		h.Set("retry-after", reply.RetryAfter)
	}
	msg := reply.Error
	if msg == "" {
		msg = http.StatusText(reply.Status)
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(reply.Status)
	json.NewEncoder(w).Encode(body(msg))
	return true
}

// writeJSON sends a whole reply as one JSON object.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// eventStream starts a stream of server-sent events and returns what
// writes one, flushed at once as the services send them: with an event
// line when name is not "" (Anthropic, Responses), data alone when it is
// (Chat Completions, Gemini). Its lines end in eol, "\n" or, as Gemini's
// service ends them, "\r\n".
func eventStream(w http.ResponseWriter, eol string) func(name string, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	return func(name string, data any) {
		b, ok := data.([]byte)
		if !ok {
			b, _ = json.Marshal(data)
		}
		if name != "" {
			fmt.Fprintf(w, "event: %s%s", name, eol)
		}
		fmt.Fprintf(w, "data: %s%s%s", b, eol, eol)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// cut ends a streamed reply as a connection closed inside it does, as
// when a proxy or the service drops it: the client sees no end of the
// stream.
func cut() { panic(http.ErrAbortHandler) }

// openaiError is an error's body as OpenAI's APIs spell it, with the
// type and code the service gives a status.
func openaiError(status int) func(msg string) any {
	typ, code := "server_error", "server_error"
	switch status {
	case http.StatusBadRequest:
		typ, code = "invalid_request_error", ""
	case http.StatusUnauthorized:
		typ, code = "invalid_request_error", "invalid_api_key"
	case http.StatusTooManyRequests:
		typ, code = "rate_limit_exceeded", "rate_limit_exceeded"
	}
	return func(msg string) any {
		return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
	}
}
