package ev2otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evtools/evtools/internal/core/term"
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/pkg/jsonl"
	"google.golang.org/protobuf/encoding/protowire"
)

// sender sends batches to an OTLP/HTTP receiver, one request each, as
// OTLP's HTTP transport says: POST to /v1/traces, retried after 429, 502,
// 503 and 504 (and failed connections) with a growing wait.
type sender struct {
	url     string
	proto   bool
	header  http.Header
	client  *http.Client
	retries int
	stderr  io.Writer

	sent, refused int
	// unsent counts the spans no receiver answered for: those of a request
	// that could not be sent, and every one after the sending stopped.
	unsent int
	// stopped is set once the sending stops; countRest, when the input is
	// files (which end), has the rest converted and counted as unsent
	// rather than left unread, so that the counts add up to every span.
	stopped, countRest bool
	saidRetrying       bool
	body               []byte
}

// errStopped ends the reading: the receiver refuses every request (or
// cannot be reached), so the rest would be refused too.
var errStopped = errors.New("sending stopped")

// backoff is the wait before the first retry, doubled for each next one
// up to maxWait; Retry-After, when the receiver says it, is waited instead,
// up to maxRetryAfter. Tests shorten them.
var (
	backoff       = time.Second
	maxWait       = 30 * time.Second
	maxRetryAfter = time.Minute
)

func newSender(o *options, stderr io.Writer) (*sender, error) {
	u, err := url.Parse(o.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, cli.Usage(fmt.Errorf("--endpoint %s: not an http:// or https:// URL", term.Escape(o.Endpoint)))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces" // the base URL of a receiver, as OTEL_EXPORTER_OTLP_ENDPOINT is
	}
	s := &sender{url: u.String(), proto: o.Protocol == "protobuf", header: http.Header{},
		client: &http.Client{Timeout: o.Timeout}, retries: max(o.Retries, 0), stderr: stderr}
	for _, env := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if err := envHeaders(s.header, env, getenv(env)); err != nil {
			return nil, err
		}
	}
	flagged := map[string]bool{}
	for _, h := range o.Header {
		name, value, ok := splitHeader(h)
		if !ok {
			return nil, cli.Usage(fmt.Errorf("--header %s: not NAME:VALUE or NAME=VALUE", term.Escape(h)))
		}
		if key := http.CanonicalHeaderKey(name); !flagged[key] {
			flagged[key] = true
			s.header.Del(key) // the flag wins over the environment
		}
		s.header.Add(name, value)
	}
	s.header.Set("Content-Type", "application/json")
	if s.proto {
		s.header.Set("Content-Type", "application/x-protobuf")
	}
	return s, nil
}

// envHeaders sets the headers of an OTEL_EXPORTER_OTLP_*HEADERS variable:
// NAME=VALUE pairs separated by commas, values URL-encoded.
func envHeaders(h http.Header, env, list string) error {
	for _, pair := range strings.Split(list, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		name, value, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		v, err := url.PathUnescape(strings.TrimSpace(value))
		if !ok || err != nil || name == "" {
			return cli.Errorf(cli.ExitError, "%s: %s is not NAME=VALUE (URL-encoded)", env, term.Escape(strings.TrimSpace(pair)))
		}
		h.Set(name, v)
	}
	return nil
}

