package v1host

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/internal/recent"
)

// connState is a connection's bookkeeping: its requests, its sessions, whether it is closing
// and its first fatal error. It is plain data under one lock, and does no I/O and starts no
// goroutine, so its rules are unit-tested on their own (connstate_test.go); conn keeps the I/O.
type connState struct {
	mu       sync.Mutex
	closing  bool
	failure  error // the first fatal error
	requests requestRegistry
	sessions map[wirev1.SessionId]*hostSession
	seen     recent.Set[wirev1.SessionId] // session IDs opened on this connection
}

func newConnState() *connState {
	return &connState{
		requests: newRequestRegistry(),
		sessions: map[wirev1.SessionId]*hostSession{},
		seen:     recent.New[wirev1.SessionId](RecentIDs),
	}
}

// startRequest registers request id (see requestRegistry.start).
func (s *connState) startRequest(parent context.Context, id wirev1.RequestId, req wirev1.HostRequest) (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests.start(parent, id, req)
}

// finishRequest retires request id.
func (s *connState) finishRequest(id wirev1.RequestId) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests.finish(id)
}

// cancelRequest applies operation/cancel to request id.
func (s *connState) cancelRequest(id wirev1.RequestId) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests.cancel(id)
}

// yieldRequest applies operation/yield to request id.
func (s *connState) yieldRequest(id wirev1.RequestId) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests.yield(id)
}

// yieldChannel is the channel operation/yield closes for the active request id.
func (s *connState) yieldChannel(id wirev1.RequestId) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests.yieldChannel(id)
}

// recordFailure keeps err if it is the connection's first fatal error.
func (s *connState) recordFailure(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure == nil {
		s.failure = err
	}
}

// firstFailure is the connection's first fatal error, nil if none.
func (s *connState) firstFailure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

// isClosing reports whether the connection takes no new sessions or operations.
func (s *connState) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// stopRequests marks the connection closing and cancels every active request, cancellable or
// not (the connection is ending).
func (s *connState) stopRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	s.requests.cancelAll()
}

// takeSessions marks the connection closing and removes every open session, for the caller
// to shut down; a session opening concurrently is refused by addSession.
func (s *connState) takeSessions() []*hostSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	taken := make([]*hostSession, 0, len(s.sessions))
	for id, hs := range s.sessions {
		taken = append(taken, hs)
		delete(s.sessions, id)
	}
	return taken
}

// session looks an open session up.
func (s *connState) session(id wirev1.SessionId) (*hostSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("unknown code-mode session %s", id)
	}
	return hs, nil
}

// reserveSession admits session/open of id before its session is created: an ID may not be
// open, nor reused within the last RecentIDs opened on this connection (also after shutdown),
// and a closing connection opens nothing. It returns the refusal, nil when admitted; an
// admitted ID counts as seen from then on.
func (s *connState) reserveSession(id wirev1.SessionId) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.sessions[id] != nil:
		return fmt.Errorf("code-mode session ID `%s` is already open", id)
	case s.closing:
		return errors.New(errHostClosing)
	case !s.seen.Remember(id):
		return fmt.Errorf("code-mode session ID `%s` was reused", id)
	}
	return nil
}

// addSession records a created session; false if the connection began closing meanwhile (the
// caller then shuts the session down itself).
func (s *connState) addSession(hs *hostSession) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.sessions[hs.id] = hs
	return true
}

// removeSession removes session id for session/shutdown; false if it is not open.
func (s *connState) removeSession(id wirev1.SessionId) (*hostSession, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs, ok := s.sessions[id]
	delete(s.sessions, id)
	return hs, ok
}
