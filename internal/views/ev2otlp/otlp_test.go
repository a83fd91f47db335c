package ev2otlp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The checks every line ev2otlp writes goes through in the tests: the
// Collector's own decoder reads it back (what a Collector, a Jaeger or a
// Tempo would do with it), and then what that decoder lets pass but the
// OTLP/JSON specification forbids is looked for: ids in base64 or of the
// wrong length, enums by name, 64-bit integers as JSON numbers, keys in
// snake_case or unknown to the schema.

// decodeLine reads one line with the Collector's decoder, after the
// stricter checks of the specification.
func decodeLine(t testing.TB, line []byte) ptrace.Traces {
	t.Helper()
	if err := strictOTLP(line); err != nil {
		t.Fatalf("not OTLP/JSON as the specification says: %v\n%s", err, clip(line))
	}
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(line)
	if err != nil {
		t.Fatalf("the Collector's decoder refuses a line: %v\n%s", err, clip(line))
	}
	return td
}

// decodeAll reads every line of out, which must end with a newline.
func decodeAll(t testing.TB, out []byte) []ptrace.Traces {
	t.Helper()
	if len(out) > 0 && out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a newline")
	}
	var all []ptrace.Traces
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		if len(line) > 0 {
			all = append(all, decodeLine(t, line))
		}
	}
	return all
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

var (
	hexTraceID = regexp.MustCompile(`^[0-9a-f]{32}$`)
	hexSpanID  = regexp.MustCompile(`^[0-9a-f]{16}$`)
	decimal    = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	unsigned   = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
)

