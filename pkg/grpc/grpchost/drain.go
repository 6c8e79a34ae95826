package grpchost

import (
	"context"
	"sync"

	"connectrpc.com/connect/v2"
)

// Drain ends the host on purpose, as a host process does when it is told to stop, and as V1's
// host drains: new sessions and new Execute, Wait and Terminate requests are refused with
// UNAVAILABLE "code-mode host is shutting down", every running cell is terminated, and each
// Execute or Wait in progress answers with its outcome — Terminated, with the output so far —
// before the sessions close (Close: each lease reports CellClosed for its cells, then ends).
// It returns Close's error, or ctx's if the outcomes were not all delivered by then.
func (h *Host) Drain(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	sessions := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() { s.drain(ctx) })
	}
	wg.Wait()
	return h.Close(ctx)
}

// drain stops new observations, terminates the session's cells through the runtime (each
// observation in progress then receives its cell's terminated outcome, since the session itself
// is still open) and waits until those observations have answered, or ctx ends.
func (s *session) drain(ctx context.Context) {
	gone := s.stopObservations()
	if s.runtime != nil {
		if err := s.runtime.Shutdown(ctx); err != nil {
			s.host.log.Warn("code-mode gRPC session did not stop its cells while draining", "session_id", s.idText, "error", err)
		}
	}
	select {
	case <-gone:
	case <-ctx.Done():
	}
}

// beginObservation admits an Execute, Wait or Terminate on the session and returns the function
// that ends it; while the host drains it is refused.
func (s *session) beginObservation() (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.draining {
		return nil, errShuttingDown()
	}
	s.state.observing++
	return s.endObservation, nil
}

// endObservation ends an observation; the last one of a draining session closes observersGone.
func (s *session) endObservation() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.observing--
	if s.state.observing == 0 && s.state.observersGone != nil {
		close(s.state.observersGone)
		s.state.observersGone = nil
	}
}

// stopObservations refuses new observations and returns a channel closed once none is in
// progress.
func (s *session) stopObservations() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.draining = true
	gone := make(chan struct{})
	if s.state.observing == 0 {
		close(gone)
	} else {
		s.state.observersGone = gone
	}
	return gone
}

// errShuttingDown is the status of what a draining host refuses (Codex's text for a host that
// stops).
func errShuttingDown() error {
	return connect.NewError(connect.CodeUnavailable, "code-mode host is shutting down")
}
