package main

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/google/uuid"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// uuidFields are the identifiers that are v4 UUIDs on Codex's wire (docs/protocol/grpc.md#identifiers-and-validation): host-generated
// session, invocation and notification IDs, and the execution and wait IDs Codex generates.
var uuidFields = map[protoreflect.Name]bool{
	"session_id":      true,
	"invocation_id":   true,
	"notification_id": true,
	"execution_id":    true,
	"wait_id":         true,
}

// stringOverrides are realistic values where a "<field>-value" string would misrepresent the
// protocol.
var stringOverrides = map[protoreflect.Name]string{
	// Cell IDs are host-assigned decimal strings per session.
	"cell_id": "1",
	// A notification's call_id is the ExecuteRequest.tool_call_id of its cell.
	"call_id": "tool_call_id-value",
	// A W3C trace context header value (version-traceid-parentid-flags).
	"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
}

// jsonBytesFields hold compact serde_json bytes on Codex's wire; their fixtures are valid compact
// JSON. Other bytes fields get compact JSON too, naming the field.
var jsonBytesFields = map[protoreflect.Name]string{
	"input_json":         `{"path":"README.md"}`,
	"output_json":        `{"content":"hello","lines":2}`,
	"input_schema_json":  `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
	"output_schema_json": `{"type":"object"}`,
}

// uint64Overrides are realistic values for the protocol's counters and limits.
var uint64Overrides = map[protoreflect.Name]uint64{
	"yield_time_ms":            10000,
	"max_yield_time_ms":        30000,
	"max_output_tokens":        10000,
	"sequence":                 3,
	"final_tool_call_sequence": 3,
	// 1.5 ms: host timing in nanoseconds.
	"code_mode_host_duration_ns": 1_500_000,
	// 2^53+1: not representable as a JavaScript number, so the TypeScript round trip proves that
	// uint64 survives protobuf-es (as a bigint and a JSON string).
	"max_heap_size_bytes": 1<<53 + 1,
}

// scalarValue returns the deterministic non-default value fill uses for a non-message field.
func scalarValue(fd protoreflect.FieldDescriptor) protoreflect.Value {
	name := fd.Name()
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(stringValue(name))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(bytesValue(name))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(firstNonZeroEnumNumber(fd.Enum()))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if v, ok := uint64Overrides[name]; ok {
			return protoreflect.ValueOfUint64(v)
		}
		return protoreflect.ValueOfUint64(uint64(fd.Number()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(fd.Number()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-int64(fd.Number()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(-int32(fd.Number()))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(fd.Number()) + 0.5)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(fd.Number()) + 0.5)
	}
	panic("grpcfixtures: unhandled field kind " + fd.Kind().String())
}

// stringValue is a deterministic v4-format UUID for UUID fields (the same for a field name in
// every message, as one session would have), an override, or "<field>-value".
func stringValue(name protoreflect.Name) string {
	if uuidFields[name] {
		return uuid.NewHash(sha256.New(), uuid.Nil, []byte(name), 4).String()
	}
	if v, ok := stringOverrides[name]; ok {
		return v
	}
	return string(name) + "-value"
}

// bytesValue is compact JSON: a realistic document for the known JSON fields, else
// {"field":"<name>"}.
func bytesValue(name protoreflect.Name) []byte {
	if v, ok := jsonBytesFields[name]; ok {
		return []byte(v)
	}
	doc, err := json.Marshal(map[string]string{"field": string(name)})
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return doc
}

// firstNonZeroEnumNumber returns the first declared value other than 0 (the UNSPECIFIED value
// both peers reject), or 0 if the enum has no other value.
func firstNonZeroEnumNumber(ed protoreflect.EnumDescriptor) protoreflect.EnumNumber {
	values := ed.Values()
	for i := range values.Len() {
		if n := values.Get(i).Number(); n != 0 {
			return n
		}
	}
	return 0
}
