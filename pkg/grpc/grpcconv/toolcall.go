package grpcconv

import (
	"encoding/json"
	"errors"
	"fmt"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// NestedToolCallToProto fills the call-specific fields of the ToolCall the host dispatches for call:
// cell, runtime call ID, name, kind and input. The caller adds the session, execution and
// invocation IDs, the sequence and the trace parent.
func NestedToolCallToProto(call codemode.NestedToolCall) *pb.ToolCall {
	out := &pb.ToolCall{
		CellId:            string(call.CellID),
		RuntimeToolCallId: call.RuntimeToolCallID,
		ToolName:          ToolNameToProto(call.ToolName),
		ToolKind:          ToolKindToProto(call.ToolKind),
	}
	if call.Input != nil {
		out.InputJson = call.Input
	}
	return out
}

// NestedToolCallFromProto converts a ToolCall the host dispatched, refusing a missing tool name, an
// unspecified or unknown kind and invalid input JSON.
func NestedToolCallFromProto(c *pb.ToolCall) (codemode.NestedToolCall, error) {
	if c.GetToolName() == nil {
		return codemode.NestedToolCall{}, errors.New("code-mode tool invocation omitted its tool name")
	}
	kind, ok := toolKind(c.GetToolKind())
	if !ok {
		return codemode.NestedToolCall{}, fmt.Errorf("code-mode tool invocation has invalid kind %d", int32(c.GetToolKind()))
	}
	call := codemode.NestedToolCall{
		CellID:            codemode.CellID(c.GetCellId()),
		RuntimeToolCallID: c.GetRuntimeToolCallId(),
		ToolName:          ToolNameFromProto(c.GetToolName()),
		ToolKind:          kind,
	}
	if c.InputJson != nil {
		if err := checkJSON(c.InputJson); err != nil {
			return codemode.NestedToolCall{}, fmt.Errorf("code-mode tool invocation contains invalid JSON: %w", err)
		}
		call.Input = json.RawMessage(c.InputJson)
	}
	return call, nil
}
