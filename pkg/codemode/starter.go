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
