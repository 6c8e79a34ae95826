package v1convert

import (
	"fmt"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// ToolDefinitionToWire converts an enabled tool for the wire.
func ToolDefinitionToWire(d codemode.ToolDefinition) wirev1.WireToolDefinition {
	return wirev1.WireToolDefinition{
		Name:         d.Name,
		ToolName:     ToolNameToWire(d.ToolName),
		Description:  d.Description,
		Kind:         d.Kind.String(),
		InputSchema:  d.InputSchema,
		OutputSchema: d.OutputSchema,
	}
}

// ToolDefinitionFromWire converts an enabled tool received from the wire.
func ToolDefinitionFromWire(w wirev1.WireToolDefinition) (codemode.ToolDefinition, error) {
	kind, err := ToolKindFromWire(w.Kind)
	if err != nil {
		return codemode.ToolDefinition{}, err
	}
	return codemode.ToolDefinition{
		Name:         w.Name,
		ToolName:     ToolNameFromWire(w.ToolName),
		Description:  w.Description,
		Kind:         kind,
		InputSchema:  w.InputSchema,
		OutputSchema: w.OutputSchema,
	}, nil
}

// ToolNameToWire keeps the difference between a nil and an empty namespace.
func ToolNameToWire(n codemode.ToolName) wirev1.WireToolName {
	return wirev1.WireToolName{Name: n.Name, Namespace: n.Namespace}
}

// ToolNameFromWire is ToolNameToWire's inverse.
func ToolNameFromWire(w wirev1.WireToolName) codemode.ToolName {
	return codemode.ToolName{Name: w.Name, Namespace: w.Namespace}
}

// ToolKindFromWire maps "function" and "freeform"; the decoders admit nothing else, so another
// value is a programming error reported as such.
func ToolKindFromWire(kind string) (codemode.ToolKind, error) {
	switch kind {
	case "function":
		return codemode.ToolKindFunction, nil
	case "freeform":
		return codemode.ToolKindFreeform, nil
	}
	return 0, fmt.Errorf("unknown tool kind %q", kind)
}

// NestedToolCallToWire converts a cell's tool call for the wire; cell is the wire cell ID.
func NestedToolCallToWire(c codemode.NestedToolCall) wirev1.WireNestedToolCall {
	return wirev1.WireNestedToolCall{
		CellId:            wirev1.WireCellId(c.CellID),
		RuntimeToolCallId: c.RuntimeToolCallID,
		ToolName:          ToolNameToWire(c.ToolName),
		ToolKind:          c.ToolKind.String(),
		Input:             c.Input,
	}
}

// NestedToolCallFromWire converts a tool call received from the wire; the caller sets the
// public cell ID.
func NestedToolCallFromWire(w wirev1.WireNestedToolCall) (codemode.NestedToolCall, error) {
	kind, err := ToolKindFromWire(w.ToolKind)
	if err != nil {
		return codemode.NestedToolCall{}, err
	}
	return codemode.NestedToolCall{
		CellID:            codemode.CellID(w.CellId),
		RuntimeToolCallID: w.RuntimeToolCallId,
		ToolName:          ToolNameFromWire(w.ToolName),
		ToolKind:          kind,
		Input:             w.Input,
	}, nil
}
