package grpchost

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// Codex's robustness tests that drive a session's dispatch directly
// (code-mode-host/src/grpc/robustness_tests.rs). They run in synctest bubbles, where "a dispatch
// is blocked" is a fact the bubble establishes, not a guess about timing.

// bareSession is a session without a runtime, with execution "execution" admitted as cell "1".
func bareSession(t *testing.T) *session {
	t.Helper()
	s := newSession(New(nil, Options{}), uuid.New())
	t.Cleanup(s.cancel)
	if err := s.reserveExecution("execution"); err != nil {
		t.Fatal(err)
	}
	if err := s.admitExecution("execution", "1", "", func() {}); err != nil {
		t.Fatal(err)
	}
	return s
}

// call is a ToolCall of cell "1" for tool name.
func call(name string) *pb.ToolCall {
	return grpcconv.NestedToolCallToProto(codemode.NestedToolCall{CellID: "1", RuntimeToolCallID: "runtime-call",
		ToolName: codemode.ToolName{Name: name}, ToolKind: codemode.ToolKindFunction})
}

func subscribe(t *testing.T, s *session, filters ...string) *subscription {
	t.Helper()
	var names []*pb.ToolName
	for _, f := range filters {
		names = append(names, &pb.ToolName{Name: f})
	}
	sub, err := s.subscribe(names)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func newInvocation() *invocation { return &invocation{result: make(chan grpcconv.ToolResult, 1)} }

// startDispatch runs a dispatch on a goroutine of the bubble.
func startDispatch(s *session, c *pb.ToolCall) <-chan error {
	out := make(chan error, 1)
	go func() { out <- s.dispatch(context.Background(), c, uuid.New(), newInvocation()) }()
	return out
}

// take receives one call from a subscription's queue, as its stream does.
func take(s *session, sub *subscription) *pb.ToolCall {
	c := <-sub.queue
	s.took()
	return c
}

func TestOversizedEncodedToolInvocationFailsWithoutClosingItsSession(t *testing.T) {
	s := bareSession(t)
	sub := subscribe(t, s)
	big := call("echo")
	big.InputJson = make([]byte, grpcconv.MaxMessageBytes)
	err := s.dispatch(context.Background(), big, uuid.New(), newInvocation())
	if err == nil || err.Error() != "code-mode tool invocation exceeds the 67108864-byte gRPC message limit" {
		t.Fatalf("oversized invocation: %v", err)
	}
	if s.closed() {
		t.Fatal("an oversized invocation closed its session")
	}
	id := uuid.New()
	if err := s.dispatch(context.Background(), call("echo"), id, newInvocation()); err != nil {
		t.Fatal(err)
	}
	if got := take(s, sub); got.GetSequence() != 1 {
		t.Fatalf("delivered %v, want sequence 1 (the oversized call took no number)", got)
	}
}

func TestUnmatchedDispatchFailsAtOnce(t *testing.T) {
	s := bareSession(t)
	subscribe(t, s, "other")
	err := s.dispatch(context.Background(), call("echo"), uuid.New(), newInvocation())
	if err == nil || err.Error() != "no code-mode tool subscription matches the requested tool" {
		t.Fatalf("unmatched dispatch: %v", err)
	}
	if s.closed() {
		t.Fatal("an unmatched call closed its session")
	}
}

func TestMissingSelectedSubscriptionRetriesAnotherMatchingSubscription(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bareSession(t)
		first, second := subscribe(t, s), subscribe(t, s)
		for range subscriptionCapacity {
			first.queue <- &pb.ToolCall{}
			second.queue <- &pb.ToolCall{}
		}
		c := call("echo")
		done := startDispatch(s, c)
		synctest.Wait()
		if len(done) > 0 {
			t.Fatalf("dispatch to full subscriptions returned %v", <-done)
		}
		s.mu.Lock()
		s.state.subscriptions = s.state.subscriptions[1:] // the first one went away
		s.mu.Unlock()
		take(s, first)
		synctest.Wait()
		if len(done) > 0 {
			t.Fatalf("dispatch used a subscription that is gone: %v", <-done)
		}
		take(s, second)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for range subscriptionCapacity - 1 {
			take(s, second)
		}
		if got := take(s, second); got != c {
			t.Fatalf("the surviving subscription delivered %v, want the retried call", got)
		}
	})
}

