package grpchost_test

import (
	"context"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// blockingProvider is a SessionProvider whose cells never answer on their own: Execute admits a
// cell whose initial response waits until the cell is abandoned or the session shuts down, and
// Wait and Terminate block until their context ends. Tests of limits and of the session's own
// cancellation use it to hold requests in flight cheaply, without a JavaScript engine per cell.
type blockingProvider struct{}

func (blockingProvider) Availability() error { return nil }

func (blockingProvider) CreateSession(_ context.Context, d codemode.Delegate, _ codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	return &blockingSession{delegate: d, cells: map[codemode.CellID]chan codemode.InitialResult{}}, nil
}

type blockingSession struct {
	delegate codemode.Delegate
	mu       sync.Mutex
	ids      codemode.CellIDAllocator
	cells    map[codemode.CellID]chan codemode.InitialResult
	shutdown bool
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
	s.mu.Unlock()
	if ok {
		close(result)
		s.delegate.CellClosed(id)
	}
}

func (s *blockingSession) Wait(ctx context.Context, _ codemode.WaitRequest) (codemode.WaitOutcome, error) {
	<-ctx.Done()
	return codemode.WaitOutcome{}, ctx.Err()
}

func (s *blockingSession) Terminate(ctx context.Context, _ codemode.CellID) (codemode.WaitOutcome, error) {
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
	return nil
}
