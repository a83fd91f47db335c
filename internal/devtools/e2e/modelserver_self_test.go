package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends a Messages request and returns the response.
func messagesPost(t *testing.T, s *modelServer, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sse struct {
	name string
	data map[string]any
}

// events reads a response's server-sent events until its end, and the
// error that ended it (nil for a clean end).
func sseEvents(t *testing.T, resp *http.Response) ([]sse, error) {
	t.Helper()
	var out []sse
	r := bufio.NewReader(resp.Body)
	var name string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("event %s: %v", name, err)
			}
			if data["type"] != name {
				t.Errorf("event %s has type %v", name, data["type"])
			}
			out = append(out, sse{name, data})
		}
	}
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// A streamed reply with text and a tool call is the Messages API's
// sequence of events, its input_json_delta parts joined giving the
// arguments, and its usage in the API's terms: input_tokens without the
// cache, the final usage in message_delta. The server records what it
// sent.
func TestAnthropicStream(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{{Reply: Reply{
		Thinking: "Look first.", Text: "Let me look.",
		Tools: []ToolCall{{Name: "Bash", Input: json.RawMessage(`{"command":"ls -la"}`)}},
		Usage: Usage{Input: 5000, CacheRead: 3000, CacheWrite: 1500, CacheWrite1h: 500, Output: 40},
	}}}})
	defer s.Close()
	resp := messagesPost(t, s, `{"model":"claude-test-1","stream":true,"max_tokens":100,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"Bash"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.StatusCode != 200 {
		t.Fatalf("status %d, content type %q", resp.StatusCode, ct)
	}
	evs, err := sseEvents(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	blocks := map[int64]string{} // index -> text, thinking or arguments joined
	var starts []string
	for _, e := range evs {
		names = append(names, e.name)
		switch e.name {
		case "content_block_start":
			cb := e.data["content_block"].(map[string]any)
			starts = append(starts, cb["type"].(string))
			if cb["type"] == "tool_use" && (cb["name"] != "Bash" || !strings.HasPrefix(cb["id"].(string), "toolu_")) {
				t.Errorf("tool_use start %v", cb)
			}
		case "content_block_delta":
			d := e.data["delta"].(map[string]any)
			i := num(e.data["index"])
			for _, k := range []string{"text", "thinking", "partial_json"} {
				if v, ok := d[k].(string); ok {
					blocks[i] += v
				}
			}
		}
	}
	want := "message_start ping " +
		"content_block_start content_block_delta content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop " +
		"message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(starts, ","); got != "thinking,text,tool_use" {
		t.Errorf("blocks %s", got)
	}
	if blocks[0] != "Look first." || blocks[1] != "Let me look." || blocks[2] != `{"command":"ls -la"}` {
		t.Errorf("blocks joined: %v", blocks)
	}
	start := evs[0].data["message"].(map[string]any)
	if start["model"] != "claude-test-1" || start["id"] != "msg_evt0001" {
		t.Errorf("message_start %v", start)
	}
	su := start["usage"].(map[string]any)
	if num(su["input_tokens"]) != 500 || num(su["cache_read_input_tokens"]) != 3000 || num(su["cache_creation_input_tokens"]) != 1500 || num(su["output_tokens"]) != 1 {
		t.Errorf("message_start usage %v", su)
	}
	cc := su["cache_creation"].(map[string]any)
	if num(cc["ephemeral_5m_input_tokens"]) != 1000 || num(cc["ephemeral_1h_input_tokens"]) != 500 {
		t.Errorf("cache_creation %v", cc)
	}
	md := evs[len(evs)-2].data
	if d := md["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("stop %v", d)
	}
	fu := md["usage"].(map[string]any)
	if num(fu["input_tokens"]) != 500 || num(fu["cache_read_input_tokens"]) != 3000 || num(fu["cache_creation_input_tokens"]) != 1500 || num(fu["output_tokens"]) != 40 {
		t.Errorf("message_delta usage %v", fu)
	}
	ex := s.Exchanges()
	if len(ex) != 1 {
		t.Fatalf("%d exchanges", len(ex))
	}
	e := ex[0]
	if e.Step != 0 || e.Status != 200 || !e.Complete || e.ID != "msg_evt0001" || e.Usage.Input != 5000 || e.Request.Model != "claude-test-1" ||
		!e.Request.Stream || !e.Request.HasTool("Bash") || len(e.Tools) != 1 || e.Tools[0].ID != "toolu_evt0002" {
		t.Errorf("exchange %+v", e)
	}
	if s.Left() != 0 {
		t.Errorf("%d steps left", s.Left())
	}
}

// A request without "stream" gets the message as one JSON object.
func TestAnthropicJSON(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{{Reply: Reply{Text: "Hello.", Model: "claude-other", Usage: Usage{Input: 20, CacheRead: 5, Output: 3}}}}})
	defer s.Close()
	resp := messagesPost(t, s, `{"model":"claude-test-1","max_tokens":100,"messages":[]}`)
	var m struct {
		ID, Type, Role, Model string
		StopReason            string `json:"stop_reason"`
		Content               []map[string]any
		Usage                 map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.Role != "assistant" || m.Model != "claude-other" || m.StopReason != "end_turn" ||
		len(m.Content) != 1 || m.Content[0]["text"] != "Hello." || num(m.Usage["input_tokens"]) != 15 || num(m.Usage["output_tokens"]) != 3 {
		t.Errorf("message %+v", m)
	}
}

// An error step is the API's error object with its status (and
// retry-after), a cut stream ends without message_stop and without the
// end of the chunked body, and requests the next step does not accept
// get Other's reply, recorded as such.
func TestAnthropicErrorsAndOther(t *testing.T) {
	main := func(r *Request) bool { return r.HasTool("Bash") }
	s := startModelServer(Script{
		Steps: []Step{
			{When: main, Reply: Reply{Status: 429, Error: "slow down", RetryAfter: "0"}},
			{When: main, Reply: Reply{Status: 500}},
			{When: main, Reply: Reply{Text: "partial", Cut: true, Usage: Usage{Input: 10, Output: 2}}},
			{When: main, Reply: Reply{Text: "done", Usage: Usage{Input: 10, Output: 2}}},
		},
		Other: func(r *Request) Reply { return Reply{Text: "a title", Usage: Usage{Input: 7, Output: 2}} },
	})
	defer s.Close()
	withTool := `{"model":"m","stream":true,"messages":[],"tools":[{"name":"Bash"}]}`

	side := messagesPost(t, s, `{"model":"haiku","stream":true,"messages":[]}`)
	if _, err := sseEvents(t, side); err != nil {
		t.Fatal(err)
	}

	resp := messagesPost(t, s, withTool)
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "0" || e.Type != "error" || e.Error.Type != "rate_limit_error" || e.Error.Message != "slow down" {
		t.Errorf("429: status %d, %+v", resp.StatusCode, e)
	}
	resp = messagesPost(t, s, withTool)
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 500 || e.Error.Type != "api_error" || e.Error.Message != "Internal Server Error" {
		t.Errorf("500: status %d, %+v", resp.StatusCode, e)
	}
	resp = messagesPost(t, s, withTool)
	evs, err := sseEvents(t, resp)
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut stream: err %v", err)
	}
	if n := len(evs); n == 0 || evs[n-1].name != "content_block_start" {
		t.Errorf("cut stream: %v", evs)
	}
	if _, err := sseEvents(t, messagesPost(t, s, withTool)); err != nil {
		t.Fatal(err)
	}
	if _, err := sseEvents(t, messagesPost(t, s, withTool)); err != nil { // after the script: Other
		t.Fatal(err)
	}

	var got []string
	for _, x := range s.Exchanges() {
		got = append(got, strings.Join([]string{x.Request.Model, itoa(x.Step), itoa(x.Status), x.ID, boolS(x.Complete)}, " "))
	}
	want := []string{
		"haiku -1 200 msg_evt0001 true",
		"m 0 429  false",
		"m 1 500  false",
		"m 2 200 msg_evt0002 false",
		"m 3 200 msg_evt0003 true",
		"m -1 200 msg_evt0004 true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exchanges:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(s.Scripted()); n != 4 {
		t.Errorf("%d scripted exchanges", n)
	}
	if r, _ := http.Get(s.URL + "/v1/models"); r == nil || r.StatusCode != 404 {
		t.Errorf("an unknown path: %v", r)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func boolS(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// A streamed Responses reply is the API's sequence of events: an item
// added, its deltas and done for each of the reasoning, the message and
// the function call, then response.completed with the usage in the
// API's terms (input_tokens with the cached ones, output_tokens with the
// reasoning). Ids are the API's: resp_, call_.
func TestResponsesStream(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{
		{Reply: Reply{
			Thinking: "Look first.", Text: "Let me look.",
			Tools: []ToolCall{{Name: "exec_command", Input: json.RawMessage(`{"cmd":"ls"}`)}},
			Usage: Usage{Input: 5000, CacheRead: 3000, Output: 40, Reasoning: 12},
		}},
		{Reply: Reply{Status: 429, Error: "slow down"}},
	}})
	defer s.Close()
	body := `{"model":"gpt-test-1","stream":true,"input":[],"tools":[{"type":"function","name":"exec_command"},{"type":"web_search"}]}`
	resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, err := sseEvents(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	args, text := "", ""
	for _, e := range evs {
		names = append(names, e.name)
		switch e.name {
		case "response.function_call_arguments.delta":
			args += e.data["delta"].(string)
		case "response.output_text.delta":
			text += e.data["delta"].(string)
		}
	}
	want := "response.created response.in_progress " +
		"response.output_item.added response.reasoning_summary_part.added response.reasoning_summary_text.delta response.reasoning_summary_text.delta response.reasoning_summary_text.done response.reasoning_summary_part.done response.output_item.done " +
		"response.output_item.added response.content_part.added response.output_text.delta response.output_text.delta response.output_text.done response.content_part.done response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.delta response.function_call_arguments.done response.output_item.done " +
		"response.completed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	if args != `{"cmd":"ls"}` || text != "Let me look." {
		t.Errorf("arguments %q, text %q", args, text)
	}
	done := evs[len(evs)-1].data["response"].(map[string]any)
	u := done["usage"].(map[string]any)
	if done["id"] != "resp_evt0001" || done["status"] != "completed" || num(u["input_tokens"]) != 5000 || num(u["output_tokens"]) != 40 ||
		num(u["input_tokens_details"].(map[string]any)["cached_tokens"]) != 3000 || num(u["output_tokens_details"].(map[string]any)["reasoning_tokens"]) != 12 {
		t.Errorf("response.completed %v", done)
	}
	fc := evs[len(evs)-2].data["item"].(map[string]any)
	if fc["type"] != "function_call" || fc["call_id"] != "call_evt0002" || fc["name"] != "exec_command" {
		t.Errorf("function_call %v", fc)
	}
	ex := s.Exchanges()[0]
	if ex.Request.API != Responses || !ex.Request.HasTool("exec_command") || !ex.Request.HasTool("web_search") || ex.ID != "resp_evt0001" {
		t.Errorf("exchange %+v", ex)
	}

	resp, err = http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Message, Type, Code string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 429 || e.Error.Message != "slow down" || e.Error.Code != "rate_limit_exceeded" {
		t.Errorf("429: status %d, %+v", resp.StatusCode, e)
	}
}

// geminiPost sends a Gemini request for the method path (MODEL:ACTION
// with its query) and returns the response.
func geminiPost(t *testing.T, s *modelServer, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1beta/models/"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// geminiStream reads a streamed Gemini response: each event a data line
// of a GenerateContentResponse, ended by a blank line (\r\n, as the
// service ends them); and the error that ended it (nil for a clean end).
func geminiStream(t *testing.T, resp *http.Response) ([]map[string]any, error) {
	t.Helper()
	var out []map[string]any
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "data: ") {
			t.Fatalf("not a data line: %q", line)
		}
		var chunk map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &chunk); err != nil {
			t.Fatal(err)
		}
		out = append(out, chunk)
	}
}

// geminiParts is a response's first candidate: its parts and finish
// reason.
func geminiParts(chunk map[string]any) ([]any, any) {
	c := chunk["candidates"].([]any)[0].(map[string]any)
	return c["content"].(map[string]any)["parts"].([]any), c["finishReason"]
}

// A streamed Gemini reply is a chunk of thoughts (a part marked
// "thought"), the text in pieces and the function calls in one chunk,
// the model named by the path; every chunk has the prompt's usage, the
// last the finish reason and the whole usage in the API's terms:
// promptTokenCount with the cached tokens, candidatesTokenCount without
// the thoughts.
func TestGeminiStream(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{{Reply: Reply{
		Thinking: "**Looking**\n\nFirst the files.", Text: "Let me look.",
		Tools: []ToolCall{{Name: "run_shell_command", Input: json.RawMessage(`{"command":"ls"}`)}},
		Usage: Usage{Input: 5000, CacheRead: 3000, Output: 40, Reasoning: 12},
	}}}})
	defer s.Close()
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"read_file"}]}]}`
	resp := geminiPost(t, s, "gemini-2.5-flash:streamGenerateContent?alt=sse", body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.StatusCode != 200 {
		t.Fatalf("status %d, content type %q", resp.StatusCode, ct)
	}
	chunks, err := geminiStream(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 4 {
		t.Fatalf("%d chunks: %v", len(chunks), chunks)
	}
	var thought, text string
	var calls []map[string]any
	for i, c := range chunks {
		parts, finish := geminiParts(c)
		if (finish != nil) != (i == len(chunks)-1) || c["responseId"] != "msg_evt0001" || c["modelVersion"] != "gemini-2.5-flash" {
			t.Errorf("chunk %d: %v", i, c)
		}
		for _, p := range parts {
			p := p.(map[string]any)
			switch {
			case p["thought"] == true:
				thought += p["text"].(string)
			case p["functionCall"] != nil:
				calls = append(calls, p["functionCall"].(map[string]any))
			default:
				text += p["text"].(string)
			}
		}
		if u := c["usageMetadata"].(map[string]any); num(u["promptTokenCount"]) != 5000 || num(u["cachedContentTokenCount"]) != 3000 {
			t.Errorf("chunk %d: usage %v", i, u)
		}
	}
	if thought != "**Looking**\n\nFirst the files." || text != "Let me look." || len(calls) != 1 ||
		calls[0]["name"] != "run_shell_command" || calls[0]["id"] != "toolu_evt0002" || calls[0]["args"].(map[string]any)["command"] != "ls" {
		t.Errorf("thought %q, text %q, calls %v", thought, text, calls)
	}
	_, finish := geminiParts(chunks[3])
	u := chunks[3]["usageMetadata"].(map[string]any)
	if finish != "STOP" || num(u["candidatesTokenCount"]) != 28 || num(u["thoughtsTokenCount"]) != 12 || num(u["totalTokenCount"]) != 5040 {
		t.Errorf("last chunk: finish %v, usage %v", finish, u)
	}
	if u := chunks[0]["usageMetadata"].(map[string]any); u["candidatesTokenCount"] != nil || u["thoughtsTokenCount"] != nil {
		t.Errorf("first chunk's usage has the output: %v", u)
	}
	ex := s.Exchanges()
	if len(ex) != 1 {
		t.Fatalf("%d exchanges", len(ex))
	}
	if e := ex[0]; e.Request.API != Gemini || e.Request.Model != "gemini-2.5-flash" || !e.Request.Stream || !e.Request.HasTool("read_file") ||
		!e.Complete || e.Usage.Input != 5000 || len(e.Tools) != 1 || e.Tools[0].ID != "toolu_evt0002" {
		t.Errorf("exchange %+v", e)
	}
}

// generateContent (not streamed) gets the response as one object; an
// error is the API's google.rpc.Status (a retry-after as its RetryInfo);
// a cut stream ends after its first chunk without the end of the body.
func TestGeminiJSONAndErrors(t *testing.T) {
	s := startModelServer(Script{Steps: []Step{
		{Reply: Reply{Text: "Hello.", Usage: Usage{Input: 20, Output: 3}}},
		{Reply: Reply{Status: 429, Error: "Resource exhausted.", RetryAfter: "0"}},
		{Reply: Reply{Status: 500}},
		{Reply: Reply{Text: "partial", Cut: true, Usage: Usage{Input: 10, Output: 2}}},
	}})
	defer s.Close()
	resp := geminiPost(t, s, "gemini-2.5-flash-lite:generateContent", `{"contents":[]}`)
	var r map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	parts, finish := geminiParts(r)
	u := r["usageMetadata"].(map[string]any)
	if len(parts) != 1 || parts[0].(map[string]any)["text"] != "Hello." || finish != "STOP" || r["modelVersion"] != "gemini-2.5-flash-lite" ||
		num(u["promptTokenCount"]) != 20 || num(u["candidatesTokenCount"]) != 3 || u["thoughtsTokenCount"] != nil || u["cachedContentTokenCount"] != nil {
		t.Errorf("response %v", r)
	}

	var e struct {
		Error struct {
			Code            int
			Message, Status string
			Details         []map[string]any
		}
	}
	resp = geminiPost(t, s, "gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`)
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 429 || e.Error.Code != 429 || e.Error.Status != "RESOURCE_EXHAUSTED" || e.Error.Message != "Resource exhausted." ||
		len(e.Error.Details) != 1 || e.Error.Details[0]["retryDelay"] != "0s" {
		t.Errorf("429: status %d, %+v", resp.StatusCode, e)
	}
	e.Error.Details = nil
	resp = geminiPost(t, s, "gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`)
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 500 || e.Error.Status != "INTERNAL" || e.Error.Message != "Internal Server Error" || e.Error.Details != nil {
		t.Errorf("500: status %d, %+v", resp.StatusCode, e)
	}
	chunks, err := geminiStream(t, geminiPost(t, s, "gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`))
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(chunks) != 1 {
		t.Errorf("cut stream: %d chunks, err %v", len(chunks), err)
	}
	var got []string
	for _, x := range s.Exchanges() {
		got = append(got, strings.Join([]string{x.Request.Model, itoa(x.Status), x.ID, boolS(x.Complete)}, " "))
	}
	want := "gemini-2.5-flash-lite 200 msg_evt0001 true\ngemini-2.5-flash 429  false\ngemini-2.5-flash 500  false\ngemini-2.5-flash 200 msg_evt0002 false"
	if strings.Join(got, "\n") != want {
		t.Errorf("exchanges:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if r, _ := http.Post(s.URL+"/v1beta/models/gemini-2.5-flash:countTokens", "application/json", strings.NewReader("{}")); r == nil || r.StatusCode != 404 {
		t.Errorf("countTokens: %v", r)
	}
}
