package codemode

import "encoding/json"

// DefaultFunctionNamespace is the namespace of plain function tools. A nil or empty namespace
// means the same thing.
const DefaultFunctionNamespace = "functions"

// ToolName is the name a nested call reports back to the tool owner.
type ToolName struct {
	// Name is the tool's name within its namespace.
	Name string
	// Namespace is optional; nil, "" and "functions" all mean the default namespace. The
	// distinction between nil and "" is preserved on the wire.
	Namespace *string
}

// IsDefaultNamespace reports whether the name lives in the default function namespace.
func (n ToolName) IsDefaultNamespace() bool {
	return n.Namespace == nil || *n.Namespace == "" || *n.Namespace == DefaultFunctionNamespace
}

// WithDefaultNamespace returns the canonical form: a nil or empty namespace becomes "functions".
func (n ToolName) WithDefaultNamespace() ToolName {
	if n.Namespace == nil || *n.Namespace == "" {
		ns := DefaultFunctionNamespace
		return ToolName{Name: n.Name, Namespace: &ns}
	}
	return n
}

// Equivalent reports whether two names denote the same tool once default namespaces are aliased.
func (n ToolName) Equivalent(o ToolName) bool {
	a, b := n.WithDefaultNamespace(), o.WithDefaultNamespace()
	return a.Name == b.Name && *a.Namespace == *b.Namespace
}

// String displays the name as the model knows the tool: the namespace and name concatenated
// (mcp__sample__ and freeform_tool give mcp__sample__freeform_tool), or the bare name in the default
// namespace. Pinned texts such as "code-mode tool {name} is not enabled for this execution"
// (docs/protocol/grpc.md#tool-calls) carry this form.
func (n ToolName) String() string {
	if n.IsDefaultNamespace() {
		return n.Name
	}
	return *n.Namespace + n.Name
}

// ToolKind says how a tool takes its input.
type ToolKind int

// The tool kinds.
const (
	// ToolKindFunction tools take a JSON object.
	ToolKindFunction ToolKind = iota + 1
	// ToolKindFreeform tools take a string.
	ToolKindFreeform
)

// String returns the wire spelling: "function" or "freeform".
func (k ToolKind) String() string {
	switch k {
	case ToolKindFunction:
		return "function"
	case ToolKindFreeform:
		return "freeform"
	default:
		return "invalid"
	}
}

// ToolDefinition is one tool enabled for a cell.
type ToolDefinition struct {
	// Name is the raw key exposed to JavaScript after identifier normalization.
	Name string
	// ToolName is what nested calls report back.
	ToolName ToolName
	// Description is shown to the model.
	Description string
	// Kind is function or freeform.
	Kind ToolKind
	// InputSchema is an optional JSON Schema for the input; nil when absent.
	InputSchema json.RawMessage
	// OutputSchema is an optional JSON Schema for the output; nil when absent.
	OutputSchema json.RawMessage
}

// NestedToolCall is a tool call made by a cell's JavaScript.
type NestedToolCall struct {
	// CellID is the calling cell.
	CellID CellID
	// RuntimeToolCallID is "tool-N", N counting from 1 per cell.
	RuntimeToolCallID string
	// ToolName is the called tool's reported name.
	ToolName ToolName
	// ToolKind is the called tool's kind.
	ToolKind ToolKind
	// Input is the JSON input, or nil when the script passed no argument (or undefined).
	Input json.RawMessage
}
