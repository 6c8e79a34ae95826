package tracing_test

import (
	"encoding/json"
	"math"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/codemodehq/codemode/pkg/telemetry/tracing"
)

// TestMarshalOTLPJSONFollowsOTLPsEncoding: lowerCamelCase names in declaration order (flags,
// field 16, is declared after trace_state), IDs in hex
// (not proto3 JSON's base64), enums as numbers, 64-bit integers as strings, zero values left out,
// other bytes in base64, and the strings JSON has for NaN.
func TestMarshalOTLPJSONFollowsOTLPsEncoding(t *testing.T) {
	data := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "codemode-host \"q\""}}},
		}},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: "scope"},
			Spans: []*tracepb.Span{{
				TraceId:           []byte{0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c},
				SpanId:            []byte{0xb7, 0xad, 0x6b, 0x71, 0x69, 0x20, 0x33, 0x31},
				Flags:             257,
				Name:              "code_mode.cell",
				Kind:              tracepb.Span_SPAN_KIND_SERVER,
				StartTimeUnixNano: 1796527749100413794,
				Attributes: []*commonpb.KeyValue{
					{Key: "n", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: -7}}},
					{Key: "b", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte("hi")}}},
					{Key: "f", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: math.NaN()}}},
					{Key: "ok", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}},
				},
				Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR},
			}},
		}},
	}}}
	got := string(tracing.MarshalOTLPJSON(data))
	want := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"codemode-host \"q\""}}]},` +
		`"scopeSpans":[{"scope":{"name":"scope"},"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","flags":257,` +
		`"name":"code_mode.cell","kind":2,"startTimeUnixNano":"1796527749100413794",` +
		`"attributes":[{"key":"n","value":{"intValue":"-7"}},{"key":"b","value":{"bytesValue":"aGk="}},{"key":"f","value":{"doubleValue":"NaN"}},{"key":"ok","value":{"boolValue":true}}],` +
		`"status":{"code":2}}]}]}]}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Fatal("not valid JSON")
	}
}
