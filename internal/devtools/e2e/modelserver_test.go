// The model server the agents run against in these tests, scripted: it speaks a
// model provider's HTTP API as the real service does (streamed or not),
// answers each request as a script says (text, tool calls, usage, an
// error, a stream cut short), and records what it reported for each
// request. What it recorded is the oracle an agent's session log is held
// to: the tokens a log says a call used must be those the server sent.
//
// The script is the same whatever the API: a Reply says what a request
// gets in words of no provider, with usage under evtools' definition
// (input counts every prompt token, cached or not), and each API's writer
// spells it as that API does. Anthropic's Messages API (POST
// /v1/messages), OpenAI's Responses API (POST .../responses, Codex's),
// OpenAI's Chat Completions API (POST .../chat/completions, opencode's
// through an OpenAI-compatible provider) and Google's Gemini API
// (generateContent, streamed or not, Gemini CLI's) are spoken, each in
// its file (modelserver_*_test.go).

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// API is a wire protocol the server speaks.
type API string

// The APIs spoken.
const (
	Anthropic API = "anthropic" // the Messages API (POST /v1/messages)
	Responses API = "responses" // OpenAI's Responses API (POST .../responses)
	Gemini    API = "gemini"    // Google's Gemini API (POST .../models/MODEL:generateContent, :streamGenerateContent)
	Chat      API = "chat"      // OpenAI's Chat Completions API (POST .../chat/completions)
)

// Usage is what a reply reports it used, under evtools' definition
// (docs/evimport.md): Input is every prompt token, CacheRead and
// CacheWrite the parts of it read from and written to a cache,
// CacheWrite1h the part of CacheWrite kept for an hour; Output every
// generated token, Reasoning the part of it that is reasoning. Each API's
// writer spells it in that API's terms (Anthropic's input_tokens leave
// the cache out).
type Usage struct {
	Input, CacheRead, CacheWrite, CacheWrite1h, Output, Reasoning int64
}

// ToolCall is a call of a tool the reply makes.
type ToolCall struct {
	ID    string          // "" for one made up (toolu_evt0001...)
	Name  string          // the tool: Bash
	Input json.RawMessage // its arguments, an object
}

// Reply is what one request gets.
type Reply struct {
	Thinking string
	Text     string
	Tools    []ToolCall
	Usage    Usage
	Model    string // the model the reply names; "" for the request's
	Stop     string // the stop reason; "" for tool_use when there are tool calls, else end_turn

	// Status, when not 0, is an HTTP error the request gets instead
	// (429, 500, 529), with Error as its message.
	Status int
	Error  string
	// RetryAfter is the retry-after header of an error, in seconds; ""
	// for none.
	RetryAfter string
	// Cut ends a streamed reply after its first content block's start,
	// the connection closed without the end of the stream.
	Cut bool
}

// Step is one reply of a script, for the first request When accepts
// once the steps before it are served.
type Step struct {
	When func(*Request) bool // nil: any request
	Reply
}

// Script says what each request gets: the steps in order, each to the
// next request it accepts; a request the next step does not accept (an
// agent's side request: a title, a quota check) or one after the last
// step gets Other's reply.
type Script struct {
	Steps []Step
	Other func(*Request) Reply // nil: a short text with a little usage
}

// Request is what the server read of a request, for a step's When.
type Request struct {
	API    API
	Path   string
	Model  string
	Stream bool
	Tools  []string // the names of the tools offered
	Body   json.RawMessage
}

// HasTool reports whether the request offers the tool name.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// Exchange is what the server did with one request: the oracle.
type Exchange struct {
	N       int // its place in the order of arrival, from 0
	Step    int // the script's step that answered, -1 for Other
	Request Request
	Status  int    // the HTTP status sent
	ID      string // the message or response id sent (msg_..., resp_...), "" for an error
	// Usage is the usage the reply reported, Complete whether the whole
	// reply was sent (not an error, not cut).
	Usage    Usage
	Complete bool
	Tools    []ToolCall // the tool calls sent, their ids made up where the script left them out
	Text     string
}

