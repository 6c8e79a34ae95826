package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/telemetry/tracing"
)

// guard bounds waits for events that must happen (a hang fails instead of the test binary's
// timeout); it never asserts speed.
const guard = 2 * time.Minute

// TestConformance runs the conformance suite on the in-process runtime behind the decorator,
// every span recorded: the decorator observes, and must change nothing a client sees.
func TestConformance(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
		return tracing.WrapProvider(newRuntime(t), tracing.Tracer(tp))
	}, codemodetest.FakeTime())
}

// TestSpanTree runs cells on the in-process runtime behind the decorator, with a delegate that
// starts its calls itself and one made by codemode.FromBlocking: the cell's span
// is a child of the span in Execute's context; the tool call and notification spans are its
// children, named and attributed by the GenAI conventions, and current in the context the
// delegate gets; outcomes and failures are recorded without the cell's data.
func TestSpanTree(t *testing.T) {
	for name, starting := range map[string]bool{"FromBlocking": false, "StartToolCall": true} {
		t.Run(name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			p := tracing.WrapProvider(newRuntime(t), tracing.Tracer(tp))
			d := &recordingDelegate{}
			del := codemode.FromBlocking(d)
			if starting {
				del = &startingDelegate{d}
			}
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			s, err := p.CreateSession(ctx, del, codemode.SessionCellExecutionLimits{})
			if err != nil {
				t.Fatal(err)
			}
			rpcCtx, rpc := tp.Tracer("test").Start(ctx, "rpc")
			tools := []codemode.ToolDefinition{tool("echo"), tool("fail")}
			ok := run(ctx, t, s, rpcCtx, codemode.ExecuteRequest{ToolCallID: "call-ok", EnabledTools: tools,
				Source: `notify("n"); await tools.echo({a: 1}); try { await tools.fail({}) } catch {} text("done")`})
			failed := run(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-throw", Source: `throw new Error("secret")`})
			rpc.End()
			if err := s.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}

			spans := byName(exp.GetSpans())
			cell := spans.one(t, tracing.CellSpan, tracing.CallIDKey.String("call-ok"))
			if cell.Parent.SpanID() != rpc.SpanContext().SpanID() {
				t.Errorf("the cell's span is not the child of the span in Execute's context")
			}
			wantAttr(t, cell, tracing.CellIDKey.String(string(ok.CellID)), tracing.OutcomeKey.String(tracing.OutcomeOK))
			echo := spans.one(t, "execute_tool echo")
			fail := spans.one(t, "execute_tool fail")
			note := spans.one(t, tracing.NotifySpan)
			for _, s := range []tracetest.SpanStub{echo, fail, note} {
				if s.Parent.SpanID() != cell.SpanContext.SpanID() {
					t.Errorf("%s is not the child of the cell's span", s.Name)
				}
			}
			wantAttr(t, echo, tracing.OperationNameKey.String("execute_tool"), tracing.ToolNameKey.String("echo"),
				tracing.ToolCallIDKey.String("tool-1"), tracing.ToolTypeKey.String("function"), tracing.CellIDKey.String(string(ok.CellID)))
			wantAttr(t, fail, tracing.ToolCallIDKey.String("tool-2"), tracing.ErrorTypeKey.String(tracing.ErrorTool))
			if fail.Status.Code != codes.Error || fail.Status.Description != tracing.ErrorTool {
				t.Errorf("the failed call's status is %+v, want an error that names only its kind", fail.Status)
			}
			wantAttr(t, note, tracing.CallIDKey.String("call-ok"), tracing.TextBytesKey.Int(1))
			if !d.sawSpan(echo.SpanContext.SpanID()) || !d.sawSpan(fail.SpanContext.SpanID()) || !d.sawSpan(note.SpanContext.SpanID()) {
				t.Errorf("the delegate's contexts carried spans %v, want each call's own", d.spanIDs())
			}

			thrown := spans.one(t, tracing.CellSpan, tracing.CallIDKey.String("call-throw"))
			wantAttr(t, thrown, tracing.CellIDKey.String(string(failed.CellID)), tracing.OutcomeKey.String(tracing.OutcomeScriptError))
			if thrown.Status.Code != codes.Error || thrown.Status.Description != "the script failed" {
				t.Errorf("the failed cell's status is %+v, want an error without the script's message", thrown.Status)
			}
		})
	}
}

