package v1host

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// connState's rules, without a connection, a transport or a goroutine: the end-to-end
// behaviour is in the conformance suite; these pin the bookkeeping that decides it.

func TestConnStateRefusesAnOpenSessionIDAndAReusedOne(t *testing.T) {
	s := newConnState()
	if err := s.reserveSession("a"); err != nil {
		t.Fatalf("first open: %v", err)
	}
	if !s.addSession(&hostSession{id: "a"}) {
		t.Fatal("addSession on an open connection: want true")
	}
	assertErrText(t, s.reserveSession("a"), "code-mode session ID `a` is already open")
	if _, ok := s.removeSession("a"); !ok {
		t.Fatal("removeSession of an open session: want true")
	}
	assertErrText(t, s.reserveSession("a"), "code-mode session ID `a` was reused")
	if _, err := s.session("a"); err == nil {
		t.Fatal("session after shutdown: want an error")
	}
}

func TestConnStateForgetsSessionIDsBeyondRecentIDs(t *testing.T) {
	s := newConnState()
	ids := make([]wirev1.SessionId, RecentIDs+1)
	for i := range ids {
		ids[i] = wirev1.SessionId(fmt.Sprintf("s%d", i))
		if err := s.reserveSession(ids[i]); err != nil {
			t.Fatalf("open %d (%s): %v", i, ids[i], err)
		}
	}
	if err := s.reserveSession(ids[0]); err != nil {
		t.Fatalf("the oldest ID, %d opens later: %v", RecentIDs, err)
	}
	assertErrText(t, s.reserveSession(ids[RecentIDs]), "code-mode session ID `"+string(ids[RecentIDs])+"` was reused")
}

func TestConnStateClosingTakesEverySessionAndRefusesNewOnes(t *testing.T) {
	s := newConnState()
	for _, id := range []wirev1.SessionId{"a", "b"} {
		if err := s.reserveSession(id); err != nil {
			t.Fatal(err)
		}
		s.addSession(&hostSession{id: id})
	}
	// "c" was admitted before the connection began closing; its session is created after.
	if err := s.reserveSession("c"); err != nil {
		t.Fatal(err)
	}
	if taken := s.takeSessions(); len(taken) != 2 {
		t.Fatalf("takeSessions: %d sessions, want 2", len(taken))
	}
	if s.addSession(&hostSession{id: "c"}) {
		t.Fatal("addSession after closing began: want false (the caller shuts it down)")
	}
	assertErrText(t, s.reserveSession("d"), errHostClosing)
	if taken := s.takeSessions(); len(taken) != 0 {
		t.Fatalf("second takeSessions: %d sessions, want none", len(taken))
	}
	if !s.isClosing() {
		t.Fatal("isClosing after takeSessions: want true")
	}
}

func TestConnStateStopRequestsCancelsEveryRequest(t *testing.T) {
	s := newConnState()
	execCtx, err := s.startRequest(context.Background(), 1, wirev1.Execute{})
	if err != nil {
		t.Fatal(err)
	}
	openCtx, err := s.startRequest(context.Background(), 2, wirev1.OpenSession{})
	if err != nil {
		t.Fatal(err)
	}
	s.cancelRequest(2) // operation/cancel leaves a session/open alone
	if openCtx.Err() != nil {
		t.Fatal("operation/cancel ended a session/open")
	}
	s.stopRequests()
	if execCtx.Err() == nil || openCtx.Err() == nil {
		t.Fatal("stopRequests left a request running")
	}
	if !s.isClosing() {
		t.Fatal("isClosing after stopRequests: want true")
	}
}

func TestConnStateRequestIDsAreNotReusable(t *testing.T) {
	s := newConnState()
	if _, err := s.startRequest(context.Background(), 7, wirev1.Wait{}); err != nil {
		t.Fatal(err)
	}
	_, err := s.startRequest(context.Background(), 7, wirev1.Wait{})
	assertErrText(t, err, "duplicate code-mode request ID RequestId(7)")
	s.finishRequest(7)
	_, err = s.startRequest(context.Background(), 7, wirev1.Wait{})
	assertErrText(t, err, "duplicate code-mode request ID RequestId(7)")
}

func TestConnStateYieldClosesTheChannelOnce(t *testing.T) {
	s := newConnState()
	if _, err := s.startRequest(context.Background(), 3, wirev1.Wait{}); err != nil {
		t.Fatal(err)
	}
	ch := s.yieldChannel(3)
	s.yieldRequest(3)
	s.yieldRequest(3) // a repeated yield is ignored, not a double close
	select {
	case <-ch:
	default:
		t.Fatal("operation/yield left the yield channel open")
	}
	if s.yieldChannel(99) != nil {
		t.Fatal("an unknown request has a yield channel")
	}
}

func TestConnStateKeepsTheFirstFailure(t *testing.T) {
	s := newConnState()
	if s.firstFailure() != nil {
		t.Fatal("a new connection has a failure")
	}
	first := errors.New("first")
	s.recordFailure(first)
	s.recordFailure(errors.New("second"))
	if s.firstFailure() != first {
		t.Fatalf("firstFailure = %v, want the first", s.firstFailure())
	}
}

func assertErrText(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
