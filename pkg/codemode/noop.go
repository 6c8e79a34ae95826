package codemode

import (
	"context"
	"encoding/json"
)

// NoopDelegate is a Delegate for sessions without tools: a tool call waits until it is
// cancelled and then fails, notifications are accepted and dropped.
type NoopDelegate struct{}

// InvokeTool waits for cancellation, then returns ErrNestedToolsUnavailable.
func (NoopDelegate) InvokeTool(ctx context.Context, _ NestedToolCall) (json.RawMessage, error) {
	<-ctx.Done()
	return nil, ErrNestedToolsUnavailable
}

// Notify accepts the notification.
func (NoopDelegate) Notify(context.Context, string, CellID, string) error { return nil }

// CellClosed does nothing.
func (NoopDelegate) CellClosed(CellID) {}

var _ Delegate = NoopDelegate{}
