package grpcconv

import (
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
)

// ToolResult is the outcome of one tool invocation as a client completes it: Output when the tool
// succeeded, Failure (a message, never truncated) when it failed.
type ToolResult struct {
	Output  json.RawMessage
	Failure string
	// Failed tells a failure with an empty message from a success.
	Failed bool
}

// ToolResultToProto builds the CompleteToolCall for a result. It measures the encoded request,
// envelope included, since the limit is on the whole message (docs/protocol/grpc.md#tool-calls),
// and replaces a request larger than limit (normally
// MaxMessageBytes) by a failure that says so, which always fits.
func ToolResultToProto(sessionID, invocationID string, result ToolResult, limit int) *pb.CompleteToolCallRequest {
	req := &pb.CompleteToolCallRequest{SessionId: sessionID, InvocationId: invocationID}
	if result.Failed {
		req.Outcome = &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{Message: result.Failure}}
	} else {
		req.Outcome = &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: result.Output}}
	}
	if size := proto.Size(req); size > limit {
		req.Outcome = &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{Message: fmt.Sprintf(
			"code-mode tool result of %d encoded bytes exceeds the gRPC message limit of %d bytes", size, limit)}}
	}
	return req
}

// ToolResultFromProto converts the outcome of a CompleteToolCall a client sent, with the host's
// checks: an outcome is required and succeeded output must be JSON.
func ToolResultFromProto(req *pb.CompleteToolCallRequest) (ToolResult, error) {
	switch v := req.GetOutcome().(type) {
	case *pb.CompleteToolCallRequest_Succeeded:
		out := v.Succeeded.GetOutputJson()
		if err := checkJSON(out); err != nil {
			return ToolResult{}, fmt.Errorf("invalid code-mode tool output JSON: %w", err)
		}
		return ToolResult{Output: json.RawMessage(out)}, nil
	case *pb.CompleteToolCallRequest_Failed:
		return ToolResult{Failure: v.Failed.GetMessage(), Failed: true}, nil
	default:
		return ToolResult{}, errors.New("tool completion is missing its outcome")
	}
}
