package grpcclient_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// The caller's trace parent travels with Execute to the host, which puts it on every ToolCall of
// the cell (ToolCall.traceparent, newer Codex); the delegate finds it in its context.
func TestTraceparentPropagatesFromExecuteToToolCalls(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	seen := make(chan string, 2)
	rec.Handle("echo", func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		seen <- grpcclient.Traceparent(ctx)
		return json.RawMessage(`"ok"`), nil
	})
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := grpcclient.WithTraceparent(ctxT(t), tp)
	c, err := s.Execute(ctx, execReq(`await tools.echo({}); await tools.echo({});`, toEnd, fnTool("echo")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InitialResponse(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := <-seen; got != tp {
			t.Fatalf("the delegate saw trace parent %q, want %q", got, tp)
		}
	}
	run(t, s, execReq(`await tools.echo({});`, toEnd, fnTool("echo")))
	if got := <-seen; got != "" {
		t.Fatalf("a cell executed without a trace context passed on %q", got)
	}
}

// An OpenTelemetry span current in Execute's context is sent as the traceparent when the caller
// gave none; the delegate finds the ToolCall's traceparent as its context's remote span context
// too, so that spans it makes with OpenTelemetry join the trace.
func TestTraceparentFromAndToOpenTelemetry(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	type seen struct {
		tp string
		sc trace.SpanContext
	}
	got := make(chan seen, 1)
	rec.Handle("echo", func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		got <- seen{grpcclient.Traceparent(ctx), trace.SpanContextFromContext(ctx)}
		return json.RawMessage(`"ok"`), nil
	})
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	c, err := s.Execute(trace.ContextWithSpanContext(ctxT(t), sc), execReq(`await tools.echo({});`, toEnd, fnTool("echo")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InitialResponse(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	v := <-got
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; v.tp != want {
		t.Fatalf("the delegate saw trace parent %q, want the span of Execute's context %q", v.tp, want)
	}
	if !v.sc.IsRemote() || v.sc.TraceID() != sc.TraceID() || v.sc.SpanID() != sc.SpanID() || !v.sc.IsSampled() {
		t.Fatalf("the delegate's span context is %+v, want the remote %+v", v.sc, sc)
	}
}
