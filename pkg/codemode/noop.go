package codemode

import (
	"context"
	"encoding/json"
)

// NoopDelegate is a Delegate for sessions without tools: a tool call waits until it is
// cancelled and then fails, notifications are accepted and dropped.
type NoopDelegate struct{ DiscardReports }

// StartToolCall fails the call with ErrNestedToolsUnavailable once ctx ends.
func (NoopDelegate) StartToolCall(ctx context.Context, _ NestedToolCall, done func(json.RawMessage, error)) {
	context.AfterFunc(ctx, func() { done(nil, ErrNestedToolsUnavailable) })
}

// StartNotify accepts the notification.
func (NoopDelegate) StartNotify(_ context.Context, _ string, _ CellID, _ string, done func(error)) {
	done(nil)
}

// CellClosed does nothing.
func (NoopDelegate) CellClosed(CellID) {}

var _ Delegate = NoopDelegate{}

// BlockingNoop gives a BlockingDelegate the methods an owner with only tools does not need:
// Notify accepts and drops the text, CellClosed, ReportFailure and CellUsage do nothing. Embed it,
// write InvokeTool, and hand the session FromBlocking of the result. (Embedding NoopDelegate
// instead would make InvokeTool dead code: NoopDelegate's own StartToolCall answers every call.)
type BlockingNoop struct{ DiscardReports }

// Notify accepts the notification.
func (BlockingNoop) Notify(context.Context, string, CellID, string) error { return nil }

// CellClosed does nothing.
func (BlockingNoop) CellClosed(CellID) {}
