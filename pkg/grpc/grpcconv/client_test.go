package grpcconv_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// The client's conversions (Codex's code-mode/src/grpc_session/conversion_tests.rs).

func TestExecuteRequestPreservesToolSchemasNamespacesAndLimits(t *testing.T) {
	ns := "work"
	req := codemode.ExecuteRequest{
		ToolCallID: "outer",
		EnabledTools: []codemode.ToolDefinition{{
			Name: "search", ToolName: codemode.ToolName{Name: "search", Namespace: &ns}, Description: "search the workspace",
			Kind: codemode.ToolKindFreeform, InputSchema: json.RawMessage(`{ "type": "object" }`), OutputSchema: json.RawMessage(`{"type":"string"}`),
		}},
		Source:          "text('hello')",
		YieldTimeMs:     ptr(uint64(25)),
		MaxOutputTokens: ptr(128),
	}
	got, err := grpcconv.ExecuteRequestToProto("session", "execution", req)
	if err != nil {
		t.Fatal(err)
	}
	wantProto(t, "execute request", got, &pb.ExecuteRequest{
		SessionId: "session", ExecutionId: "execution", ToolCallId: "outer", Source: "text('hello')",
		EnabledTools: []*pb.ToolDefinition{{
			Name: "search", ToolName: &pb.ToolName{Name: "search", Namespace: ptr("work")}, Description: "search the workspace",
			Kind: pb.ToolKind_TOOL_KIND_FREEFORM, InputSchemaJson: []byte(`{"type":"object"}`), OutputSchemaJson: []byte(`{"type":"string"}`),
		}},
		YieldTimeMs: ptr(uint64(25)), MaxOutputTokens: ptr(uint64(128)),
	})
	back, err := grpcconv.ExecuteRequestFromProto(got)
	if err != nil {
		t.Fatal(err)
	}
	req.EnabledTools[0].InputSchema = json.RawMessage(`{"type":"object"}`)
	wantEqual(t, "round trip through the host's conversion", back, req)

	negative := -1
	_, err = grpcconv.ExecuteRequestToProto("s", "e", codemode.ExecuteRequest{ToolCallID: "c", MaxOutputTokens: &negative})
	wantError(t, "negative output token limit", err, "invalid code-mode output token limit: out of range integral type conversion attempted")
}

