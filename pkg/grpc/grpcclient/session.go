package grpcclient

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// session is the codemode.Session a Provider returns: the current binding (lease) of the session
// and the reconnection to the next generation when it is lost.
type session struct {
	p        *Provider
	delegate codemode.Delegate
	limits   codemode.SessionCellExecutionLimits

	// opening serializes the opening of bindings: a semaphore of one token (the module's
	// semaphore, docs/adr/0069-one-of-each-mechanism.md).
	opening *semaphore.Weighted

	mu             sync.Mutex
	current        *binding
	nextGeneration uint64
	shutdown       bool

	shutdownOnce sync.Once
	shutdownDone chan struct{}
	shutdownErr  error
}

var _ codemode.Session = (*session)(nil)

func newSession(p *Provider, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) *session {
	return &session{p: p, delegate: d, limits: limits, opening: semaphore.NewWeighted(1), nextGeneration: 1, shutdownDone: make(chan struct{})}
}

// binding returns the live binding, opening the next generation if the current one was lost.
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
	generation := s.nextGeneration
	s.nextGeneration++
	s.mu.Unlock()
	if old != nil {
		_ = old.shutdown(ctx)
	}
	b, err := openBinding(ctx, s.p.opts.ServerTruncation, s.p.transport.client, generationDelegate{delegate: s.delegate, generation: generation}, s.limits, generation)
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

// Execute admits a cell on the live binding; its ID is public (generation-prefixed after a
// reconnection).
func (s *session) Execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	b, err := s.binding(ctx)
	if err != nil {
		return nil, err
	}
	return b.execute(ctx, req)
}

// Wait observes a cell of the live binding's generation.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	b, err := s.binding(ctx)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	wire, err := RemoteCellID(b.generation, req.CellID)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	req.CellID = wire
	o, err := b.wait(ctx, req)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	return publicWaitOutcome(b.generation, o), nil
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
	wire, err := RemoteCellID(b.generation, cell)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	o, err := b.terminate(ctx, wire)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	return publicWaitOutcome(b.generation, o), nil
}

// Shutdown closes the session on the host and reports every live cell closed. New operations fail
// from its start with codemode.ErrShuttingDown; later calls return the first one's result.
func (s *session) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.shutdownOnce.Do(func() { go s.runShutdown() })
	select {
	case <-s.shutdownDone:
		return s.shutdownErr
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// runShutdown waits for an opening in progress, then shuts the current binding down.
func (s *session) runShutdown() {
	defer close(s.shutdownDone)
	_ = s.opening.Acquire(context.Background(), 1) // never fails: the context never ends
	s.mu.Lock()
	b := s.current
	s.mu.Unlock()
	s.opening.Release(1)
	if b != nil {
		b.shutdownRequested.Store(true)
		s.shutdownErr = b.shutdown(context.Background())
	}
}
