package grpcconv

import (
	"errors"
	"fmt"
	"math"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// errIntegralRange is the text of Rust's TryFromIntError, which Codex embeds in its messages.
var errIntegralRange = errors.New("out of range integral type conversion attempted")

// ExecuteRequestFromProto converts the request part of an Execute a client sent, with the host's checks:
// the exec call ID, every tool definition, and the output token limit (a usize in Codex).
// Session and execution IDs are the caller's to check: the host looks the session up first.
func ExecuteRequestFromProto(r *pb.ExecuteRequest) (codemode.ExecuteRequest, error) {
	if err := CheckIdentifier(r.GetToolCallId(), "tool call ID"); err != nil {
		return codemode.ExecuteRequest{}, err
	}
	tools := make([]codemode.ToolDefinition, 0, len(r.GetEnabledTools()))
	for _, d := range r.GetEnabledTools() {
		def, err := ToolDefinitionFromProto(d)
		if err != nil {
			return codemode.ExecuteRequest{}, err
		}
		tools = append(tools, def)
	}
	out := codemode.ExecuteRequest{ToolCallID: r.GetToolCallId(), EnabledTools: tools, Source: r.GetSource()}
	if r.YieldTimeMs != nil {
		v := *r.YieldTimeMs
		out.YieldTimeMs = &v
	}
	if r.MaxOutputTokens != nil {
		if *r.MaxOutputTokens > math.MaxInt {
			return codemode.ExecuteRequest{}, errors.New("maximum output tokens exceeds this platform")
		}
		v := int(*r.MaxOutputTokens)
		out.MaxOutputTokens = &v
	}
	return out, nil
}

// ExecuteRequestToProto builds the Execute a client sends for req.
func ExecuteRequestToProto(sessionID, executionID string, req codemode.ExecuteRequest) (*pb.ExecuteRequest, error) {
	out := &pb.ExecuteRequest{
		SessionId:    sessionID,
		ExecutionId:  executionID,
		ToolCallId:   req.ToolCallID,
		Source:       req.Source,
		EnabledTools: make([]*pb.ToolDefinition, 0, len(req.EnabledTools)),
	}
	for _, d := range req.EnabledTools {
		def, err := ToolDefinitionToProto(d)
		if err != nil {
			return nil, err
		}
		out.EnabledTools = append(out.EnabledTools, def)
	}
	if req.YieldTimeMs != nil {
		v := *req.YieldTimeMs
		out.YieldTimeMs = &v
	}
	if req.MaxOutputTokens != nil {
		if *req.MaxOutputTokens < 0 {
			return nil, fmt.Errorf("invalid code-mode output token limit: %w", errIntegralRange)
		}
		v := uint64(*req.MaxOutputTokens)
		out.MaxOutputTokens = &v
	}
	return out, nil
}
