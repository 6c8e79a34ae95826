package grpcclient

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// session is the codemode.Session a Provider returns: the current binding (lease) of the session
// and the reconnection to the next epoch when it is lost.
type session struct {
	p        *Provider
	delegate codemode.Delegate
	limits   codemode.SessionCellExecutionLimits

	// opening serializes the opening of bindings: a semaphore of one token (the module's
	// semaphore, docs/adr/0069-one-of-each-mechanism.md).
	opening *semaphore.Weighted

	mu        sync.Mutex
	current   *binding
	nextEpoch uint64
	shutdown  bool

	// closing runs the shutdown once; its done channel exists from the start.
	closing closer
}

var _ codemode.Session = (*session)(nil)

func newSession(p *Provider, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) *session {
	return &session{p: p, delegate: d, limits: limits, opening: semaphore.NewWeighted(1), nextEpoch: 1, closing: closer{done: make(chan struct{})}}
}

// binding returns the live binding, opening the next epoch if the current one was lost.
// Opening is serialized; a session being shut down opens nothing (a caller waiting for the
// token gets it once the shutdown has taken and returned it, and live then fails).
func (s *session) binding(ctx context.Context) (*binding, error) {
	if b, err := s.live(); b != nil || err != nil {
		return b, err
	}
	if err := s.opening.Acquire(ctx, 1); err != nil {
		return nil, context.Cause(ctx)
	}
	defer s.opening.Release(1)
	if b, err := s.live(); b != nil || err != nil {
		return b, err
	}
	s.mu.Lock()
	old := s.current
	epoch := s.nextEpoch
	s.nextEpoch++
	s.mu.Unlock()
	if old != nil {
		_ = old.shutdown(ctx)
	}
	b, err := openBinding(ctx, s.p.opts.ServerTruncation, s.p.transport, epochDelegate{delegate: s.delegate, epoch: epoch}, s.limits, epoch)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		_ = b.shutdown(ctx)
		return nil, codemode.ErrShuttingDown
	}
	s.current = b
	s.mu.Unlock()
	return b, nil
}

// live returns the current binding if it has not stopped; once shutdown began, it fails.
func (s *session) live() (*binding, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return nil, codemode.ErrShuttingDown
	}
	if s.current != nil && !s.current.stopped() {
		return s.current, nil
	}
	return nil, nil
}

// Execute admits a cell on the live binding; its ID is public (epoch-prefixed after a
// reconnection).
func (s *session) Execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	b, err := s.binding(ctx)
	if err != nil {
		return nil, err
	}
	return b.execute(ctx, req)
}

// Wait observes a cell of the live binding's epoch.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	b, err := s.binding(ctx)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	wire, err := RemoteCellID(b.epoch, req.CellID)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	req.CellID = wire
	o, err := b.wait(ctx, req)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	return publicWaitOutcome(b.epoch, o), nil
}

// Terminate stops a cell of the current binding. It never opens a new binding: cleanup must not
// replace a lost host and hide the loss from the next request.
func (s *session) Terminate(ctx context.Context, cell codemode.CellID) (codemode.WaitOutcome, error) {
	s.mu.Lock()
	b, shutdown := s.current, s.shutdown
	s.mu.Unlock()
	if b == nil || shutdown {
		return codemode.WaitOutcome{}, codemode.ErrShuttingDown
	}
	wire, err := RemoteCellID(b.epoch, cell)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	o, err := b.terminate(ctx, wire)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	return publicWaitOutcome(b.epoch, o), nil
}

// Shutdown closes the session on the host and reports every live cell closed. New operations fail
// from its start with codemode.ErrShuttingDown; later calls return the first one's result.
func (s *session) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	return s.closing.close(ctx, func() error {
		// An opening in progress finishes first; then the current binding is shut down.
		_ = s.opening.Acquire(context.Background(), 1) // never fails: the context never ends
		s.mu.Lock()
		b := s.current
		s.mu.Unlock()
		s.opening.Release(1)
		if b == nil {
			return nil
		}
		return b.shutdown(context.Background())
	})
}