func TestSaturatedSubscriptionDoesNotBlockIndependentlyFilteredTools(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bareSession(t)
		slow, fast := subscribe(t, s, "slow"), subscribe(t, s, "fast")
		for range subscriptionCapacity {
			if err := s.dispatch(context.Background(), call("slow"), uuid.New(), newInvocation()); err != nil {
				t.Fatal(err)
			}
		}
		blocked := startDispatch(s, call("slow"))
		synctest.Wait()
		if len(blocked) > 0 {
			t.Fatalf("a dispatch to a full subscription returned %v", <-blocked)
		}
		if err := s.dispatch(context.Background(), call("fast"), uuid.New(), newInvocation()); err != nil {
			t.Fatalf("a saturated subscription blocked another tool: %v", err)
		}
		if got := take(s, fast); got.GetToolName().GetName() != "fast" {
			t.Fatalf("fast subscription got %v", got)
		}
		take(s, slow)
		if err := <-blocked; err != nil {
			t.Fatalf("draining the subscription must release its blocked call: %v", err)
		}
	})
}

// A dispatch waiting for capacity gives up when the runtime cancels its call or the session
// closes, with Codex's texts.
func TestBlockedDispatchEndsWithItsCallOrItsSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bareSession(t)
		sub := subscribe(t, s)
		for range subscriptionCapacity {
			sub.queue <- &pb.ToolCall{}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancelled := make(chan error, 1)
		go func() { cancelled <- s.dispatch(ctx, call("echo"), uuid.New(), newInvocation()) }()
		closed := startDispatch(s, call("echo"))
		synctest.Wait()
		cancel()
		if err := <-cancelled; err == nil || err.Error() != "code mode delegate request cancelled" {
			t.Fatalf("cancelled dispatch: %v", err)
		}
		s.cancel()
		if err := <-closed; err == nil || err.Error() != "code-mode session closed before dispatching its tool call" {
			t.Fatalf("dispatch in a closed session: %v", err)
		}
	})
}

func TestDroppingExecutionBeforeAdmissionReleasesItsReservation(t *testing.T) {
	s := newSession(New(nil, Options{}), uuid.New())
	t.Cleanup(s.cancel)
	if err := s.reserveExecution("abandoned"); err != nil {
		t.Fatal(err)
	}
	s.releaseReservation("abandoned")
	err := s.admitExecution("abandoned", "7", "", func() {})
	if err == nil || err.Error() != "canceled: code-mode execution was abandoned" {
		t.Fatalf("admission after abandonment: %v", err)
	}
	s.abandonAdmission("abandoned", "7")
	s.closeCell("7") // the runtime's later closure of the abandoned cell is ignored
	s.mu.Lock()
	pending := len(s.state.pendingClosures)
	s.mu.Unlock()
	if pending != 0 {
		t.Fatalf("the closure of an abandoned cell was kept as pending (%d)", pending)
	}
	if err := s.reserveExecution("abandoned"); err == nil || err.Error() != "already_exists: code-mode execution ID `abandoned` was reused" {
		t.Fatalf("the abandoned execution ID must stay spent: %v", err)
	}
}

// A cell can call tools before Execute has admitted it. The session's bound is still applied in
// the cell's call order: with room for two, the third to fifth calls fail at once, and do not
// take the permits of the first two once those are answered (the race seen once under -race).
func TestSessionDelegateBoundHoldsBeforeTheExecutionIsAdmitted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSession(New(nil, Options{}), uuid.New())
		defer s.cancel()
		s.delegates = newPermits(2)
		if err := s.reserveExecution("execution"); err != nil {
			t.Fatal(err)
		}
		sub := subscribe(t, s)
		results := make(chan error, 5)
		for range 5 {
			newDelegate(s).StartToolCall(context.Background(), codemode.NestedToolCall{CellID: "1", RuntimeToolCallID: "c",
				ToolName: codemode.ToolName{Name: "t"}, ToolKind: codemode.ToolKindFunction},
				func(_ json.RawMessage, err error) { results <- err })
		}
		for range 3 {
			select {
			case err := <-results:
				if !errors.Is(err, errTooManySessionDelegates) {
					t.Fatalf("refused call: %v", err)
				}
			default:
				t.Fatal("a call past the session's bound was not refused when the cell made it")
			}
		}
		if err := s.admitExecution("execution", "1", "", func() {}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			c := take(s, sub)
			if err := s.completeInvocation(uuid.MustParse(c.GetInvocationId()), grpcconv.ToolResult{Output: json.RawMessage(`1`)}); err != nil {
				t.Fatal(err)
			}
			if err := <-results; err != nil {
				t.Fatalf("admitted call: %v", err)
			}
		}
		synctest.Wait()
		select {
		case c := <-sub.queue:
			t.Fatalf("a refused call reached the client: %v", c)
		default:
		}
	})
}
