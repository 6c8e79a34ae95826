package grpchost

import (
	"context"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// acceptAcknowledgements reports whether an OpenSession asked for acknowledged notifications
// (grpcconv.AcknowledgementsHeader) and, if so, confirms it on the response.
func acceptAcknowledgements(ctx context.Context) bool {
	info, ok := connect.CallInfoForServerContext(ctx)
	if !ok || info.RequestHeader().Get(grpcconv.AcknowledgementsHeader) != "true" {
		return false
	}
	info.ResponseHeader().Set(grpcconv.AcknowledgementsHeader, "true")
	return true
}

// expectAck registers a notification whose acknowledgement the session waits for.
func (s *session) expectAck(id uuid.UUID) <-chan struct{} {
	ack := make(chan struct{})
	s.mu.Lock()
	s.state.pendingAcks[id] = ack
	s.mu.Unlock()
	return ack
}

// forgetAck drops a registration that will not be waited for any more.
func (s *session) forgetAck(id uuid.UUID) {
	s.mu.Lock()
	delete(s.state.pendingAcks, id)
	s.mu.Unlock()
}

// acknowledge releases the notification that waits for id; an unknown ID is accepted, since an
// acknowledgement may come after its notification was cancelled or released, and a client must not
// fail for that race.
func (s *session) acknowledge(id uuid.UUID) {
	s.mu.Lock()
	ack, ok := s.state.pendingAcks[id]
	delete(s.state.pendingAcks, id)
	s.mu.Unlock()
	if ok {
		close(ack)
	}
}
