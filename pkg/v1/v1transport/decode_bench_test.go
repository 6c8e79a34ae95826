package v1transport_test

import (
	"encoding/json"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// The two frames of every awaited tool call over V1: the host's delegate request and the client's
// answer. Decoding them is on the round trip's critical path at both ends (docs/benchmarks.md).
var (
	delegateRequestFrame = wirev1.DelegateRequestMessage{Id: 7, SessionId: "0195f6a2-4c1e-7d3a-9b2f-8e1d2c3b4a59", Request: wirev1.ToolInvoke{
		Invocation: wirev1.WireNestedToolCall{CellId: "3", RuntimeToolCallId: "tool-42", ToolName: wirev1.WireToolName{Name: "echo"}, ToolKind: "function", Input: json.RawMessage(`{"i":41}`)},
	}}.AppendJSON(nil)
	delegateResponseFrame = wirev1.DelegateResponseMessage{Id: 7, Result: wirev1.DelegateResponseOk{Value: wirev1.ToolResult{Result: json.RawMessage(`{"i":41}`)}}}.AppendJSON(nil)
)

func BenchmarkDecodeDelegateRequest(b *testing.B) {
	for b.Loop() {
		if _, err := wirev1.DecodeHostToClientFor(wirev1.GenerationBoundedOutput, delegateRequestFrame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeDelegateResponse(b *testing.B) {
	for b.Loop() {
		if _, err := wirev1.DecodeClientToHostFor(wirev1.GenerationBoundedOutput, delegateResponseFrame); err != nil {
			b.Fatal(err)
		}
	}
}