// schemaKeys are the keys OTLP/JSON has at each place ev2otlp writes to,
// by the key of the object that holds them ("" is the top level).
var schemaKeys = map[string][]string{
	"":               {"resourceSpans"},
	"resourceSpans":  {"resource", "scopeSpans", "schemaUrl"},
	"resource":       {"attributes", "droppedAttributesCount"},
	"scopeSpans":     {"scope", "spans", "schemaUrl"},
	"scope":          {"name", "version", "attributes"},
	"spans":          {"traceId", "spanId", "parentSpanId", "traceState", "name", "kind", "startTimeUnixNano", "endTimeUnixNano", "attributes", "events", "links", "status", "flags"},
	"events":         {"timeUnixNano", "name", "attributes"},
	"status":         {"message", "code"},
	"attributes":     {"key", "value"},
	"value":          {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"},
	"arrayValue":     {"values"},
	"values":         {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"},
	"partialSuccess": {"rejectedSpans", "errorMessage"},
}

// strictOTLP checks a line against the letter of OTLP/JSON.
func strictOTLP(line []byte) error {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	return walkOTLP("", "", v)
}

func walkOTLP(path, in string, v any) error {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			if err := walkOTLP(fmt.Sprintf("%s[%d]", path, i), in, e); err != nil {
				return err
			}
		}
		if in == "attributes" {
			seen := map[string]bool{}
			for _, e := range v {
				k, _ := e.(map[string]any)["key"].(string)
				if seen[k] {
					return fmt.Errorf("%s: attribute %q twice", path, k)
				}
				seen[k] = true
			}
		}
		return nil
	case map[string]any:
		allowed := schemaKeys[in]
		for k, e := range v {
			p := path + "." + k
			if strings.Contains(k, "_") {
				return fmt.Errorf("%s: key in snake_case, not lowerCamelCase", p)
			}
			if !contains(allowed, k) {
				return fmt.Errorf("%s: no such key in OTLP/JSON here", p)
			}
			if err := checkMember(p, k, e); err != nil {
				return err
			}
			if err := walkOTLP(p, k, e); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// checkMember checks the encoding of the members OTLP/JSON writes in a
// form of its own.
func checkMember(p, k string, e any) error {
	str := func(re *regexp.Regexp, what string) error {
		s, ok := e.(string)
		if !ok || !re.MatchString(s) {
			return fmt.Errorf("%s: %v is not %s", p, e, what)
		}
		return nil
	}
	switch k {
	case "traceId":
		if err := str(hexTraceID, "32 lowercase hex digits"); err != nil {
			return err
		}
		if strings.Trim(e.(string), "0") == "" {
			return fmt.Errorf("%s: an id of zeros", p)
		}
	case "spanId", "parentSpanId":
		if err := str(hexSpanID, "16 lowercase hex digits"); err != nil {
			return err
		}
		if strings.Trim(e.(string), "0") == "" {
			return fmt.Errorf("%s: an id of zeros", p)
		}
	case "startTimeUnixNano", "endTimeUnixNano", "timeUnixNano":
		return str(unsigned, "a fixed64 as a decimal string")
	case "intValue", "rejectedSpans":
		return str(decimal, "an int64 as a decimal string")
	case "kind", "code":
		n, ok := e.(json.Number)
		if !ok {
			return fmt.Errorf("%s: %v is not an enum's number", p, e)
		}
		i, err := n.Int64()
		if err != nil || i < 0 || k == "kind" && i > 5 || k == "code" && i > 2 {
			return fmt.Errorf("%s: %v is not a value of the enum", p, e)
		}
	case "doubleValue":
		if _, ok := e.(json.Number); !ok {
			return fmt.Errorf("%s: %v is not a JSON number", p, e)
		}
	case "stringValue", "name", "key", "message":
		if _, ok := e.(string); !ok {
			return fmt.Errorf("%s: %v is not a string", p, e)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestStrictOTLP: the checker refuses each thing the Collector's decoder
// lets pass but the specification forbids, so that the tests would see
// ev2otlp write one.
func TestStrictOTLP(t *testing.T) {
	good := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"zot"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"chat","kind":3,"startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"5"}}],"status":{"code":2}}]}]}]}`
	if err := strictOTLP([]byte(good)); err != nil {
		t.Fatalf("a good line refused: %v", err)
	}
	var u ptrace.JSONUnmarshaler
	for _, c := range []struct{ what, from, to string }{
		{"base64 trace id", `"5b8efff798038103d269b633813fc60c"`, `"W47/95gDgQPSabYzgT/GDA=="`},
		{"short span id", `"eee19b7ec3c1b174"`, `"eee19b7e"`},
		{"enum by name", `"kind":3`, `"kind":"SPAN_KIND_CLIENT"`},
		{"int64 as a number", `{"intValue":"5"}`, `{"intValue":5}`},
		{"time as a number", `"startTimeUnixNano":"1"`, `"startTimeUnixNano":1`},
		{"snake_case key", `"startTimeUnixNano"`, `"start_time_unix_nano"`},
		{"status code by name", `"code":2`, `"code":"STATUS_CODE_ERROR"`},
		{"attribute twice", `"attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"5"}}]`, `"attributes":[{"key":"a","value":{"intValue":"5"}},{"key":"a","value":{"intValue":"6"}}]`},
	} {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("%s: the replacement did not apply", c.what)
		}
		if err := strictOTLP([]byte(bad)); err == nil {
			t.Errorf("%s: not refused", c.what)
		}
		// the point of the checker: what the Collector would take anyway
		if _, err := u.UnmarshalTraces([]byte(bad)); err != nil && c.what != "short span id" {
			t.Logf("%s: the Collector's decoder refuses it too: %v", c.what, err)
		}
	}
}

// spanTree draws the spans of one trace as an indented tree: name,
// status and the attributes named, children in the order they began.
func spanTree(spans []ptrace.Span, show ...string) string {
	children := map[pcommon.SpanID][]ptrace.Span{}
	ids := map[pcommon.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanID()] = true
	}
	var roots []ptrace.Span
	for _, s := range spans {
		if s.ParentSpanID().IsEmpty() || !ids[s.ParentSpanID()] {
			roots = append(roots, s)
		} else {
			children[s.ParentSpanID()] = append(children[s.ParentSpanID()], s)
		}
	}
	var b strings.Builder
	var draw func(s ptrace.Span, depth int)
	draw = func(s ptrace.Span, depth int) {
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), s.Name())
		if c := s.Status().Code(); c != ptrace.StatusCodeUnset {
			fmt.Fprintf(&b, " [%s]", c)
		}
		for _, k := range show {
			if v, ok := s.Attributes().Get(k); ok {
				fmt.Fprintf(&b, " %s=%s", k, v.AsString())
			}
		}
		for i := 0; i < s.Events().Len(); i++ {
			fmt.Fprintf(&b, " <%s>", s.Events().At(i).Name())
		}
		b.WriteString("\n")
		kids := children[s.SpanID()]
		sortByStart(kids)
		for _, k := range kids {
			draw(k, depth+1)
		}
	}
	sortByStart(roots)
	for _, r := range roots {
		draw(r, 0)
	}
	return b.String()
}

func sortByStart(spans []ptrace.Span) {
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].StartTimestamp() < spans[j-1].StartTimestamp(); j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
}

// traces groups the spans of every line by trace id, each trace's spans
// in the order they were written.
func traces(all []ptrace.Traces) (map[pcommon.TraceID][]ptrace.Span, []pcommon.TraceID) {
	byTrace := map[pcommon.TraceID][]ptrace.Span{}
	var order []pcommon.TraceID
	for _, td := range all {
		eachSpan(td, func(_ pcommon.Resource, s ptrace.Span) {
			if _, ok := byTrace[s.TraceID()]; !ok {
				order = append(order, s.TraceID())
			}
			byTrace[s.TraceID()] = append(byTrace[s.TraceID()], s)
		})
	}
	return byTrace, order
}

func eachSpan(td ptrace.Traces, fn func(pcommon.Resource, ptrace.Span)) {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				fn(rs.Resource(), ss.At(k))
			}
		}
	}
}

// CheckLines checks every line of data as the tests do (the Collector's
// decoder, then the letter of OTLP/JSON) and returns the number of spans:
// the golden scripts run it on what the tool wrote (otlpcheck).
func CheckLines(data []byte) (spans int, err error) {
	var u ptrace.JSONUnmarshaler
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if err := strictOTLP(line); err != nil {
			return spans, fmt.Errorf("line %d: %v", i+1, err)
		}
		td, err := u.UnmarshalTraces(line)
		if err != nil {
			return spans, fmt.Errorf("line %d: the Collector's decoder: %v", i+1, err)
		}
		spans += td.SpanCount()
	}
	return spans, nil
}