func TestToolCallDecodesStructuredInputAndNamespace(t *testing.T) {
	call, err := grpcconv.NestedToolCallFromProto(&pb.ToolCall{
		SessionId: "session", ExecutionId: "execution", CellId: "cell", InvocationId: "invocation", RuntimeToolCallId: "runtime-call",
		ToolName: &pb.ToolName{Name: "search", Namespace: ptr("work")}, ToolKind: pb.ToolKind_TOOL_KIND_FUNCTION,
		InputJson: []byte(`{"query":"hello"}`), Sequence: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "tool call", call, codemode.NestedToolCall{
		CellID: "cell", RuntimeToolCallID: "runtime-call", ToolName: codemode.ToolName{Name: "search", Namespace: ptr("work")},
		ToolKind: codemode.ToolKindFunction, Input: json.RawMessage(`{"query":"hello"}`),
	})
	noInput, err := grpcconv.NestedToolCallFromProto(&pb.ToolCall{ToolName: &pb.ToolName{Name: "echo"}, ToolKind: pb.ToolKind_TOOL_KIND_FREEFORM})
	if err != nil || noInput.Input != nil || noInput.ToolName.Namespace != nil {
		t.Fatalf("call without input or namespace: %+v, %v", noInput, err)
	}
}

func TestRuntimeResponseDecodesMixedContentItems(t *testing.T) {
	r, err := grpcconv.RuntimeResponseFromProto(&pb.ExecutionOutcome{
		CellId: "cell",
		ContentItems: []*pb.ContentItem{
			{Item: &pb.ContentItem_Text{Text: &pb.TextContent{Text: "hello"}}},
			{Item: &pb.ContentItem_Image{Image: &pb.ImageContent{ImageUrl: "data:image/png;base64,AA==", Detail: ptr(pb.ImageDetail_IMAGE_DETAIL_ORIGINAL)}}},
			{Item: &pb.ContentItem_Image{Image: &pb.ImageContent{ImageUrl: "data:image/png;base64,AB=="}}},
			{Item: &pb.ContentItem_Audio{Audio: &pb.AudioContent{AudioUrl: "data:audio/wav;base64,AA=="}}},
		},
		Outcome: &pb.ExecutionOutcome_Completed{Completed: &pb.ExecutionCompleted{ErrorText: ptr("warning")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "response", r, codemode.RuntimeResponse{
		Kind: codemode.Result, CellID: "cell", ErrorText: ptr("warning"),
		ContentItems: []codemode.ContentItem{
			codemode.InputText{Text: "hello"},
			codemode.InputImage{ImageURL: "data:image/png;base64,AA==", Detail: codemode.ImageDetailOriginal},
			codemode.InputImage{ImageURL: "data:image/png;base64,AB=="},
			codemode.InputAudio{AudioURL: "data:audio/wav;base64,AA=="},
		},
	})
}

func TestWaitOutcomePreservesMissingCellState(t *testing.T) {
	o, err := grpcconv.WaitOutcomeFromProto(&pb.WaitResponse{State: &pb.WaitResponse_MissingCell{MissingCell: &pb.ExecutionOutcome{
		CellId: "missing", Outcome: &pb.ExecutionOutcome_Terminated{Terminated: &pb.ExecutionTerminated{}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "outcome", o, codemode.WaitOutcome{Missing: true, Response: codemode.RuntimeResponse{
		Kind: codemode.Terminated, CellID: "missing", ContentItems: []codemode.ContentItem{},
	}})
	live, err := grpcconv.WaitOutcomeFromProto(&pb.WaitResponse{State: &pb.WaitResponse_LiveCell{LiveCell: &pb.ExecutionOutcome{
		CellId: "1", Outcome: &pb.ExecutionOutcome_Yielded{Yielded: &pb.ExecutionYielded{}},
	}}})
	if err != nil || live.Missing || live.Response.Kind != codemode.Yielded {
		t.Fatalf("live cell: %+v, %v", live, err)
	}
}

func TestOversizedResponseCellIdsAreRejected(t *testing.T) {
	yielded := &pb.ExecutionOutcome_Yielded{Yielded: &pb.ExecutionYielded{}}
	_, err := grpcconv.RuntimeResponseFromProto(&pb.ExecutionOutcome{CellId: strings.Repeat("x", 257), Outcome: yielded})
	wantError(t, "oversized cell ID", err, "gRPC code-mode host returned cell ID exceeding 256 bytes")
	_, err = grpcconv.RuntimeResponseFromProto(&pb.ExecutionOutcome{Outcome: yielded})
	wantError(t, "empty cell ID", err, "gRPC code-mode host returned an empty cell ID")
	if _, err := grpcconv.RuntimeResponseFromProto(&pb.ExecutionOutcome{CellId: strings.Repeat("x", 256), Outcome: yielded}); err != nil {
		t.Fatalf("a 256-byte cell ID is allowed: %v", err)
	}
}

func TestInvalidOutputEnumsAndMissingOneofsAreRejected(t *testing.T) {
	yielded := &pb.ExecutionOutcome_Yielded{Yielded: &pb.ExecutionYielded{}}
	image := func(d pb.ImageDetail) *pb.ExecutionOutcome {
		return &pb.ExecutionOutcome{CellId: "cell", Outcome: yielded, ContentItems: []*pb.ContentItem{
			{Item: &pb.ContentItem_Image{Image: &pb.ImageContent{ImageUrl: "image", Detail: &d}}},
		}}
	}
	_, err := grpcconv.RuntimeResponseFromProto(image(pb.ImageDetail_IMAGE_DETAIL_UNSPECIFIED))
	wantError(t, "unspecified image detail", err, "code-mode image has invalid detail value 0")
	_, err = grpcconv.RuntimeResponseFromProto(image(pb.ImageDetail(9)))
	wantError(t, "unknown image detail", err, "code-mode image has invalid detail value 9")
	_, err = grpcconv.WaitOutcomeFromProto(&pb.WaitResponse{})
	wantError(t, "wait response without a state", err, "code-mode wait omitted its outcome")
	_, err = grpcconv.RuntimeResponseFromProto(&pb.ExecutionOutcome{CellId: "cell"})
	wantError(t, "outcome without its oneof", err, "code-mode execution omitted its outcome")
	_, err = grpcconv.RuntimeResponseFromProto(&pb.ExecutionOutcome{CellId: "cell", Outcome: yielded, ContentItems: []*pb.ContentItem{{}}})
	wantError(t, "empty content item", err, "code-mode execution returned an empty content item")
	_, err = grpcconv.NestedToolCallFromProto(&pb.ToolCall{ToolName: &pb.ToolName{Name: "echo"}})
	wantError(t, "unspecified tool kind", err, "code-mode tool invocation has invalid kind 0")
	_, err = grpcconv.NestedToolCallFromProto(&pb.ToolCall{ToolName: &pb.ToolName{Name: "echo"}, ToolKind: pb.ToolKind(7)})
	wantError(t, "unknown tool kind", err, "code-mode tool invocation has invalid kind 7")
	_, err = grpcconv.NestedToolCallFromProto(&pb.ToolCall{ToolKind: pb.ToolKind_TOOL_KIND_FUNCTION})
	wantError(t, "missing tool name", err, "code-mode tool invocation omitted its tool name")
	_, err = grpcconv.NestedToolCallFromProto(&pb.ToolCall{ToolName: &pb.ToolName{Name: "echo"}, ToolKind: pb.ToolKind_TOOL_KIND_FUNCTION, InputJson: []byte(`{"a":`)})
	wantError(t, "invalid input JSON", err, "code-mode tool invocation contains invalid JSON: EOF while parsing a value at line 1 column 5")
}

// The host's duration is measured in nanoseconds and saturates; the domain response does not carry
// it, so it is checked on the wire message.
func TestHostDurationIsSetInNanoseconds(t *testing.T) {
	for _, d := range []time.Duration{0, 1_234_567, -5} {
		o, err := grpcconv.RuntimeResponseToProto(codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"}, d)
		if err != nil {
			t.Fatal(err)
		}
		want := uint64(max(d, 0))
		if o.CodeModeHostDurationNs != want {
			t.Fatalf("duration %v: code_mode_host_duration_ns = %d, want %d", d, o.CodeModeHostDurationNs, want)
		}
	}
}