// modelServer is a running scripted server.
type modelServer struct {
	URL string // http://127.0.0.1:PORT, without a path

	srv       *httptest.Server
	mu        sync.Mutex
	script    Script
	next      int // the next step
	exchanges []Exchange
	ids       int // message and tool ids made up so far
}

// startModelServer starts a server playing script; Close stops it.
func startModelServer(script Script) *modelServer {
	s := &modelServer{script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *modelServer) Close() { s.srv.Close() }

// Exchanges is what the server did so far, in the order requests came.
func (s *modelServer) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.exchanges...)
}

// Left is the number of the script's steps not served yet.
func (s *modelServer) Left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script.Steps) - s.next
}

// Scripted is the exchanges of the script's steps, in order: those of
// Other left out.
func (s *modelServer) Scripted() []Exchange {
	var out []Exchange
	for _, e := range s.Exchanges() {
		if e.Step >= 0 {
			out = append(out, e)
		}
	}
	return out
}

func (s *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var api API
	var req Request
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
		api = Anthropic
		req, err = anthropicRequest(body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		api = Responses
		req, err = responsesRequest(body)
	case r.Method == http.MethodPost && geminiAction(r.URL.Path) != "":
		api = Gemini
		req, err = geminiRequest(r.URL.Path, body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		api = Chat
		req, err = chatRequest(body)
	default:
		// count_tokens, a model list, an API not spoken yet, anything
		// else: the agent must do without, and says so in its log if it
		// cares
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.API, req.Path = api, r.URL.Path
	ex, reply := s.answer(req)
	ex.Status = http.StatusOK
	if reply.Status != 0 {
		ex.Status = reply.Status
	}
	// the exchange is recorded before the reply is written: an agent
	// that gives up on a cut stream may be gone before the handler ends
	s.mu.Lock()
	ex.N = len(s.exchanges)
	s.exchanges = append(s.exchanges, ex)
	s.mu.Unlock()
	switch api {
	case Anthropic:
		writeAnthropic(w, req, reply, &ex)
	case Responses:
		writeResponses(w, req, reply, &ex)
	case Gemini:
		writeGemini(w, req, reply, &ex)
	case Chat:
		writeChat(w, req, reply, &ex)
	}
}

// answer finds the reply to req and makes up its ids.
func (s *modelServer) answer(req Request) (Exchange, Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ex := Exchange{Step: -1, Request: req}
	var reply Reply
	if s.next < len(s.script.Steps) && (s.script.Steps[s.next].When == nil || s.script.Steps[s.next].When(&req)) {
		ex.Step = s.next
		reply = s.script.Steps[s.next].Reply
		s.next++
	} else if s.script.Other != nil {
		reply = s.script.Other(&req)
	} else {
		reply = Reply{Text: "ok", Usage: Usage{Input: 12, Output: 1}}
	}
	if reply.Status != 0 {
		return ex, reply
	}
	// ids as each API spells them
	msg, call := "msg_evt%04d", "toolu_evt%04d"
	switch req.API {
	case Responses:
		msg, call = "resp_evt%04d", "call_evt%04d"
	case Chat:
		msg, call = "chatcmpl-evt%04d", "call_evt%04d"
	}
	s.ids++
	ex.ID = fmt.Sprintf(msg, s.ids)
	reply.Tools = append([]ToolCall(nil), reply.Tools...)
	for i := range reply.Tools {
		if reply.Tools[i].ID == "" {
			s.ids++
			reply.Tools[i].ID = fmt.Sprintf(call, s.ids)
		}
	}
	ex.Usage, ex.Complete, ex.Tools, ex.Text = reply.Usage, !reply.Cut, reply.Tools, reply.Text
	return ex, reply
}
