package grpcclient

import "context"

// traceparentKey carries a W3C trace parent in a context.
type traceparentKey struct{}

// WithTraceparent returns a context that carries a W3C trace parent ("00-<trace>-<parent>-<flags>").
// Execute sends it to the host as the traceparent header; the host puts it on every ToolCall of
// the cell, and the delegate finds it with Traceparent in the context of InvokeTool.
func WithTraceparent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return context.WithValue(ctx, traceparentKey{}, traceparent)
}

// Traceparent returns the trace parent ctx carries, or "".
func Traceparent(ctx context.Context) string {
	tp, _ := ctx.Value(traceparentKey{}).(string)
	return tp
}

// withTraceparent is WithTraceparent for a ToolCall's optional field.
func withTraceparent(ctx context.Context, traceparent string) context.Context {
	return WithTraceparent(ctx, traceparent)
}
