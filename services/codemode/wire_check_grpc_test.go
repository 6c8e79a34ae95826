package main

import (
	"strings"
	"testing"
)

// The gRPC semantic checks and the cell_id kind of `wire check`.
func TestWireCheckAppliesGrpcSemanticsAndCellIDRules(t *testing.T) {
	const session = "6ba7b810-9dad-41d1-80b4-00c04fd430c8"
	cases := []struct{ in, want string }{
		// Decodes, but the client refuses it.
		{`{"kind":"grpc:ExecutionOutcome","json":{"cellId":"1","contentItems":[{"image":{"imageUrl":"data:,","detail":"IMAGE_DETAIL_UNSPECIFIED"}}],"yielded":{}}}`,
			`{"ok":false,"error":"code-mode image has invalid detail value 0"}`},
		{`{"kind":"grpc:ExecutionOutcome","json":{"cellId":"1","contentItems":[{"image":{"imageUrl":"data:,","detail":7}}],"yielded":{}}}`,
			`{"ok":false,"error":"code-mode image has invalid detail value 7"}`},
		{`{"kind":"grpc:ExecutionOutcome","json":{"cellId":"1"}}`, `{"ok":false,"error":"code-mode execution omitted its outcome"}`},
		{`{"kind":"grpc:WaitResponse","json":{}}`, `{"ok":false,"error":"code-mode wait omitted its outcome"}`},
		{`{"kind":"grpc:ContentItem","json":{}}`, `{"ok":false,"error":"code-mode execution returned an empty content item"}`},
		{`{"kind":"grpc:ExecuteEvent","json":{}}`, `{"ok":false,"error":"gRPC code-mode execution returned an unexpected event"}`},
		{`{"kind":"grpc:SessionEvent","json":{}}`, `{"ok":false,"error":"gRPC code-mode host sent an empty session event"}`},
		{`{"kind":"grpc:ToolCall","json":{"invocationId":"` + session + `","toolName":{"name":"echo"}}}`,
			`{"ok":false,"error":"code-mode tool invocation has invalid kind 0"}`},
		{`{"kind":"grpc:ToolCall","json":{"invocationId":"` + session + `","toolName":{"name":"echo"},"toolKind":"TOOL_KIND_FUNCTION","inputJson":"e30x"}}`,
			`{"ok":false,"error":"code-mode tool invocation contains invalid JSON: trailing characters at line 1 column 3"}`},
		// Decodes, but the host refuses it.
		{`{"kind":"grpc:ToolDefinition","json":{"name":"echo","toolName":{"name":"echo"}}}`, `{"ok":false,"error":"tool definition has an invalid kind"}`},
		{`{"kind":"grpc:ToolDefinition","json":{"name":"echo","kind":"TOOL_KIND_FUNCTION"}}`, `{"ok":false,"error":"tool definition is missing its tool name"}`},
		{`{"kind":"grpc:CompleteToolCallRequest","json":{"sessionId":"` + session + `","invocationId":"` + session + `"}}`,
			`{"ok":false,"error":"tool completion is missing its outcome"}`},
		{`{"kind":"grpc:CompleteToolCallRequest","json":{"sessionId":"` + session + `","invocationId":"` + session + `","succeeded":{"outputJson":"ew=="}}}`,
			`{"ok":false,"error":"invalid code-mode tool output JSON: EOF while parsing an object at line 1 column 1"}`},
		{`{"kind":"grpc:WaitRequest","json":{"sessionId":"not-a-uuid","cellId":"1","waitId":"w"}}`, `{"ok":false,"error":"code-mode session ID must be a UUID"}`},
		{`{"kind":"grpc:SubscribeToToolCallsRequest","json":{"sessionId":"` + session + `","toolNames":[` + strings.Repeat(`{"name":"a"},`, 64) + `{"name":"a"}]}}`,
			`{"ok":false,"error":"code-mode tool subscription exceeds 64 filters"}`},
		// Valid messages keep their canonical value, the additive fields included.
		{`{"kind":"grpc:ExecutionOutcome","json":{"cellId":"1","yielded":{},"codeModeHostDurationNs":"1500000"}}`,
			`{"ok":true,"value":{"cellId":"1","yielded":{},"codeModeHostDurationNs":"1500000"}}`},
		{`{"kind":"grpc:ToolCall","json":{"invocationId":"` + session + `","toolName":{"name":"echo"},"toolKind":"TOOL_KIND_FUNCTION","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`,
			`{"ok":true,"value":{"invocationId":"` + session + `","toolName":{"name":"echo"},"toolKind":"TOOL_KIND_FUNCTION","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`},
		// Cell IDs across generations (docs/protocol/grpc.md#cell-ids-across-host-restarts): the gRPC client's rule by default.
		{`{"kind":"cell_id","generation":1,"public":"42"}`, `{"ok":true,"value":{"remote":"42"}}`},
		{`{"kind":"cell_id","generation":1,"public":"g2:42"}`, `{"ok":true,"value":{"remote":"g2:42"}}`},
		{`{"kind":"cell_id","generation":1,"public":"graphics:1"}`, `{"ok":true,"value":{"remote":"graphics:1"}}`},
		{`{"kind":"cell_id","generation":2,"public":"g2:42"}`, `{"ok":true,"value":{"remote":"42"}}`},
		{`{"kind":"cell_id","generation":2,"public":"42"}`, `{"ok":false,"error":"cell belongs to a stale code-mode host generation"}`},
		{`{"kind":"cell_id","generation":2,"public":"g3:42","client":"grpc"}`, `{"ok":false,"error":"cell belongs to a stale code-mode host generation"}`},
		// The V1 client's stricter rule names the cell and refuses prefixed IDs in generation 1.
		{`{"kind":"cell_id","generation":1,"public":"g2:42","client":"v1"}`, `{"ok":false,"error":"cell g2:42 belongs to a stale code-mode host generation"}`},
		{`{"kind":"cell_id","generation":1,"public":"42","client":"v1"}`, `{"ok":true,"value":{"remote":"42"}}`},
		{`{"kind":"cell_id","generation":3,"public":"g2:1","client":"v1"}`, `{"ok":false,"error":"cell g2:1 belongs to a stale code-mode host generation"}`},
		{`{"kind":"cell_id","generation":3,"public":"g3:1","client":"v1"}`, `{"ok":true,"value":{"remote":"1"}}`},
		{`{"kind":"cell_id","public":"1"}`, `{"ok":false,"error":"missing \"generation\""}`},
		{`{"kind":"cell_id","generation":"2","public":"1"}`, `{"ok":false,"error":"\"generation\" of a cell_id line must be a non-negative integer, not \"2\""}`},
		{`{"kind":"cell_id","generation":1,"public":"1","client":"v2"}`, `{"ok":false,"error":"unknown client \"v2\" (known: \"grpc\", \"v1\")"}`},
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.in + "\n")
	}
	got := runWireCheck(t, in.String())
	if len(got) != len(cases) {
		t.Fatalf("%d output lines for %d inputs:\n%s", len(got), len(cases), strings.Join(got, "\n"))
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("line %d: %s\n got %s\nwant %s", i+1, c.in, got[i], c.want)
		}
	}
}
