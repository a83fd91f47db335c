package ev2otlp

import (
	"math"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// The same batch in OTLP's protobuf encoding (an ExportTraceServiceRequest,
// which has the wire form of TracesData), for --endpoint: the encoding
// every OTLP/HTTP receiver takes. Written by hand with protowire from the
// field numbers of opentelemetry-proto's trace.proto and common.proto, so
// that the tool needs no generated code (the Collector's pdata is a test
// dependency only: the tests decode what this writes with it).

// appendProto appends b as an ExportTraceServiceRequest.
func appendProto(dst []byte, b *batch) []byte {
	for i := range b.groups {
		g := &b.groups[i]
		dst = appendMessage(dst, 1, func(dst []byte) []byte { // resource_spans
			dst = appendMessage(dst, 1, func(dst []byte) []byte { // resource
				var ra [3]attr
				return appendProtoAttrs(dst, 1, g.res.attrs(&ra))
			})
			return appendMessage(dst, 2, func(dst []byte) []byte { // scope_spans
				dst = appendMessage(dst, 1, func(dst []byte) []byte { // scope
					return appendProtoString(dst, 1, scopeName)
				})
				for _, s := range g.spans {
					dst = appendMessage(dst, 2, func(dst []byte) []byte { return appendProtoSpan(dst, s) })
				}
				return dst
			})
		})
	}
	return dst
}

func appendProtoSpan(dst []byte, s *span) []byte {
	dst = protowire.AppendTag(dst, 1, protowire.BytesType) // trace_id
	dst = protowire.AppendBytes(dst, s.trace[:])
	dst = protowire.AppendTag(dst, 2, protowire.BytesType) // span_id
	dst = protowire.AppendBytes(dst, s.id[:])
	if s.hasParent {
		dst = protowire.AppendTag(dst, 4, protowire.BytesType) // parent_span_id
		dst = protowire.AppendBytes(dst, s.parent[:])
	}
	dst = appendProtoString(dst, 5, s.name)
	dst = protowire.AppendTag(dst, 6, protowire.VarintType) // kind
	dst = protowire.AppendVarint(dst, uint64(s.kind))
	dst = protowire.AppendTag(dst, 7, protowire.Fixed64Type) // start_time_unix_nano
	dst = protowire.AppendFixed64(dst, uint64(max(s.start, 0)))
	dst = protowire.AppendTag(dst, 8, protowire.Fixed64Type) // end_time_unix_nano
	dst = protowire.AppendFixed64(dst, uint64(max(s.end, 0)))
	dst = appendProtoAttrs(dst, 9, s.attrs)
	for _, e := range s.events {
		dst = appendMessage(dst, 11, func(dst []byte) []byte { // events
			dst = protowire.AppendTag(dst, 1, protowire.Fixed64Type)
			dst = protowire.AppendFixed64(dst, uint64(max(e.time, 0)))
			dst = appendProtoString(dst, 2, e.name)
			return appendProtoAttrs(dst, 3, e.attrs)
		})
	}
	if s.status != statusUnset {
		dst = appendMessage(dst, 15, func(dst []byte) []byte { // status
			dst = appendProtoString(dst, 2, s.message)
			dst = protowire.AppendTag(dst, 3, protowire.VarintType)
			return protowire.AppendVarint(dst, uint64(s.status))
		})
	}
	return dst
}

// appendProtoAttrs appends each attribute as a KeyValue in field num.
func appendProtoAttrs(dst []byte, num protowire.Number, as attrs) []byte {
	for i := range as {
		a := &as[i]
		dst = appendMessage(dst, num, func(dst []byte) []byte {
			dst = appendProtoString(dst, 1, a.key)
			return appendMessage(dst, 2, func(dst []byte) []byte { // value: AnyValue
				if a.kind != vStrings {
					return appendProtoValue(dst, a.kind, a.s, a.i, a.f)
				}
				return appendMessage(dst, 5, func(dst []byte) []byte { // array_value
					for _, s := range a.ss {
						dst = appendMessage(dst, 1, func(dst []byte) []byte { return appendProtoValue(dst, vString, s, 0, 0) })
					}
					return dst
				})
			})
		})
	}
	return dst
}

// appendProtoValue appends the field of an AnyValue that holds a scalar.
func appendProtoValue(dst []byte, kind valueKind, s string, i int64, f float64) []byte {
	switch kind {
	case vString:
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		return protowire.AppendString(dst, validUTF8(s))
	case vBool:
		dst = protowire.AppendTag(dst, 2, protowire.VarintType)
		return protowire.AppendVarint(dst, uint64(i))
	case vInt:
		dst = protowire.AppendTag(dst, 3, protowire.VarintType)
		return protowire.AppendVarint(dst, uint64(i))
	case vDouble:
		dst = protowire.AppendTag(dst, 4, protowire.Fixed64Type)
		return protowire.AppendFixed64(dst, math.Float64bits(f))
	}
	return dst
}

// appendProtoString appends a string field, unless it is empty (proto3
// leaves empty strings out).
func appendProtoString(dst []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return dst
	}
	dst = protowire.AppendTag(dst, num, protowire.BytesType)
	return protowire.AppendString(dst, validUTF8(s))
}

// appendMessage appends field num holding the message body writes: the
// body goes after room for its length, and is moved once its length is
// known only when that takes more than the one byte left.
func appendMessage(dst []byte, num protowire.Number, body func([]byte) []byte) []byte {
	dst = protowire.AppendTag(dst, num, protowire.BytesType)
	at := len(dst)
	dst = append(dst, 0)
	dst = body(dst)
	n := len(dst) - at - 1
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		dst = append(dst, make([]byte, size-1)...)
		copy(dst[at+size:], dst[at+1:at+1+n])
	}
	protowire.AppendVarint(dst[at:at], uint64(n))
	return dst
}

// validUTF8 is s with invalid bytes as U+FFFD: protobuf strings are UTF-8,
// as the JSON encoder's are.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
