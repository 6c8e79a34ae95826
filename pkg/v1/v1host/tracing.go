package v1host

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// WithTracer makes a span per operation with tracer, in the family of Codex's gRPC host's names:
// code_mode_host.v1.open_session, .execute, .wait, .terminate and .shutdown_session. V1 carries no
// trace context, so each is the root of its trace; the cell an execute starts is its child.
// Without it the host makes no spans.
func WithTracer(tracer trace.Tracer) Option { return func(h *Host) { h.tracer = tracer } }

// Attribute keys of the operation spans, as the gRPC host's.
const (
	sessionIDKey = attribute.Key("session.id")
	cellIDKey    = attribute.Key("cell.id")
	callIDKey    = attribute.Key("call_id")
)

// noSpan ends nothing: the operation of a host without a tracer.
func noSpan() {}

// traceOperation starts the span of one operation, when the host traces, and returns the context
// to run it in and the function that ends the span.
func (h *Host) traceOperation(ctx context.Context, req wirev1.HostRequest) (context.Context, func()) {
	if h.tracer == nil {
		return ctx, noSpan
	}
	name, attrs := operationSpan(req)
	if name == "" {
		return ctx, noSpan
	}
	ctx, span := h.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, func() { span.End() }
}

// operationSpan names an operation's span and lists the IDs it carries.
func operationSpan(req wirev1.HostRequest) (string, []attribute.KeyValue) {
	switch r := req.(type) {
	case wirev1.OpenSession:
		return "code_mode_host.v1.open_session", []attribute.KeyValue{sessionIDKey.String(string(r.SessionId))}
	case wirev1.Execute:
		return "code_mode_host.v1.execute", []attribute.KeyValue{sessionIDKey.String(string(r.SessionId)), callIDKey.String(r.Request.ToolCallId)}
	case wirev1.Wait:
		return "code_mode_host.v1.wait", []attribute.KeyValue{sessionIDKey.String(string(r.SessionId)), cellIDKey.String(string(r.Request.CellId))}
	case wirev1.Terminate:
		return "code_mode_host.v1.terminate", []attribute.KeyValue{sessionIDKey.String(string(r.SessionId)), cellIDKey.String(string(r.CellId))}
	case wirev1.ShutdownSession:
		return "code_mode_host.v1.shutdown_session", []attribute.KeyValue{sessionIDKey.String(string(r.SessionId))}
	}
	return "", nil
}
