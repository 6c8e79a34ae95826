package grpchost

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// delegate is the codemode.Delegate of a session's runtime: it turns the cells' callbacks into
// ToolCalls on the session's subscriptions and events on its lease.
type delegate struct {
	s *session
	// notes runs Notify, which waits for the execution, a place on the lease and perhaps the
	// client's acknowledgement, off the runtime's goroutine, a cell's notifications in order.
	notes codemode.Delegate
}

// newDelegate is the delegate of session s.
func newDelegate(s *session) delegate {
	d := delegate{s: s}
	d.notes = codemode.FromBlocking(blockingNotifier{d})
	return d
}

var _ codemode.Delegate = delegate{}

// errTooManyDelegateCalls fails a callback past the host's MaxPendingDelegateCalls.
var errTooManyDelegateCalls = errors.New("code-mode host has too many pending delegate calls")

// invokeHeld dispatches the call to a subscription and waits for its completion, for a caller
// that holds the call's delegate permit already. If the runtime gives up on it first (ctx), the
// client is told with ToolCallCancelled.
func (d delegate) invokeHeld(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	s := d.s
	e, err := s.awaitExecution(ctx, call.CellID)
	if err != nil {
		return nil, err
	}
	id, msg := s.toolCallMessage(ctx, e, call)
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
		return nil, errSessionClosedBeforeOutput
	}
}

// errSessionClosedBeforeOutput fails a dispatched call whose session closed before the answer.
var errSessionClosedBeforeOutput = errors.New("code-mode session closed before returning tool output")

// toolCallMessage is the ToolCall that dispatches call for execution e, under a new invocation ID;
// its traceparent is the tool call's span in ctx, if traced (toolCallTraceparent).
func (s *session) toolCallMessage(ctx context.Context, e execution, call codemode.NestedToolCall) (uuid.UUID, *pb.ToolCall) {
	id := uuid.New()
	msg := grpcconv.NestedToolCallToProto(call)
	msg.SessionId = s.idText
	msg.ExecutionId = e.id
	msg.InvocationId = id.String()
	if tp := toolCallTraceparent(ctx, e.traceparent); tp != "" {
		msg.Traceparent = &tp
	}
	return id, msg
}

// StartToolCall dispatches a nested tool call without a goroutine that waits for the answer, as
// the V1 host's delegate starts its calls: when the cell's execution is known the call is dispatched on the
// runtime's goroutine, and done runs on whichever goroutine settles it (the CompleteToolCall
// handler, the cancellation of ctx, the session closing). A call whose execution is not announced
// yet, or whose subscriptions are all full, waits on a goroutine of its own (invokeHeld).
// The permit is taken here, in the cell's call order, in every case: a call that waits for its
// execution must not find the permit its earlier siblings were refused freed by then.
func (d delegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	s := d.s
	release, err := s.acquireDelegate()
	if err != nil {
		done(nil, err)
		return
	}
	e, known := s.knownExecution(call.CellID)
	if !known {
		go func() {
			out, err := d.invokeHeld(ctx, call)
			release()
			done(out, err)
		}()
		return
	}
	id, msg := s.toolCallMessage(ctx, e, call)
	sc := &startedCall{done: done, release: release}
	inv := &invocation{settle: sc.settle}
	full, err := s.dispatchNow(msg, id, inv)
	switch {
	case err != nil:
		sc.finish(nil, err)
	case full:
		go func() {
			if err := s.dispatch(ctx, msg, id, inv); err != nil {
				sc.finish(nil, err)
				return
			}
			sc.watch(ctx, s, id)
		}()
	default:
		sc.watch(ctx, s, id)
	}
}

// startedCall is one call StartToolCall dispatched: the first of its answer, its cancellation and
// its session's closing settles it, once.
type startedCall struct {
	once    sync.Once
	done    func(json.RawMessage, error)
	release func()
	// mu guards stops and finished: a watcher may fire, or the answer arrive, before watch
	// stored the watchers.
	mu       sync.Mutex
	stops    []func() bool
	finished bool
}

// watch settles the dispatched call when ctx ends (withdrawing the invocation, as invokeHeld
// does) or the session closes; a call settled already is not watched. It runs after the dispatch,
// so a cancellation always finds the invocation to withdraw.
func (c *startedCall) watch(ctx context.Context, s *session, id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return
	}
	c.stops = append(c.stops,
		context.AfterFunc(ctx, func() {
			s.cancelInvocation(id)
			c.finish(nil, errDelegateCancelled)
		}),
		context.AfterFunc(s.ctx, func() { c.finish(nil, errSessionClosedBeforeOutput) }))
}

// settle delivers the client's answer (or its subscription's failure).
func (c *startedCall) settle(r grpcconv.ToolResult) {
	if r.Failed {
		c.finish(nil, errors.New(r.Failure))
		return
	}
	c.finish(r.Output, nil)
}

// finish settles the call once: the watchers are stopped, the delegate slot released, done run.
func (c *startedCall) finish(out json.RawMessage, err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.finished = true
		stops := c.stops
		c.mu.Unlock()
		for _, stop := range stops {
			stop()
		}
		c.release()
		c.done(out, err)
	})
}

// StartNotify delivers the notification through notes (blockingNotifier.Notify).
func (d delegate) StartNotify(ctx context.Context, callID string, cell codemode.CellID, text string, done func(error)) {
	d.notes.StartNotify(ctx, callID, cell, text, done)
}

// blockingNotifier is the blocking form of the delegate's notifications (codemode.FromBlocking);
// its tool calls are never used (delegate.StartToolCall).
type blockingNotifier struct{ delegate }

// InvokeTool is not used: the delegate starts its tool calls itself.
func (n blockingNotifier) InvokeTool(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
	return nil, errors.New("code-mode gRPC host started a tool call through its notifier")
}

// Notify queues a Notification on the lease. It returns as soon as the event is queued
// (docs/protocol/grpc.md#tool-calls), since a Codex client never acknowledges, unless the client
// acknowledges notifications (grpcconv.AcknowledgementsHeader): then it returns once the client
// acknowledged it, or the runtime gave up on it.
func (n blockingNotifier) Notify(ctx context.Context, callID string, cell codemode.CellID, text string) error {
	s := n.s
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

// ReportFailure closes the session: its state can no longer be trusted, and closing it fails
// what the client waits for on it at once (docs/protocol/grpc.md#session-lifecycle) instead of
// leaving it to hang.
func (d delegate) ReportFailure(reason string) { d.s.close(reason) }

// CellUsage is dropped: the gRPC protocol carries no cell usage; the host accounts for it.
func (d delegate) CellUsage(codemode.CellID, codemode.CellUsage) {}