// TestTerminatedCellSpan: a cell stopped by Terminate, and one closed by its session's shutdown,
// end their spans as terminated.
func TestTerminatedCellSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	p := tracing.WrapProvider(newRuntime(t), tracing.Tracer(tp))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s, err := p.CreateSession(ctx, codemode.FromBlocking(&recordingDelegate{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	zero := uint64(0)
	stopped := run(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-stop", YieldTimeMs: &zero, Source: `await new Promise(() => {})`})
	if out, err := s.Terminate(ctx, stopped.CellID); err != nil || out.Response.Kind != codemode.Terminated {
		t.Fatalf("terminate: %+v, %v", out, err)
	}
	run(ctx, t, s, ctx, codemode.ExecuteRequest{ToolCallID: "call-left", YieldTimeMs: &zero, Source: `await new Promise(() => {})`})
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	spans := byName(exp.GetSpans())
	for _, call := range []string{"call-stop", "call-left"} {
		wantAttr(t, spans.one(t, tracing.CellSpan, tracing.CallIDKey.String(call)), tracing.OutcomeKey.String(tracing.OutcomeTerminated))
	}
}

// tool is a function tool named name.
func tool(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name}, Kind: codemode.ToolKindFunction}
}

// run executes req (with execCtx) and returns its first response.
func run(ctx context.Context, t *testing.T, s codemode.Session, execCtx context.Context, req codemode.ExecuteRequest) codemode.RuntimeResponse {
	t.Helper()
	started, err := s.Execute(execCtx, req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := started.InitialResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// recordingDelegate answers "echo", fails every other tool, and keeps the span current in the
// context of each call.
type recordingDelegate struct {
	codemode.DiscardReports
	mu    sync.Mutex
	spans []trace.SpanID
}

func (d *recordingDelegate) saw(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spans = append(d.spans, trace.SpanContextFromContext(ctx).SpanID())
}

func (d *recordingDelegate) spanIDs() []trace.SpanID {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]trace.SpanID(nil), d.spans...)
}

func (d *recordingDelegate) sawSpan(id trace.SpanID) bool {
	for _, s := range d.spanIDs() {
		if s == id {
			return true
		}
	}
	return false
}

func (d *recordingDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	d.saw(ctx)
	if call.ToolName.Name != "echo" {
		return nil, errors.New("the tool failed with secret data")
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func (d *recordingDelegate) Notify(ctx context.Context, _ string, _ codemode.CellID, _ string) error {
	d.saw(ctx)
	return nil
}

func (d *recordingDelegate) CellClosed(codemode.CellID) {}

// startingDelegate is recordingDelegate with its own Start methods, which answer on goroutines of
// their own.
type startingDelegate struct{ *recordingDelegate }

func (d *startingDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	go func() { done(d.InvokeTool(ctx, call)) }()
}

func (d *startingDelegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	go func() { done(d.Notify(ctx, callID, cellID, text)) }()
}

// spanIndex finds recorded spans.
type spanIndex []tracetest.SpanStub

func byName(spans tracetest.SpanStubs) spanIndex { return spanIndex(spans) }

// one returns the one span named name that has every attribute of attrs.
func (x spanIndex) one(t *testing.T, name string, attrs ...attribute.KeyValue) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range x {
		if s.Name == name && hasAll(s, attrs) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans %s with %v, want 1", len(found), name, attrs)
	}
	return found[0]
}

func hasAll(s tracetest.SpanStub, attrs []attribute.KeyValue) bool {
	for _, want := range attrs {
		found := false
		for _, kv := range s.Attributes {
			if kv == want {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func wantAttr(t *testing.T, s tracetest.SpanStub, attrs ...attribute.KeyValue) {
	t.Helper()
	for _, want := range attrs {
		if !hasAll(s, []attribute.KeyValue{want}) {
			t.Errorf("%s lacks %s=%s; it has %v", s.Name, want.Key, want.Value.String(), s.Attributes)
		}
	}
}

// newRuntime is an in-process provider, closed when t ends.
func newRuntime(t testing.TB) *jsruntime.Provider {
	t.Helper()
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatalf("jsruntime.NewProvider: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("closing the provider: %v", err)
		}
	})
	return p
}
