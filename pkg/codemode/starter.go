package codemode

import (
	"context"
	"encoding/json"
)

// ToolCallStarter is an optional interface of a Delegate whose nested tool calls complete on
// their own, without a goroutine waiting for them: a remote transport that writes the request to
// its connection and later reads the answer on its reader goroutine. A runtime then starts a call
// with StartToolCall instead of running InvokeTool on a goroutine of its own, which saves a
// goroutine and, per call, the handoff from the transport's reader to that goroutine: on a remote
// host that handoff is a noticeable part of a tool round trip.
//
// StartToolCall has InvokeTool's meaning, with the outcome given to done instead of returned:
//   - it must return promptly: it may write the request to a connection, never wait for the
//     answer;
//   - done must be called exactly once, from any goroutine, possibly before StartToolCall
//     returns; its arguments are InvokeTool's results;
//   - once ctx ends, done must be called soon (with an error, unless the answer came first);
//   - done does not block, and the runtime ignores any call after the first.
type ToolCallStarter interface {
	StartToolCall(ctx context.Context, call NestedToolCall, done func(json.RawMessage, error))
}

// NotificationStarter is an optional interface of a Delegate that delivers notifications without
// a goroutine waiting for them, as ToolCallStarter does for tool calls. A runtime then starts each
// notify() on the goroutine that runs the script, in the order the script wrote it relative to its
// tool calls (which a remote transport writes to its connection in that order), instead of
// delivering it from a goroutine of its own.
//
// StartNotify has Notify's meaning, with the outcome given to done instead of returned, under
// ToolCallStarter's rules: it returns promptly, done is called exactly once from any goroutine
// (possibly before StartNotify returns), soon once ctx ends, and does not block.
type NotificationStarter interface {
	StartNotify(ctx context.Context, callID string, cellID CellID, text string, done func(error))
}
