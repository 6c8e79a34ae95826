package grpchost

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// TestToolCallTraceparent: a ToolCall carries the tool call's span when the provider traces
// (a local span in the call's context), else the caller's traceparent as is; without tracing that
// costs no allocation.
func TestToolCallTraceparent(t *testing.T) {
	const callers = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	plain := context.Background()
	if got := toolCallTraceparent(plain, callers); got != callers {
		t.Errorf("without a span: %q, want the caller's %q", got, callers)
	}
	if n := testing.AllocsPerRun(100, func() { _ = toolCallTraceparent(plain, callers) }); n != 0 {
		t.Errorf("without tracing the traceparent costs %v allocations, want 0", n)
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88},
		TraceFlags: trace.FlagsSampled,
	})
	if got, want := toolCallTraceparent(trace.ContextWithSpanContext(plain, sc), callers), "00-4bf92f3577b34da6a3ce929d0e0e4736-1122334455667788-01"; got != want {
		t.Errorf("with the tool call's span: %q, want %q", got, want)
	}
	if got := toolCallTraceparent(trace.ContextWithRemoteSpanContext(plain, sc), callers); got != callers {
		t.Errorf("with only the caller's (remote) span: %q, want the caller's %q", got, callers)
	}
}
