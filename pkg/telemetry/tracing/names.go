package tracing

import "go.opentelemetry.io/otel/attribute"

// Span names. The transports' request spans are named after Codex's host
// (code_mode_host.grpc.execute, …; see the grpchost and v1host packages).
const (
	// CellSpan lasts from a cell's admission until it is closed.
	CellSpan = "code_mode.cell"
	// ToolSpanPrefix starts the name of a nested tool call's span, "execute_tool {tool name}"
	// (OpenTelemetry's GenAI semantic conventions).
	ToolSpanPrefix = "execute_tool "
	// NotifySpan is one notify() delivered to the cell's owner.
	NotifySpan = "code_mode.notify"
)

// Attribute keys. Where Codex's host records the same fact its key is used (cell.id, call_id), so
// that one query finds it on either host; the GenAI keys follow OpenTelemetry's semantic
// conventions for tool execution; the rest are codemode's own.
const (
	// CellIDKey is the cell's ID within its session.
	CellIDKey = attribute.Key("cell.id")
	// CallIDKey is the model's exec call ID of the cell (notifications echo it).
	CallIDKey = attribute.Key("call_id")
	// OperationNameKey is gen_ai.operation.name, "execute_tool" on tool call spans.
	OperationNameKey = attribute.Key("gen_ai.operation.name")
	// ToolNameKey is gen_ai.tool.name, the called tool's name as its owner knows it.
	ToolNameKey = attribute.Key("gen_ai.tool.name")
	// ToolCallIDKey is gen_ai.tool.call.id, the call's ID within its cell ("tool-N").
	ToolCallIDKey = attribute.Key("gen_ai.tool.call.id")
	// ToolTypeKey is gen_ai.tool.type: "function" for every code-mode tool.
	ToolTypeKey = attribute.Key("gen_ai.tool.type")
	// ErrorTypeKey is error.type, set when a call failed: "cancelled" (the cell no longer needed
	// it), "timeout" or "tool_error".
	ErrorTypeKey = attribute.Key("error.type")
	// ToolKindKey is how the tool takes its input: "function" or "freeform".
	ToolKindKey = attribute.Key("code_mode.tool.kind")
	// InputBytesKey and OutputBytesKey are the sizes of a tool call's JSON input and result.
	InputBytesKey  = attribute.Key("code_mode.tool.input_bytes")
	OutputBytesKey = attribute.Key("code_mode.tool.output_bytes")
	// SourceBytesKey is the size of a cell's source.
	SourceBytesKey = attribute.Key("code_mode.cell.source_bytes")
	// OutcomeKey is how a cell ended: "ok", "script_error" or "terminated".
	OutcomeKey = attribute.Key("code_mode.cell.outcome")
	// TextBytesKey is the size of a notification's text.
	TextBytesKey = attribute.Key("code_mode.notification.text_bytes")
)

// Cell outcomes, the values of OutcomeKey.
const (
	OutcomeOK          = "ok"
	OutcomeScriptError = "script_error"
	OutcomeTerminated  = "terminated"
)

// Error types, the values of ErrorTypeKey.
const (
	ErrorCancelled = "cancelled"
	ErrorTimeout   = "timeout"
	ErrorTool      = "tool_error"
)
