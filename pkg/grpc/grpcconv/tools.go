package grpcconv

import (
	"encoding/json"
	"errors"
	"fmt"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// ToolNameFromProto converts a wire tool name; the distinction between an unset and an empty namespace
// is kept.
func ToolNameFromProto(n *pb.ToolName) codemode.ToolName {
	name := codemode.ToolName{Name: n.GetName()}
	if n != nil && n.Namespace != nil {
		ns := *n.Namespace
		name.Namespace = &ns
	}
	return name
}

// ToolNameToProto is ToolName's inverse.
func ToolNameToProto(n codemode.ToolName) *pb.ToolName {
	out := &pb.ToolName{Name: n.Name}
	if n.Namespace != nil {
		ns := *n.Namespace
		out.Namespace = &ns
	}
	return out
}

// CheckToolName is the host's rule for a tool name a client sent (a definition's or a
// subscription filter's): a non-empty name of at most 256 bytes, a namespace of at most 256.
func CheckToolName(n *pb.ToolName) error {
	if err := CheckIdentifier(n.GetName(), "tool name"); err != nil {
		return err
	}
	if n.Namespace != nil {
		return CheckBounded(*n.Namespace, MaxIdentifierBytes, "tool namespace")
	}
	return nil
}

// ToolKindToProto converts a domain tool kind.
func ToolKindToProto(k codemode.ToolKind) pb.ToolKind {
	switch k {
	case codemode.ToolKindFunction:
		return pb.ToolKind_TOOL_KIND_FUNCTION
	case codemode.ToolKindFreeform:
		return pb.ToolKind_TOOL_KIND_FREEFORM
	default:
		return pb.ToolKind_TOOL_KIND_UNSPECIFIED
	}
}

// toolKind converts a wire tool kind; unspecified and unknown values report false.
func toolKind(k pb.ToolKind) (codemode.ToolKind, bool) {
	switch k {
	case pb.ToolKind_TOOL_KIND_FUNCTION:
		return codemode.ToolKindFunction, true
	case pb.ToolKind_TOOL_KIND_FREEFORM:
		return codemode.ToolKindFreeform, true
	default:
		return 0, false
	}
}

// ToolDefinitionFromProto converts a definition a client sent, with the host's checks in Codex's
// order, so a definition with several faults gets the same text from either host: the name, the
// tool name's presence and shape, the kind, then both schemas as JSON.
func ToolDefinitionFromProto(d *pb.ToolDefinition) (codemode.ToolDefinition, error) {
	if err := CheckIdentifier(d.GetName(), "tool definition name"); err != nil {
		return codemode.ToolDefinition{}, err
	}
	if d.GetToolName() == nil {
		return codemode.ToolDefinition{}, errors.New("tool definition is missing its tool name")
	}
	if err := CheckToolName(d.GetToolName()); err != nil {
		return codemode.ToolDefinition{}, err
	}
	kind, ok := toolKind(d.GetKind())
	if !ok {
		return codemode.ToolDefinition{}, errors.New("tool definition has an invalid kind")
	}
	input, err := schema(d.InputSchemaJson, "input schema")
	if err != nil {
		return codemode.ToolDefinition{}, err
	}
	output, err := schema(d.OutputSchemaJson, "output schema")
	if err != nil {
		return codemode.ToolDefinition{}, err
	}
	return codemode.ToolDefinition{
		Name:         d.GetName(),
		ToolName:     ToolNameFromProto(d.GetToolName()),
		Description:  d.GetDescription(),
		Kind:         kind,
		InputSchema:  input,
		OutputSchema: output,
	}, nil
}

// schema checks an optional JSON schema field; unset stays nil.
func schema(data []byte, field string) (json.RawMessage, error) {
	if data == nil {
		return nil, nil
	}
	if err := checkJSON(data); err != nil {
		return nil, fmt.Errorf("invalid tool %s: %w", field, err)
	}
	return json.RawMessage(data), nil
}

// ToolDefinitionToProto converts a domain definition; schemas go on the wire as compact JSON.
func ToolDefinitionToProto(d codemode.ToolDefinition) (*pb.ToolDefinition, error) {
	out := &pb.ToolDefinition{
		Name:        d.Name,
		ToolName:    ToolNameToProto(d.ToolName),
		Description: d.Description,
		Kind:        ToolKindToProto(d.Kind),
	}
	var err error
	if d.InputSchema != nil {
		if out.InputSchemaJson, err = compactJSON(d.InputSchema, "tool input schema"); err != nil {
			return nil, err
		}
	}
	if d.OutputSchema != nil {
		if out.OutputSchemaJson, err = compactJSON(d.OutputSchema, "tool output schema"); err != nil {
			return nil, err
		}
	}
	return out, nil
}
