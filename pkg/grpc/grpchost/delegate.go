package grpchost

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// delegate is the codemode.Delegate of a session's runtime: it turns the cells' callbacks into
// ToolCalls on the session's subscriptions and events on its lease.
type delegate struct {
	s *session
}

var (
	_ codemode.Delegate        = delegate{}
	_ codemode.FailureReporter = delegate{}
)

// errTooManyDelegateCalls fails a callback past the host's MaxPendingDelegateCalls.
var errTooManyDelegateCalls = errors.New("code-mode host has too many pending delegate calls")

// InvokeTool dispatches the call to a subscription and waits for its completion. If the runtime
// gives up on it first (ctx), the client is told with ToolCallCancelled.
func (d delegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	s := d.s
	release, err := s.acquireDelegate()
	if err != nil {
		return nil, err
	}
	defer release()
	e, err := s.awaitExecution(ctx, call.CellID)
	if err != nil {
		return nil, err
	}
	id := uuid.New()
	msg := grpcconv.ToolCallToProto(call)
	msg.SessionId = s.idText
	msg.ExecutionId = e.id
	msg.InvocationId = id.String()
	if e.traceparent != "" {
		msg.Traceparent = &e.traceparent
	}
	inv := &invocation{result: make(chan grpcconv.ToolResult, 1)}
	if err := s.dispatch(ctx, msg, id, inv); err != nil {
		return nil, err
	}
	select {
	case r := <-inv.result:
		if r.Failed {
			return nil, errors.New(r.Failure)
		}
		return r.Output, nil
	case <-ctx.Done():
		s.cancelInvocation(id)
		return nil, errDelegateCancelled
	case <-s.ctx.Done():
		return nil, errors.New("code-mode session closed before returning tool output")
	}
}

// Notify queues a Notification on the lease. As with Codex it returns as soon as the event is
// queued, unless the client acknowledges notifications (grpcconv.AcknowledgementsHeader): then it returns
// once the client acknowledged it, or the runtime gave up on it.
func (d delegate) Notify(ctx context.Context, callID string, cell codemode.CellID, text string) error {
	s := d.s
	release, err := s.acquireDelegate()
	if err != nil {
		return err
	}
	defer release()
	e, err := s.awaitExecution(ctx, cell)
	if err != nil {
		return err
	}
	ctx, cancel := s.bind(ctx)
	defer cancel()
	id := uuid.New()
	var ack <-chan struct{}
	if s.acks {
		ack = s.expectAck(id)
		defer s.forgetAck(id)
	}
	if err := s.events.pushNotification(ctx, &pb.SessionEvent{Event: &pb.SessionEvent_Notification{Notification: &pb.Notification{
		NotificationId: id.String(), ExecutionId: e.id, CellId: string(cell), CallId: callID, Text: text,
	}}}); err != nil || ack == nil {
		return err
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// CellClosed sends the cell's CellClosed once its execution is known.
func (d delegate) CellClosed(cell codemode.CellID) { d.s.closeCell(cell) }

// ReportFailure closes the session, as Codex's host does with a runtime task failure: the
// session's state can no longer be trusted.
func (d delegate) ReportFailure(reason string) { d.s.close(reason) }
