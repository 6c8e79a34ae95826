package grpchost_test

import (
	"context"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// blockingProvider is a SessionProvider whose cells never answer on their own: Execute admits a
// cell whose initial response waits until the cell is abandoned or the session shuts down, and
// Wait and Terminate block until their context ends. Tests of limits and of the session's own
// cancellation use it to hold requests in flight cheaply, without a JavaScript engine per cell.
type blockingProvider struct {
	// waiting and terminating, if set, receive a token when a Wait or a Terminate has reached the
	// runtime (so the host holds its permits); waited, when a Wait has given up.
	waiting, terminating, waited chan struct{}
}

func (blockingProvider) Availability() error { return nil }

func (p blockingProvider) CreateSession(_ context.Context, d codemode.Delegate, _ codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	return &blockingSession{p: p, delegate: d, cells: map[codemode.CellID]chan codemode.InitialResult{}}, nil
}

type blockingSession struct {
	p        blockingProvider
	delegate codemode.Delegate
	mu       sync.Mutex
	ids      codemode.CellIDAllocator
	cells    map[codemode.CellID]chan codemode.InitialResult
	shutdown bool
	// closing counts closures under way, which Shutdown waits for: the contract says it returns
	// once every admitted cell has been closed, also when an abandon closed it concurrently.
	closing sync.WaitGroup
}

func (s *blockingSession) Execute(context.Context, codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return nil, codemode.ErrShuttingDown
	}
	id, err := s.ids.Next()
	if err != nil {
		return nil, err
	}
	result := make(chan codemode.InitialResult, 1)
	s.cells[id] = result
	return codemode.NewStartedCell(id, result, func() { s.close(id) }), nil
}

// close ends a cell: its initial response channel closes and the delegate hears of it.
func (s *blockingSession) close(id codemode.CellID) {
	s.mu.Lock()
	result, ok := s.cells[id]
	delete(s.cells, id)
	if ok {
		s.closing.Add(1)
	}
	s.mu.Unlock()
	if ok {
		defer s.closing.Done()
		close(result)
		s.delegate.CellClosed(id)
	}
}

func (s *blockingSession) Wait(ctx context.Context, _ codemode.WaitRequest) (codemode.WaitOutcome, error) {
	signal(s.p.waiting)
	<-ctx.Done()
	signal(s.p.waited)
	return codemode.WaitOutcome{}, ctx.Err()
}

func (s *blockingSession) Terminate(ctx context.Context, _ codemode.CellID) (codemode.WaitOutcome, error) {
	signal(s.p.terminating)
	<-ctx.Done()
	return codemode.WaitOutcome{}, ctx.Err()
}

func (s *blockingSession) Shutdown(context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	ids := make([]codemode.CellID, 0, len(s.cells))
	for id := range s.cells {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.close(id)
	}
	s.closing.Wait()
	return nil
}

// signal sends a token on ch if it is set.
func signal(ch chan struct{}) {
	if ch != nil {
		ch <- struct{}{}
	}
}

// countingProvider wraps a provider and counts, per session and cell, the closures its runtime
// reports: the fault tests check that every cell is closed exactly once, whatever the client did.
type countingProvider struct {
	inner codemode.SessionProvider
	mu    sync.Mutex
	// closed counts closures by session (in creation order) and cell.
	closed []map[codemode.CellID]int
	// changed is broadcast on every closure.
	changed broadcast.Signal
}

func newCountingProvider(inner codemode.SessionProvider) *countingProvider {
	return &countingProvider{inner: inner}
}

func (p *countingProvider) Availability() error { return p.inner.Availability() }

func (p *countingProvider) CreateSession(ctx context.Context, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	p.mu.Lock()
	index := len(p.closed)
	p.closed = append(p.closed, map[codemode.CellID]int{})
	p.mu.Unlock()
	return p.inner.CreateSession(ctx, countingDelegate{Delegate: d, p: p, index: index}, limits)
}

// closures returns a copy of the closures of the index-th session and a channel closed at the
// next closure.
func (p *countingProvider) closures(index int) (map[codemode.CellID]int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[codemode.CellID]int{}
	for id, n := range p.closed[index] {
		out[id] = n
	}
	return out, p.changed.Changed()
}

type countingDelegate struct {
	codemode.Delegate
	p     *countingProvider
	index int
}

func (d countingDelegate) CellClosed(id codemode.CellID) {
	d.p.mu.Lock()
	d.p.closed[d.index][id]++
	d.p.changed.Broadcast()
	d.p.mu.Unlock()
	d.Delegate.CellClosed(id)
}