// splitHeader reads NAME:VALUE (curl's form) or NAME=VALUE (the form of
// OTEL_EXPORTER_OTLP_HEADERS): a name holds neither, so the first of the
// two splits.
func splitHeader(h string) (name, value string, ok bool) {
	i := strings.IndexAny(h, ":=")
	if i <= 0 {
		return "", "", false
	}
	name, value = strings.TrimSpace(h[:i]), strings.TrimSpace(h[i+1:])
	for _, r := range name {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/;<>?@[\]{}`, r) {
			return "", "", false
		}
	}
	return name, value, name != ""
}

// send sends one batch; an error stops the reading.
func (s *sender) send(b *batch) error {
	if s.stopped {
		s.unsent += b.n
		return nil
	}
	if s.proto {
		s.body = appendProto(s.body[:0], b)
	} else {
		s.body = appendJSON(s.body[:0], b)
	}
	for attempt := 0; ; attempt++ {
		status, msg, rejected, wait, err := s.post()
		switch {
		case err == nil && status/100 == 2:
			if rejected > 0 {
				s.errorf("%s accepted a request but refused %d of its %d spans: %s", s.url, rejected, b.n, nonEmpty(msg, "no reason given"))
			}
			rejected = min(rejected, int64(b.n))
			s.sent += b.n - int(rejected)
			s.refused += int(rejected)
			return nil
		case (err != nil || retryable(status)) && attempt < s.retries:
			if wait <= 0 {
				wait = min(backoff<<attempt, maxWait)
			}
			s.sayRetrying(status, msg, err, wait, attempt)
			jsonl.Waiting(func() { time.Sleep(wait) }) // a signal may stop it meanwhile
			continue
		}
		if err != nil {
			s.unsent += b.n
			s.errorf("%s: cannot send: %v", s.url, err)
			return s.stop()
		}
		s.refused += b.n
		s.errorf("%s refused %d spans: %s%s", s.url, b.n, statusText(status), suffix(msg))
		if status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge {
			return nil // this batch's fault: the next ones may pass
		}
		if retryable(status) {
			s.errorf("stopped after %d tries", attempt+1)
		}
		return s.stop()
	}
}

// stop ends the sending: the rest would be refused too. The reading goes
// on only to count what is not sent, where the input ends (files).
func (s *sender) stop() error {
	s.stopped = true
	if s.countRest {
		return nil
	}
	return errStopped
}

// sayRetrying says, once, that a request is being tried again, where to
// and for how long at most: a receiver that is down would otherwise have
// the tool wait half a minute without a word.
func (s *sender) sayRetrying(status int, msg string, err error, wait time.Duration, attempt int) {
	if s.saidRetrying {
		return
	}
	s.saidRetrying = true
	why := " refused a request: " + statusText(status) + suffix(msg)
	if err != nil {
		why = ": cannot send: " + err.Error()
	}
	total := wait
	for i := attempt + 1; i < s.retries; i++ {
		total += min(backoff<<i, maxWait)
	}
	tries := "tries"
	if s.retries-attempt == 1 {
		tries = "try"
	}
	s.errorf("%s%s; trying again: up to %d more %s within %s", s.url, why, s.retries-attempt, tries, total)
}

func statusText(status int) string {
	return http.StatusText(status) + " (" + strconv.Itoa(status) + ")"
}

// retryable is whether OTLP/HTTP says a request refused with status may
// be sent again.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// post sends the body once: the status, the receiver's message, the
// spans a partial success rejected, and the wait it asks for.
func (s *sender) post() (status int, msg string, rejected int64, wait time.Duration, err error) {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(s.body))
	if err != nil {
		return 0, "", 0, 0, err
	}
	req.Header = s.header.Clone()
	var resp *http.Response
	jsonl.Waiting(func() { resp, err = s.client.Do(req) }) // writes nothing: a signal may stop it
	if err != nil {
		return 0, "", 0, 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	wait = retryAfter(resp.Header.Get("Retry-After"))
	isProto := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-protobuf")
	if resp.StatusCode/100 == 2 {
		rejected, msg = partialSuccess(body, isProto)
		return resp.StatusCode, msg, rejected, wait, nil
	}
	return resp.StatusCode, statusMessage(body, isProto), 0, wait, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(h); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	return min(max(d, 0), maxRetryAfter)
}

// partialSuccess reads an ExportTraceServiceResponse: the spans it
// rejected and why.
func partialSuccess(body []byte, isProto bool) (rejected int64, msg string) {
	if isProto {
		ps := protoField(body, 1)
		if v := protoField(ps, 1); v != nil {
			n, _ := protowire.ConsumeVarint(v)
			rejected = int64(n)
		}
		return rejected, string(protoField(ps, 2))
	}
	var r struct {
		PartialSuccess struct {
			RejectedSpans json.Number `json:"rejectedSpans"`
			ErrorMessage  string      `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(body, &r) != nil {
		return 0, ""
	}
	n, _ := strconv.ParseInt(strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`), 10, 64)
	return n, r.PartialSuccess.ErrorMessage
}

// statusMessage is the message of a refusal: a google.rpc.Status (in
// protobuf or JSON), else the body's text.
func statusMessage(body []byte, isProto bool) string {
	if isProto {
		return oneLine(string(protoField(body, 2)))
	}
	var st struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		return oneLine(st.Message)
	}
	return oneLine(string(body))
}

// protoField is the value of the last field num of a protobuf message,
// as bytes (a varint's bytes undecoded), nil when absent or malformed.
func protoField(b []byte, num protowire.Number) []byte {
	var found []byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return found
		}
		b = b[l:]
		var v []byte
		switch typ {
		case protowire.BytesType:
			val, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return found
			}
			v, l = val, m
		default:
			l = protowire.ConsumeFieldValue(n, typ, b)
			if l < 0 {
				return found
			}
			v = b[:l]
		}
		if n == num {
			found = v
		}
		b = b[l:]
	}
	return found
}

// oneLine is a receiver's message fit for one line of stderr.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "..."
	}
	return term.Escape(s)
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

func nonEmpty(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

func (s *sender) errorf(format string, args ...any) {
	fmt.Fprintf(s.stderr, name+": "+format+"\n", args...)
}

// report says on stderr how many spans were sent, refused and not sent;
// read from a pipe, the input after the stop is not read, and said so.
func (s *sender) report() {
	line := fmt.Sprintf("%d spans sent to %s, %d refused", s.sent, s.url, s.refused)
	if s.unsent > 0 {
		line += fmt.Sprintf(", %d not sent", s.unsent)
	}
	if s.stopped && !s.countRest {
		line += "; the rest of the input was not read"
	}
	s.errorf("%s", line)
}
