package tracing

import (
	"context"
	"encoding/json"
	"errors"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// delegate traces the callbacks of a session's cells: a span per tool call and notification, a
// child of its cell's span, in the context the wrapped delegate gets; the cell's span ends when
// the cell is closed.
type delegate struct {
	inner  codemode.Delegate
	tracer trace.Tracer
	cells  *cellSpans
}

// wrapDelegate returns d traced. It forwards every call in the order it comes, so a cell's order
// of events holds through it.
func wrapDelegate(d codemode.Delegate, tracer trace.Tracer, cells *cellSpans) codemode.Delegate {
	return &delegate{inner: d, tracer: tracer, cells: cells}
}

var (
	_ codemode.Delegate   = (*delegate)(nil)
	_ codemode.TurnRunner = (*delegate)(nil)
)

// StartToolCall starts the call under its span, which ends when the call is done.
func (d *delegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	ctx, span := d.startToolSpan(ctx, call)
	d.inner.StartToolCall(ctx, call, func(out json.RawMessage, err error) {
		endToolSpan(span, out, err)
		done(out, err)
	})
}

// RunTurnHere is the inner delegate's, if it runs turns (codemode.TurnRunner): the call's span
// ends before its done is called, so a turn run there is not part of it.
func (d *delegate) RunTurnHere(call codemode.NestedToolCall) (relay func(), ok bool) {
	return codemode.RunTurnHereOf(d.inner, call)
}

// StartNotify starts the notification under its span, which ends when it is done.
func (d *delegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	ctx, span := d.startNotifySpan(ctx, callID, cellID, text)
	d.inner.StartNotify(ctx, callID, cellID, text, func(err error) {
		endNotifySpan(span, err)
		done(err)
	})
}

// CellClosed reports the closure, then ends the cell's span.
func (d *delegate) CellClosed(id codemode.CellID) {
	defer d.cells.close(id)
	d.inner.CellClosed(id)
}

// ReportFailure hands the failure on.
func (d *delegate) ReportFailure(reason string) { d.inner.ReportFailure(reason) }

// CellUsage hands the cell's usage on: a decorator outside the metrics one must not keep it from
// the metrics.
func (d *delegate) CellUsage(id codemode.CellID, usage codemode.CellUsage) {
	d.inner.CellUsage(id, usage)
}

// cellContext is ctx with the span of cell id as its current span (ctx itself when the cell has
// no open span).
func (d *delegate) cellContext(ctx context.Context, id codemode.CellID) context.Context {
	if c := d.cells.await(id); c != nil {
		return trace.ContextWithSpan(ctx, c.span)
	}
	return ctx
}

func (d *delegate) startToolSpan(ctx context.Context, call codemode.NestedToolCall) (context.Context, trace.Span) {
	name := call.ToolName.String()
	return d.tracer.Start(d.cellContext(ctx, call.CellID), ToolSpanPrefix+name, trace.WithAttributes(
		OperationNameKey.String("execute_tool"),
		ToolNameKey.String(name),
		ToolCallIDKey.String(call.RuntimeToolCallID),
		ToolTypeKey.String("function"),
		ToolKindKey.String(call.ToolKind.String()),
		CellIDKey.String(string(call.CellID)),
		InputBytesKey.Int(len(call.Input)),
	))
}

// endToolSpan ends a tool call's span. A failure is recorded by its kind only: its message may
// quote the tool's data.
func endToolSpan(span trace.Span, out json.RawMessage, err error) {
	if err != nil {
		kind := errorType(err)
		span.SetAttributes(ErrorTypeKey.String(kind))
		span.SetStatus(codes.Error, kind)
	} else {
		span.SetAttributes(OutputBytesKey.Int(len(out)))
	}
	span.End()
}

func (d *delegate) startNotifySpan(ctx context.Context, callID string, cellID codemode.CellID, text string) (context.Context, trace.Span) {
	return d.tracer.Start(d.cellContext(ctx, cellID), NotifySpan, trace.WithAttributes(
		CellIDKey.String(string(cellID)), CallIDKey.String(callID), TextBytesKey.Int(len(text))))
}

func endNotifySpan(span trace.Span, err error) {
	if err != nil {
		kind := errorType(err)
		span.SetAttributes(ErrorTypeKey.String(kind))
		span.SetStatus(codes.Error, kind)
	}
	span.End()
}

// errorType classifies a failed call for error.type.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return ErrorCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorTimeout
	}
	return ErrorTool
}
