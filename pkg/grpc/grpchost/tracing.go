package grpchost

import (
	"context"
	"strings"
	"sync"

	"connectrpc.com/connect/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
)

// rpcSpans names the span of each traced RPC with Codex's host's name for it
// (docs/protocol/grpc.md#tracing), so that trace queries and dashboards written for either host
// find both; the other RPCs (the
// subscription, tool call completions, acknowledgements) are parts of a cell's tool calls, whose
// spans the provider makes.
var rpcSpans = map[string]string{
	code_modev1connect.CodeModeHostOpenSessionProcedure:      "code_mode_host.grpc.open_session",
	code_modev1connect.CodeModeHostExecuteProcedure:          "code_mode_host.grpc.execute",
	code_modev1connect.CodeModeHostWaitProcedure:             "code_mode_host.grpc.wait",
	code_modev1connect.CodeModeHostTerminateProcedure:        "code_mode_host.grpc.terminate",
	code_modev1connect.CodeModeHostCloseSessionProcedure:     "code_mode_host.grpc.close_session",
	code_modev1connect.CodeModeHostYieldObservationProcedure: "code_mode_host.grpc.yield_observation",
}

// Attribute keys of the RPC spans: Codex's host's for the IDs, OpenTelemetry's RPC semantic
// conventions for the call.
const (
	sessionIDKey   = attribute.Key("session.id")
	executionIDKey = attribute.Key("execution.id")
	cellIDKey      = attribute.Key("cell.id")
	callIDKey      = attribute.Key("call_id")
	waitIDKey      = attribute.Key("wait.id")
	rpcSystemKey   = attribute.Key("rpc.system")
	rpcServiceKey  = attribute.Key("rpc.service")
	rpcMethodKey   = attribute.Key("rpc.method")
	rpcStatusKey   = attribute.Key("rpc.grpc.status_code")
)

// TraceRPCs is a connect interceptor (Options.Interceptors) that makes a server span per traced
// RPC with tracer, named as in rpcSpans, a child of the caller's W3C trace context
// (traceparent and tracestate request headers) when it sent one. The span is in the context the
// handler runs with, so the cell an Execute starts is its child. OpenSession's span ends when the
// session is opened, not when its lease ends. A host without it makes no spans and passes the
// caller's traceparent on to the tool calls as is.
func TraceRPCs(tracer trace.Tracer) connect.ServerInterceptor {
	propagator := propagation.TraceContext{}
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			name, ok := rpcSpans[spec.Procedure]
			if !ok {
				return next(ctx, spec, stream)
			}
			if info, ok := connect.CallInfoForServerContext(ctx); ok {
				ctx = propagator.Extract(ctx, headerCarrier{info.RequestHeader()})
			}
			service, method := splitProcedure(spec.Procedure)
			ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
				rpcSystemKey.String("grpc"), rpcServiceKey.String(service), rpcMethodKey.String(method)))
			traced := &tracedStream{ServerStream: stream, span: span}
			err := next(ctx, spec, traced)
			traced.finish(err)
			return err
		}
	}
}

// headerCarrier reads and writes W3C trace context in connect's request headers.
type headerCarrier struct{ h *connect.Header }

var _ propagation.TextMapCarrier = headerCarrier{}

// Get returns the first value of key.
func (c headerCarrier) Get(key string) string { return c.h.Get(key) }

// Set replaces the values of key.
func (c headerCarrier) Set(key, value string) { c.h.Set(key, value) }

// Keys lists the header names.
func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, c.h.Len())
	for k := range c.h.All() {
		keys = append(keys, k)
	}
	return keys
}

// splitProcedure splits "/package.Service/Method".
func splitProcedure(procedure string) (service, method string) {
	service, method, _ = strings.Cut(strings.TrimPrefix(procedure, "/"), "/")
	return service, method
}

// tracedStream puts the IDs of an RPC's request and first response on its span.
type tracedStream struct {
	connect.ServerStream
	span     trace.Span
	received sync.Once
	sent     sync.Once
	ended    sync.Once
}

// Receive reads a request message; the first one's IDs go on the span.
func (s *tracedStream) Receive(msg any) error {
	err := s.ServerStream.Receive(msg)
	if err == nil {
		s.received.Do(func() { s.span.SetAttributes(requestAttributes(msg)...) })
	}
	return err
}

// Send writes a response message. The cell an Execute started goes on its span; OpenSession's
// span ends with the session opened.
func (s *tracedStream) Send(msg any) error {
	opened := false
	s.sent.Do(func() {
		switch m := msg.(type) {
		case *pb.ExecuteEvent:
			if started := m.GetStarted(); started != nil {
				s.span.SetAttributes(cellIDKey.String(started.GetCellId()))
			}
		case *pb.SessionEvent:
			if o := m.GetOpened(); o != nil {
				s.span.SetAttributes(sessionIDKey.String(o.GetSessionId()))
				opened = true
			}
		}
	})
	err := s.ServerStream.Send(msg)
	if opened {
		s.finish(err)
	}
	return err
}

// finish ends the span, once, with the RPC's status.
func (s *tracedStream) finish(err error) {
	s.ended.Do(func() {
		if err != nil {
			s.span.SetAttributes(rpcStatusKey.Int(int(connect.CodeOf(err))))
			s.span.SetStatus(codes.Error, err.Error())
		} else {
			s.span.SetAttributes(rpcStatusKey.Int(0))
		}
		s.span.End()
	})
}

// requestAttributes are the IDs a request names, under Codex's host's keys.
func requestAttributes(msg any) []attribute.KeyValue {
	switch m := msg.(type) {
	case *pb.ExecuteRequest:
		return []attribute.KeyValue{sessionIDKey.String(m.GetSessionId()), executionIDKey.String(m.GetExecutionId()), callIDKey.String(m.GetToolCallId())}
	case *pb.WaitRequest:
		return []attribute.KeyValue{sessionIDKey.String(m.GetSessionId()), cellIDKey.String(m.GetCellId()), waitIDKey.String(m.GetWaitId())}
	case *pb.TerminateRequest:
		return []attribute.KeyValue{sessionIDKey.String(m.GetSessionId()), cellIDKey.String(m.GetCellId())}
	case *pb.CloseSessionRequest:
		return []attribute.KeyValue{sessionIDKey.String(m.GetSessionId())}
	case *pb.YieldObservationRequest:
		return []attribute.KeyValue{sessionIDKey.String(m.GetSessionId())}
	}
	return nil
}

// toolCallTraceparent is the W3C trace parent a ToolCall carries: the span of the tool call when
// the provider traces its cells (the tool owner's work is then its child), else the caller's own
// traceparent from the Execute, passed on as is ("" for none).
func toolCallTraceparent(ctx context.Context, callers string) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || sc.IsRemote() {
		return callers
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}
