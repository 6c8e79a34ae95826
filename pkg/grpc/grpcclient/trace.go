package grpcclient

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traceparentKey carries a W3C trace parent in a context.
type traceparentKey struct{}

// WithTraceparent returns a context that carries a W3C trace parent ("00-<trace>-<parent>-<flags>").
// Execute sends it to the host as the traceparent header; the host puts it (or, if it traces, its
// tool call's span in that trace) on every ToolCall of the cell, and the delegate finds it with
// Traceparent in the context of its tool call (StartToolCall, or a blocking InvokeTool). Without it, Execute sends the OpenTelemetry span of
// its context, if any.
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

// outgoingTraceparent is the traceparent an Execute sends: WithTraceparent's, else the
// OpenTelemetry span current in ctx (a caller that traces joins the host's spans to its trace
// without doing anything), else none.
func outgoingTraceparent(ctx context.Context) string {
	if tp := Traceparent(ctx); tp != "" {
		return tp
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// withTraceparent is WithTraceparent for a ToolCall's optional field. A well-formed one also
// becomes the context's remote OpenTelemetry span context, so that a delegate instrumented with
// OpenTelemetry makes its spans children of the host's tool call span.
func withTraceparent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
	return WithTraceparent(ctx, traceparent)
}
