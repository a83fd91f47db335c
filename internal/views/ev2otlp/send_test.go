package ev2otlp

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// receiver is an OTLP/HTTP receiver built from the Collector's own code:
// pdata's ptraceotlp decodes each request, in protobuf or JSON as its
// Content-Type says, and answers as a receiver does. answer, when set,
// chooses the answer to the nth request (from 0): a status and a body,
// handled true when it answered (its status and body written), false
// to take the request.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	n      int
	spans  int
	traces []ptrace.Traces
	header []http.Header
	answer func(n int, w http.ResponseWriter) (handled bool)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter) bool) *receiver {
	r := &receiver{t: t, answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	r.n++
	r.header = append(r.header, req.Header.Clone())
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.Error(w, "no such path", http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(req.Body)
	ereq := ptraceotlp.NewExportRequest()
	var err error
	switch ct := req.Header.Get("Content-Type"); ct {
	case "application/x-protobuf":
		err = ereq.UnmarshalProto(body)
	case "application/json":
		err = ereq.UnmarshalJSON(body)
		if err == nil {
			if e := strictOTLP(body); e != nil {
				r.t.Errorf("request %d: %v", n, e)
			}
		}
	default:
		err = fmt.Errorf("content type %q", ct)
	}
	if err != nil {
		r.t.Errorf("request %d: the Collector's decoder refuses it: %v", n, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.answer != nil && r.answer(n, w) {
		return
	}
	r.traces = append(r.traces, ereq.Traces())
	r.spans += ereq.Traces().SpanCount()
	resp := ptraceotlp.NewExportResponse()
	out, _ := resp.MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func (r *receiver) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// fast makes the waits between tries short for the test.
func fast(t *testing.T) {
	b, m := backoff, maxRetryAfter
	backoff, maxRetryAfter = time.Millisecond, 50*time.Millisecond
	t.Cleanup(func() { backoff, maxRetryAfter = b, m })
}

// --endpoint sends what the file output holds, in protobuf (the default)
// and in JSON, each batch a request with the headers asked for, and says
// on stderr how many spans went.
func TestEndpoint(t *testing.T) {
	file, _, _ := ev2otlp(t, nil, "../../../examples/events/multiagent.jsonl")
	for _, protocol := range []string{"protobuf", "json"} {
		t.Run(protocol, func(t *testing.T) {
			r := newReceiver(t, nil)
			_, stderr, code := ev2otlp(t, nil, "--endpoint", r.srv.URL, "--protocol", protocol, "--batch", "10",
				"--header", "Authorization=Basic YWJjOmRlZg==", "-H", "X-Scope-OrgID: tenant-1",
				"../../../examples/events/multiagent.jsonl")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if wantErr := fmt.Sprintf("ev2otlp: 36 spans sent to %s/v1/traces, 0 refused\n", r.srv.URL); stderr != wantErr {
				t.Errorf("stderr %q, want %q", stderr, wantErr)
			}
			if r.spans != 36 || r.requests() != 4 {
				t.Errorf("%d spans in %d requests, want 36 in 4 (--batch 10)", r.spans, r.requests())
			}
			gotSpans, wantSpans := spanNames(t, r.traces), spanNames(t, decodeAll(t, []byte(file)))
			if gotSpans != wantSpans {
				t.Errorf("the receiver got other spans than the file holds:\n%s\nwant:\n%s", gotSpans, wantSpans)
			}
			h := r.header[0]
			if h.Get("Authorization") != "Basic YWJjOmRlZg==" || h.Get("X-Scope-OrgID") != "tenant-1" {
				t.Errorf("headers %v", h)
			}
		})
	}
}

// spanNames lists every span with its ids and attributes, sorted by id:
// what a backend would show, whatever the batching.
func spanNames(t *testing.T, all []ptrace.Traces) string {
	var rows []string
	for _, td := range all {
		eachSpan(td, func(res pcommon.Resource, s ptrace.Span) {
			rows = append(rows, fmt.Sprintf("%s %s %s %s %d-%d %v %s", s.TraceID(), s.SpanID(), s.ParentSpanID(), s.Name(),
				s.StartTimestamp(), s.EndTimestamp(), s.Attributes().AsRaw(), s.Status().Code()))
		})
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n")
}

// Refusals and retries: 503 and 429 are tried again (Retry-After
// followed) and the spans then count as sent; a 400 refuses its batch
// only, the next ones go; a 401 stops the sending, exit 1; a receiver
// that cannot be reached is tried --retries times, then exit 1; a partial
// success counts the spans the receiver rejected.
func TestEndpointRefusals(t *testing.T) {
	fast(t)
	input := "../../../examples/events/multiagent.jsonl"
	status := func(code int) func(int, http.ResponseWriter) bool {
		return func(_ int, w http.ResponseWriter) bool { w.WriteHeader(code); return true }
	}
	for _, c := range []struct {
		name     string
		answer   func(n int, w http.ResponseWriter) bool
		args     []string
		code     int
		requests int
		stderr   string // its lines, the URL written as URL
	}{
		{"retried", func(n int, w http.ResponseWriter) bool {
			switch n {
			case 0:
				return status(http.StatusServiceUnavailable)(n, w)
			case 1:
				w.Header().Set("Retry-After", "0")
				return status(http.StatusTooManyRequests)(n, w)
			}
			return false
		}, nil, 0, 3, "ev2otlp: URL refused a request: Service Unavailable (503); trying again: up to 5 more tries within 31ms\n" +
			"ev2otlp: 36 spans sent to URL, 0 refused\n"},
		{"bad batch", func(n int, w http.ResponseWriter) bool {
			if n != 1 {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"code":3,"message":"span too old"}`)
			return true
		}, []string{"--batch", "10"}, exitRefused, 4,
			"ev2otlp: URL refused 10 spans: Bad Request (400): span too old\nev2otlp: 26 spans sent to URL, 10 refused\n"},
		{"unauthorized", status(http.StatusUnauthorized), []string{"--batch", "10"}, exitRefused, 1,
			"ev2otlp: URL refused 10 spans: Unauthorized (401)\nev2otlp: 0 spans sent to URL, 10 refused, 26 not sent\n"},
		{"always busy", status(http.StatusServiceUnavailable), []string{"--retries", "2"}, exitRefused, 3,
			"ev2otlp: URL refused a request: Service Unavailable (503); trying again: up to 2 more tries within 3ms\n" +
				"ev2otlp: URL refused 36 spans: Service Unavailable (503)\nev2otlp: stopped after 3 tries\nev2otlp: 0 spans sent to URL, 36 refused\n"},
		{"partial success", func(n int, w http.ResponseWriter) bool {
			resp := ptraceotlp.NewExportResponse()
			resp.PartialSuccess().SetRejectedSpans(2)
			resp.PartialSuccess().SetErrorMessage("2 spans have no name")
			out, _ := resp.MarshalJSON()
			w.Header().Set("Content-Type", "application/json")
			w.Write(out)
			return true
		}, nil, exitRefused, 1,
			"ev2otlp: URL accepted a request but refused 2 of its 36 spans: 2 spans have no name\nev2otlp: 34 spans sent to URL, 2 refused\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t, c.answer)
			args := append([]string{"--endpoint", r.srv.URL}, c.args...)
			_, stderr, code := ev2otlp(t, nil, append(args, input)...)
			stderr = strings.ReplaceAll(stderr, r.srv.URL+"/v1/traces", "URL")
			if code != c.code || stderr != c.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, c.code, c.stderr)
			}
			if r.requests() != c.requests {
				t.Errorf("%d requests, want %d", r.requests(), c.requests)
			}
		})
	}
}

// A receiver that is not there: it is said once that the request is
// tried again, where to and for how long at most; after --retries tries,
// exit 1 with the reason, the spans counted as not sent.
func TestEndpointUnreachable(t *testing.T) {
	fast(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, stderr, code := ev2otlp(t, nil, "--endpoint", url, "--retries", "3", "../../../examples/events/multiagent.jsonl")
	if code != exitRefused {
		t.Errorf("exit %d, want %d", code, exitRefused)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ev2otlp: "+url+"/v1/traces: cannot send: ") ||
		!strings.HasSuffix(lines[0], "; trying again: up to 3 more tries within 7ms") ||
		!strings.HasPrefix(lines[1], "ev2otlp: "+url+"/v1/traces: cannot send: ") ||
		lines[2] != "ev2otlp: 0 spans sent to "+url+"/v1/traces, 0 refused, 36 not sent" {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// A receiver that fails half way, by a 500, by closing the connection or
// by going away: the spans sent, those refused and those never sent add up
// to every span of the input; read from a pipe, the rest of the input is
// left unread, and said so.
func TestEndpointFailsHalfWay(t *testing.T) {
	fast(t)
	input := "../../../examples/events/multiagent.jsonl"
	var srvs []*receiver
	for _, c := range []struct {
		name   string
		answer func(n int, w http.ResponseWriter) bool
		pipe   bool
		stderr string // its last line, the URL written as URL
	}{
		{"a 500", func(n int, w http.ResponseWriter) bool {
			if n < 2 {
				return false
			}
			w.WriteHeader(http.StatusInternalServerError)
			return true
		}, false, "ev2otlp: 20 spans sent to URL, 10 refused, 6 not sent\n"},
		{"a closed connection", func(n int, w http.ResponseWriter) bool {
			if n < 2 {
				return false
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return true
			}
			conn.Close()
			return true
		}, false, "ev2otlp: 20 spans sent to URL, 0 refused, 16 not sent\n"},
		{"gone", func(n int, w http.ResponseWriter) bool {
			if n == 1 {
				// the second answer is the last: nothing listens after it
				w.Header().Set("Connection", "close")
				srvs[len(srvs)-1].srv.Listener.Close()
			}
			return false
		}, false, "ev2otlp: 20 spans sent to URL, 0 refused, 16 not sent\n"},
		{"a 500, read from a pipe", func(n int, w http.ResponseWriter) bool {
			if n < 2 {
				return false
			}
			w.WriteHeader(http.StatusInternalServerError)
			return true
		}, true, "ev2otlp: 20 spans sent to URL, 10 refused; the rest of the input was not read\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t, c.answer)
			srvs = append(srvs, r)
			args := []string{"--endpoint", r.srv.URL, "--batch", "10", "--retries", "0"}
			var stdin io.Reader
			if c.pipe {
				stdin = strings.NewReader(string(readFile(t, input)))
			} else {
				args = append(args, input)
			}
			_, stderr, code := ev2otlp(t, stdin, args...)
			stderr = strings.ReplaceAll(stderr, r.srv.URL+"/v1/traces", "URL")
			if code != exitRefused || !strings.HasSuffix(stderr, "\n"+c.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, ending:\n%s", code, stderr, exitRefused, c.stderr)
			}
		})
	}
}

// The OpenTelemetry variables: headers from OTEL_EXPORTER_OTLP_HEADERS
// (URL-encoded), those of the traces' variable over them, a --header over
// both; OTEL_SERVICE_NAME when --service does not say.
func TestEndpointEnvironment(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":        "Authorization=Basic%20ZW52, X-Team = agents ",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "X-Team=traces",
		"OTEL_SERVICE_NAME":                 "orchestrator",
	}
	old := getenv
	getenv = func(k string) string { return env[k] }
	t.Cleanup(func() { getenv = old })
	r := newReceiver(t, nil)
	if _, stderr, code := ev2otlp(t, nil, "--endpoint", r.srv.URL+"/", "-H", "x-team: flag", "../../../examples/events/multiagent.jsonl"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	h := r.header[0]
	if h.Get("Authorization") != "Basic ZW52" || strings.Join(h.Values("X-Team"), ",") != "flag" {
		t.Errorf("headers %v", h)
	}
	if name, _ := r.traces[0].ResourceSpans().At(0).Resource().Attributes().Get("service.name"); name.AsString() != "orchestrator" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", name.AsString())
	}
	env["OTEL_EXPORTER_OTLP_HEADERS"] = "no-equals-sign"
	if _, stderr, code := ev2otlp(t, nil, "--endpoint", r.srv.URL, "../../../examples/events/multiagent.jsonl"); code != 2 || stderr != "ev2otlp: OTEL_EXPORTER_OTLP_HEADERS: no-equals-sign is not NAME=VALUE (URL-encoded)\n" {
		t.Errorf("a bad variable: exit %d, %q", code, stderr)
	}
}

// checkProto decodes the protobuf form of a batch with the Collector's
// code and compares it with the JSON form's decoding.
func checkProto(t testing.TB, b *batch) {
	t.Helper()
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(appendProto(nil, b)); err != nil {
		t.Fatalf("the Collector refuses the protobuf form: %v", err)
	}
	var u ptrace.JSONUnmarshaler
	fromJSON, err := u.UnmarshalTraces(appendJSON(nil, b))
	if err != nil {
		t.Fatalf("the Collector refuses the JSON form: %v", err)
	}
	var m ptrace.JSONMarshaler
	p, _ := m.MarshalTraces(req.Traces())
	j, _ := m.MarshalTraces(fromJSON)
	if string(p) != string(j) {
		t.Fatalf("protobuf and JSON forms differ:\n%s\n%s", p, j)
	}
}
