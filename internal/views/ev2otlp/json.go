package ev2otlp

import (
	"strconv"

	"github.com/evtools/evtools/internal/core/jsontext"
)

// OTLP/JSON, to the letter of the specification: trace and span ids in
// lowercase hex (not base64, as protobuf's own JSON mapping would have
// them), enums as integers, 64-bit integers (times, intValue) as decimal
// strings, lowerCamelCase keys. The Collector's decoder accepts more than
// this; tests check that nothing of the more is written.

// scopeName names ev2otlp as the instrumentation scope of every span.
const scopeName = "github.com/evtools/evtools/ev2otlp"

// appendJSON appends b as one TracesData object (no newline).
func appendJSON(dst []byte, b *batch) []byte {
	dst = append(dst, `{"resourceSpans":[`...)
	for i := range b.groups {
		g := &b.groups[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"resource":{"attributes":[`...)
		var ra [3]attr
		dst = appendAttrs(dst, g.res.attrs(&ra))
		dst = append(dst, `]},"scopeSpans":[{"scope":{"name":"`+scopeName+`"},"spans":[`...)
		for j, s := range g.spans {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendSpan(dst, s)
		}
		dst = append(dst, `]}]}`...)
	}
	return append(dst, `]}`...)
}

// attrs are the resource's attributes (the strings not empty), in room,
// the caller's: no allocation for every resource of every batch.
func (r *resource) attrs(room *[3]attr) attrs {
	n := 0
	for _, a := range [...]attr{
		{key: "service.name", kind: vString, s: r.service},
		{key: "service.version", kind: vString, s: r.version},
		{key: "evtools.workspace", kind: vString, s: r.workspace},
	} {
		if a.s != "" {
			room[n] = a
			n++
		}
	}
	return room[:n]
}

func appendSpan(dst []byte, s *span) []byte {
	dst = append(dst, `{"traceId":"`...)
	dst = appendHex(dst, s.trace[:])
	dst = append(dst, `","spanId":"`...)
	dst = appendHex(dst, s.id[:])
	if s.hasParent {
		dst = append(dst, `","parentSpanId":"`...)
		dst = appendHex(dst, s.parent[:])
	}
	dst = append(dst, `","name":`...)
	dst = jsontext.AppendString(dst, s.name)
	dst = append(dst, `,"kind":`...)
	dst = strconv.AppendUint(dst, uint64(s.kind), 10)
	dst = appendNanos(dst, `,"startTimeUnixNano":"`, s.start)
	dst = appendNanos(dst, `","endTimeUnixNano":"`, s.end)
	dst = append(dst, '"')
	if len(s.attrs) > 0 {
		dst = append(dst, `,"attributes":[`...)
		dst = appendAttrs(dst, s.attrs)
		dst = append(dst, ']')
	}
	if len(s.events) > 0 {
		dst = append(dst, `,"events":[`...)
		for i, e := range s.events {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNanos(dst, `{"timeUnixNano":"`, e.time)
			dst = append(dst, `","name":`...)
			dst = jsontext.AppendString(dst, e.name)
			if len(e.attrs) > 0 {
				dst = append(dst, `,"attributes":[`...)
				dst = appendAttrs(dst, e.attrs)
				dst = append(dst, ']')
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if s.status != statusUnset {
		dst = append(dst, `,"status":{`...)
		if s.message != "" {
			dst = append(dst, `"message":`...)
			dst = jsontext.AppendString(dst, s.message)
			dst = append(dst, ',')
		}
		dst = append(dst, `"code":`...)
		dst = strconv.AppendUint(dst, uint64(s.status), 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendNanos appends key and a time as OTLP/JSON writes a fixed64: a
// decimal string (the caller closes the quote).
func appendNanos(dst []byte, key string, ns int64) []byte {
	dst = append(dst, key...)
	return strconv.AppendUint(dst, uint64(max(ns, 0)), 10)
}

func appendAttrs(dst []byte, as attrs) []byte {
	for i := range as {
		a := &as[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		// The keys are this package's constants, plain ASCII: written as
		// they are, not quoted again for every span.
		dst = append(dst, `{"key":"`...)
		dst = append(dst, a.key...)
		dst = append(dst, `","value":`...)
		dst = appendValue(dst, a.kind, a.s, a.i, a.f)
		if a.kind == vStrings {
			dst = append(dst, `{"arrayValue":{"values":[`...)
			for j, s := range a.ss {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = appendValue(dst, vString, s, 0, 0)
			}
			dst = append(dst, `]}}`...)
		}
		dst = append(dst, '}')
	}
	return dst
}

// appendValue appends an AnyValue of a scalar kind (nothing for vStrings).
func appendValue(dst []byte, kind valueKind, s string, i int64, f float64) []byte {
	switch kind {
	case vString:
		dst = append(dst, `{"stringValue":`...)
		dst = jsontext.AppendString(dst, s)
	case vInt:
		dst = append(dst, `{"intValue":"`...)
		dst = strconv.AppendInt(dst, i, 10)
		dst = append(dst, '"')
	case vDouble:
		dst = append(dst, `{"doubleValue":`...)
		dst = strconv.AppendFloat(dst, f, 'g', -1, 64)
	case vBool:
		dst = append(dst, `{"boolValue":`...)
		dst = strconv.AppendBool(dst, i != 0)
	default:
		return dst
	}
	return append(dst, '}')
}
