package grpchost

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// subscriptionCapacity is how many dispatched calls a subscription buffers before the next one
// waits (Codex's OUTGOING_CHANNEL_CAPACITY); it is also the most subscriptions a session has.
const subscriptionCapacity = 128

// subscription is one SubscribeToToolCalls stream.
type subscription struct {
	id uint64
	// filters are canonical (default namespace aliased); empty matches every tool.
	filters []codemode.ToolName
	queue   chan *pb.ToolCall
}

// matches reports whether the subscription takes calls of the canonical name.
func (sub *subscription) matches(name codemode.ToolName) bool {
	if len(sub.filters) == 0 {
		return true
	}
	for _, f := range sub.filters {
		if f.Name == name.Name && *f.Namespace == *name.Namespace {
			return true
		}
	}
	return false
}

// invocation is a dispatched tool call waiting for its CompleteToolCall.
type invocation struct {
	sub *subscription
	// result receives the answer of a call invokeHeld waits for; settle takes it instead for a
	// call StartToolCall dispatched at once.
	result chan grpcconv.ToolResult
	settle func(grpcconv.ToolResult)
}

// deliver hands the invocation its answer, outside the session's lock.
func (inv *invocation) deliver(r grpcconv.ToolResult) {
	if inv.settle != nil {
		inv.settle(r)
		return
	}
	inv.result <- r
}

