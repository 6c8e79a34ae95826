package tracing

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MarshalOTLPJSON encodes an OTLP message in OTLP's JSON encoding (the OTLP specification, "JSON
// Protobuf Encoding"): the proto3 JSON mapping with lowerCamelCase field names, enums as integers
// and 64-bit integers as strings, except that trace and span IDs are hex strings, not base64.
// protojson cannot make that exception, so this walks the message itself. Fields are written in
// declaration order; fields at their zero value are left out, as the mapping allows.
func MarshalOTLPJSON(m proto.Message) []byte {
	return appendMessage(nil, m.ProtoReflect())
}

func appendMessage(b []byte, m protoreflect.Message) []byte {
	b = append(b, '{')
	fields := m.Descriptor().Fields()
	first := true
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, fd.JSONName())
		b = append(b, ':')
		b = appendField(b, fd, m.Get(fd))
	}
	return append(b, '}')
}

func appendField(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch {
	case fd.IsList():
		list := v.List()
		b = append(b, '[')
		for i := range list.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, fd, list.Get(i))
		}
		return append(b, ']')
	case fd.IsMap():
		b = append(b, '{')
		first := true
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, k.String())
			b = append(b, ':')
			b = appendValue(b, fd.MapValue(), mv)
			return true
		})
		return append(b, '}')
	}
	return appendValue(b, fd, v)
}

func appendValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		b = strconv.AppendInt(b, v.Int(), 10)
		return append(b, '"')
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		b = strconv.AppendUint(b, v.Uint(), 10)
		return append(b, '"')
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return appendFloat(b, v.Float())
	case protoreflect.StringKind:
		return appendString(b, v.String())
	case protoreflect.BytesKind:
		if isID(fd) {
			return appendString(b, hex.EncodeToString(v.Bytes()))
		}
		return appendString(b, base64.StdEncoding.EncodeToString(v.Bytes()))
	case protoreflect.EnumKind:
		return strconv.AppendInt(b, int64(v.Enum()), 10)
	default: // messages and groups
		return appendMessage(b, v.Message())
	}
}

// isID reports whether a bytes field is a trace or span ID, which OTLP's JSON encoding writes in
// hex.
func isID(fd protoreflect.FieldDescriptor) bool {
	switch fd.Name() {
	case "trace_id", "span_id", "parent_span_id":
		return true
	}
	return false
}

// appendFloat writes a number, or the proto3 JSON strings for the values JSON has no number for.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendString writes s as a JSON string (invalid UTF-8 becomes U+FFFD). Names and IDs, most of
// what a batch holds, are plain ASCII and are copied as they are.
func appendString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			enc, _ := json.Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
