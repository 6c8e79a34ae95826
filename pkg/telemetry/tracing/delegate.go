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

// wrapDelegate returns d traced, with the optional interfaces d has: the runtime starts calls
// without a goroutine of its own only through a delegate that implements the starters.
func wrapDelegate(d codemode.Delegate, tracer trace.Tracer, cells *cellSpans) codemode.Delegate {
	base := &delegate{inner: d, tracer: tracer, cells: cells}
	ts, tools := d.(codemode.ToolCallStarter)
	ns, notes := d.(codemode.NotificationStarter)
	switch {
	case tools && notes:
		return &startingDelegate{toolStartingDelegate{base, ts}, ns}
	case tools:
		return &toolStartingDelegate{base, ts}
	case notes:
		return &notifyStartingDelegate{base, ns}
	}
	return base
}

var (
	_ codemode.FailureReporter     = (*delegate)(nil)
	_ codemode.CellUsageReporter   = (*delegate)(nil)
	_ codemode.ToolCallStarter     = (*toolStartingDelegate)(nil)
	_ codemode.NotificationStarter = (*notifyStartingDelegate)(nil)
	_ codemode.ToolCallStarter     = (*startingDelegate)(nil)
	_ codemode.NotificationStarter = (*startingDelegate)(nil)
)

// InvokeTool runs the call under its span.
func (d *delegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	ctx, span := d.startToolSpan(ctx, call)
	out, err := d.inner.InvokeTool(ctx, call)
	endToolSpan(span, out, err)
	return out, err
}

// Notify delivers the notification under its span.
func (d *delegate) Notify(ctx context.Context, callID string, cellID codemode.CellID, text string) error {
	ctx, span := d.startNotifySpan(ctx, callID, cellID, text)
	err := d.inner.Notify(ctx, callID, cellID, text)
	endNotifySpan(span, err)
	return err
}

// CellClosed reports the closure, then ends the cell's span.
func (d *delegate) CellClosed(id codemode.CellID) {
	defer d.cells.close(id)
	d.inner.CellClosed(id)
}

// ReportFailure hands the failure on, if the wrapped delegate listens for failures.
func (d *delegate) ReportFailure(reason string) { codemode.ReportFailure(d.inner, reason) }

// CellUsage hands the cell's usage on, if the wrapped delegate listens for it: a decorator outside
// the metrics one must not keep it from the metrics.
func (d *delegate) CellUsage(id codemode.CellID, usage codemode.CellUsage) {
	codemode.ReportCellUsage(d.inner, id, usage)
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

// toolStartingDelegate is a traced delegate that starts tool calls (codemode.ToolCallStarter).
type toolStartingDelegate struct {
	*delegate
	starter codemode.ToolCallStarter
}

// StartToolCall starts the call under its span, which ends when the call is done.
func (d *toolStartingDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	ctx, span := d.startToolSpan(ctx, call)
	d.starter.StartToolCall(ctx, call, func(out json.RawMessage, err error) {
		endToolSpan(span, out, err)
		done(out, err)
	})
}

// notifyStartingDelegate is a traced delegate that starts notifications
// (codemode.NotificationStarter).
type notifyStartingDelegate struct {
	*delegate
	starter codemode.NotificationStarter
}

// StartNotify starts the notification under its span, which ends when it is done.
func (d *notifyStartingDelegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	startNotify(ctx, d.delegate, d.starter, callID, cellID, text, done)
}

// startingDelegate is a traced delegate that starts both.
type startingDelegate struct {
	toolStartingDelegate
	notes codemode.NotificationStarter
}

// StartNotify starts the notification under its span, which ends when it is done.
func (d *startingDelegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	startNotify(ctx, d.delegate, d.notes, callID, cellID, text, done)
}

func startNotify(ctx context.Context, d *delegate, starter codemode.NotificationStarter, callID string, cellID codemode.CellID, text string, done func(error)) {
	ctx, span := d.startNotifySpan(ctx, callID, cellID, text)
	starter.StartNotify(ctx, callID, cellID, text, func(err error) {
		endNotifySpan(span, err)
		done(err)
	})
}