// subscribe registers a subscription with filters already checked.
func (s *session) subscribe(filters []*pb.ToolName) (*subscription, error) {
	sub := &subscription{queue: make(chan *pb.ToolCall, subscriptionCapacity)}
	for _, f := range filters {
		sub.filters = append(sub.filters, grpcconv.ToolNameFromProto(f).WithDefaultNamespace())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.closed || s.closed() {
		return nil, errSessionClosed()
	}
	if len(s.state.subscriptions) >= subscriptionCapacity {
		return nil, connect.NewError(connect.CodeResourceExhausted, "code-mode session has too many tool subscriptions")
	}
	s.state.nextSubID++
	sub.id = s.state.nextSubID
	s.state.subscriptions = append(s.state.subscriptions, sub)
	return sub, nil
}

// unsubscribe removes a subscription whose stream ended. If it held calls the client never
// answered, the session closes: replaying them could run a tool twice, and dropping them would
// leave a gap in their execution's sequence.
func (s *session) unsubscribe(sub *subscription) {
	s.mu.Lock()
	for i, other := range s.state.subscriptions {
		if other == sub {
			s.state.subscriptions = append(s.state.subscriptions[:i], s.state.subscriptions[i+1:]...)
			break
		}
	}
	var abandoned []*invocation
	for id, inv := range s.state.invocations {
		if inv.sub == sub {
			abandoned = append(abandoned, inv)
			delete(s.state.invocations, id)
		}
	}
	s.mu.Unlock()
	if len(abandoned) == 0 {
		return
	}
	s.close("a tool subscription closed with unanswered tool calls")
	for _, inv := range abandoned {
		inv.deliver(grpcconv.ToolResult{Failed: true, Failure: "code-mode tool subscription closed before returning tool output"})
	}
}

// took tells dispatches waiting for capacity that a subscription took a call from its queue.
func (s *session) took() {
	if s.spaceWaiters.Load() == 0 {
		return
	}
	s.mu.Lock()
	s.state.spaceFreed.Broadcast()
	s.mu.Unlock()
}

// Errors a dispatch fails the cell's tool call with (the script sees the text).
var (
	errNoSubscription        = errors.New("no code-mode tool subscription matches the requested tool")
	errCellClosedDispatch    = errors.New("code-mode cell closed before dispatching its tool call")
	errSessionClosedDispatch = errors.New("code-mode session closed before dispatching its tool call")
	errDelegateCancelled     = errors.New("code mode delegate request cancelled")
	errInvocationTooLarge    = fmt.Errorf("code-mode tool invocation exceeds the %d-byte gRPC message limit", grpcconv.MaxMessageBytes)
)

// dispatch hands a call to one matching subscription: round robin, starting after the one used
// last, the first with room in its queue. With none matching it fails at once; with all matching
// queues full it waits. The sequence is assigned at delivery, so a call that waits takes the
// number of its turn.
func (s *session) dispatch(ctx context.Context, call *pb.ToolCall, id uuid.UUID, inv *invocation) error {
	name := grpcconv.ToolNameFromProto(call.GetToolName()).WithDefaultNamespace()
	cell := codemode.CellID(call.GetCellId())
	waiting := false
	defer func() {
		if waiting {
			s.spaceWaiters.Add(-1)
		}
	}()
	for {
		s.mu.Lock()
		if !waiting {
			// Counted before the first attempt, so a queue freed after a failed attempt wakes us.
			waiting = true
			s.spaceWaiters.Add(1)
		}
		freed, err := s.tryDispatch(call, name, cell, id, inv)
		s.mu.Unlock()
		if err != nil || freed == nil {
			return err
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return errDelegateCancelled
		case <-s.ctx.Done():
			return errSessionClosedDispatch
		}
	}
}

// dispatchNow is one attempt of dispatch that never waits: full reports that every matching
// queue is full (dispatch then waits for room).
func (s *session) dispatchNow(call *pb.ToolCall, id uuid.UUID, inv *invocation) (full bool, err error) {
	name := grpcconv.ToolNameFromProto(call.GetToolName()).WithDefaultNamespace()
	s.mu.Lock()
	defer s.mu.Unlock()
	freed, err := s.tryDispatch(call, name, codemode.CellID(call.GetCellId()), id, inv)
	return freed != nil, err
}

// tryDispatch is one attempt of dispatch; the caller holds mu. It returns a channel to wait on
// when every matching queue is full.
func (s *session) tryDispatch(call *pb.ToolCall, name codemode.ToolName, cell codemode.CellID, id uuid.UUID, inv *invocation) (<-chan struct{}, error) {
	if s.state.closed || s.closed() {
		return nil, errSessionClosedDispatch
	}
	e, ok := s.state.cells[cell]
	if !ok {
		return nil, errCellClosedDispatch
	}
	call.Sequence = e.sequence + 1
	if proto.Size(call) > grpcconv.MaxMessageBytes {
		return nil, errInvocationTooLarge
	}
	subs := s.state.subscriptions
	matched := false
	for offset := range subs {
		i := (s.state.nextSubscription + offset) % len(subs)
		sub := subs[i]
		if !sub.matches(name) {
			continue
		}
		matched = true
		select {
		case sub.queue <- call:
			e.sequence++
			inv.sub = sub
			s.state.invocations[id] = inv
			s.state.seenInvocations.Remember(id)
			s.state.nextSubscription = (i + 1) % len(subs)
			return nil, nil
		default:
		}
	}
	if !matched {
		return nil, errNoSubscription
	}
	return s.state.spaceFreed.Changed(), nil
}

// completeInvocation delivers a CompleteToolCall. An invocation that was dispatched but is no
// longer pending (cancelled, or its subscription closed) is acknowledged and ignored.
func (s *session) completeInvocation(id uuid.UUID, result grpcconv.ToolResult) error {
	s.mu.Lock()
	inv, pending := s.state.invocations[id]
	if pending {
		delete(s.state.invocations, id)
	}
	seen := s.state.seenInvocations.Contains(id)
	s.mu.Unlock()
	switch {
	case pending:
		inv.deliver(result)
	case !seen:
		return connect.NewError(connect.CodeNotFound, fmt.Sprintf("unknown code-mode tool invocation %s", id))
	}
	return nil
}

// cancelInvocation withdraws a pending invocation whose call the runtime abandoned and tells the
// client, which may not have seen the call yet (a separate stream).
func (s *session) cancelInvocation(id uuid.UUID) {
	s.mu.Lock()
	_, pending := s.state.invocations[id]
	delete(s.state.invocations, id)
	s.mu.Unlock()
	if pending {
		s.sendEvent(&pb.SessionEvent{Event: &pb.SessionEvent_ToolCallCancelled{ToolCallCancelled: &pb.ToolCallCancelled{InvocationId: id.String()}}})
	}
}
