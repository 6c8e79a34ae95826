package grpcconv_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// Codex's code-mode/src/grpc_session/completion_tests.rs, and the host's side of a completion.

func TestCompletionSizeIncludesTheProtobufEnvelope(t *testing.T) {
	output := json.RawMessage(`"` + strings.Repeat("a", 100) + `"`)
	req := grpcconv.ToolResultToProto("session", "invocation", grpcconv.ToolResult{Output: output}, len(output))
	full := proto.Size(&pb.CompleteToolCallRequest{SessionId: "session", InvocationId: "invocation",
		Outcome: &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: output}}})
	wantProto(t, "oversized completion", req, &pb.CompleteToolCallRequest{SessionId: "session", InvocationId: "invocation",
		Outcome: &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{Message: "code-mode tool result of " +
			strconv.Itoa(full) + " encoded bytes exceeds the gRPC message limit of 102 bytes"}}})
}

func TestDelegateErrorsLargerThan64KibArePreserved(t *testing.T) {
	message := strings.Repeat("🦀", 64*1024)
	req := grpcconv.ToolResultToProto("session", "invocation", grpcconv.ToolResult{Failure: message, Failed: true}, grpcconv.MaxMessageBytes)
	if got := req.GetFailed().GetMessage(); got != message {
		t.Fatalf("failure message of %d bytes came back with %d bytes", len(message), len(got))
	}
}

func TestCompletionAtExactMessageLimitIsAccepted(t *testing.T) {
	result := grpcconv.ToolResult{Output: json.RawMessage(`{"ok":true}`)}
	expected := grpcconv.ToolResultToProto("session", "invocation", result, grpcconv.MaxMessageBytes)
	actual := grpcconv.ToolResultToProto("session", "invocation", result, proto.Size(expected))
	wantProto(t, "completion at the exact limit", actual, expected)
	if actual.GetSucceeded() == nil {
		t.Fatal("the completion was replaced by a failure")
	}
}

func TestCompletionResultRefusesMissingOutcomesAndInvalidJson(t *testing.T) {
	_, err := grpcconv.ToolResultFromProto(&pb.CompleteToolCallRequest{})
	wantError(t, "missing outcome", err, "tool completion is missing its outcome")
	_, err = grpcconv.ToolResultFromProto(&pb.CompleteToolCallRequest{Outcome: &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: []byte(`{"a":1,}`)}}})
	wantError(t, "invalid output", err, "invalid code-mode tool output JSON: trailing comma at line 1 column 8")
	_, err = grpcconv.ToolResultFromProto(&pb.CompleteToolCallRequest{Outcome: &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{}}})
	wantError(t, "empty output", err, "invalid code-mode tool output JSON: EOF while parsing a value at line 1 column 0")
	r, err := grpcconv.ToolResultFromProto(&pb.CompleteToolCallRequest{Outcome: &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{}}})
	if err != nil || !r.Failed || r.Failure != "" {
		t.Fatalf("a failure with an empty message: %+v, %v", r, err)
	}
}
