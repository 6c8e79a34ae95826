package grpchost

import (
	"context"
	"fmt"

	"connectrpc.com/connect/v2"
)

// activeWait is a Wait in progress, registered under its client-chosen wait ID so CancelWait can
// stop it.
type activeWait struct {
	ctx    context.Context
	cancel context.CancelFunc
	// retired is closed once the Wait has returned, which CancelWait waits for.
	retired chan struct{}
	// yield ends the Wait's observation early (YieldObservation).
	yield *yieldSwitch
}

// errWaitCancelled is the status of a Wait that CancelWait stopped, before or during it.
func errWaitCancelled() error {
	return connect.NewError(connect.CodeCanceled, "code-mode wait was cancelled")
}

// registerWait records a Wait's ID, refusing one among the last 4,096 seen, and fails at once if
// a CancelWait for it arrived first. The returned wait is bound to parent and to the session.
func (s *session) registerWait(parent context.Context, id string) (*activeWait, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.closed || s.closed() {
		return nil, errSessionClosed()
	}
	if _, active := s.state.waits[id]; active || !s.state.seenWaits.Remember(id) {
		return nil, connect.NewError(connect.CodeAlreadyExists, fmt.Sprintf("code-mode wait ID `%s` was reused", id))
	}
	if s.state.cancelledWaits.Remove(id) {
		return nil, errWaitCancelled()
	}
	ctx, cancel := s.bind(parent)
	w := &activeWait{ctx: ctx, cancel: cancel, retired: make(chan struct{}), yield: newYieldSwitch()}
	if s.state.yieldedWaits.Remove(id) {
		w.yield.fire()
	}
	s.state.waits[id] = w
	return w, nil
}

// retireWait removes a finished Wait and releases the CancelWait waiting for it.
func (s *session) retireWait(id string, w *activeWait) {
	s.mu.Lock()
	if s.state.waits[id] == w {
		delete(s.state.waits, id)
	}
	s.mu.Unlock()
	w.cancel()
	close(w.retired)
}

// cancelWait stops the Wait registered as id and returns once it has retired, so the client's
// next Wait on the cell cannot meet the old observer. An ID not (yet) registered is remembered:
// the Wait it names fails at once when it arrives.
func (s *session) cancelWait(ctx context.Context, id string) error {
	s.mu.Lock()
	w, active := s.state.waits[id]
	if !active {
		s.state.cancelledWaits.Remember(id)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	w.cancel()
	select {
	case <-w.retired:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
