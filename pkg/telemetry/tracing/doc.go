// Package tracing gives a Code Mode host OpenTelemetry traces with the outputs of Codex's own
// host, so an operator's collector set up for one serves the other (docs/protocol/grpc.md#tracing),
// and more: it exports spans as OTLP/HTTP JSON (to a collector's /v1/traces, or as raw batches to
// WebSocket clients), and it decorates a codemode.SessionProvider so that every cell and every
// nested tool call and notification of its sessions is a span.
//
// The span tree of one cell is: the transport's span for the request that started it (the gRPC
// host's code_mode_host.grpc.execute, the V1 host's code_mode_host.v1.execute, a child of the
// caller's W3C trace context when one came with the request) → code_mode.cell, which lasts until
// the cell is closed → one execute_tool {tool name} span per nested tool call, named and
// attributed after OpenTelemetry's GenAI semantic conventions, and one code_mode.notify span per
// notify(). A transport that hands a trace context on to the tool owner (the gRPC host's
// ToolCall.traceparent) finds the tool call's span in the context of the delegate's call.
//
// The decorator sees only the domain contract (pkg/codemode), so it works on any provider. It
// forwards every call of the one delegate contract in the order it comes
// (docs/adr/0066-one-delegate-contract.md), so the runtime takes the same path with and without
// it. Nothing a cell computes (source, tool input, result, output or error
// text) goes into a span: only IDs, names, sizes and outcomes. A host without tracing does not
// install the decorator at all, so tracing off costs nothing.
package tracing
