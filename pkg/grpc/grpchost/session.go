package grpchost

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
	"github.com/codemodehq/codemode/pkg/internal/recent"
)

// session is one leased session: the provider's session that runs its cells, and what the
// protocol keeps around it (executions, subscriptions, pending invocations, waits, the lease's
// event queue).
type session struct {
	id      uuid.UUID
	idText  string
	host    *Host
	runtime codemode.Session
	events  *eventQueue
	// acks is set when the client acknowledges notifications (grpcconv.AcknowledgementsHeader).
	acks bool
	// options are what OpenSession asked of the session (Codex 0.169).
	options sessionOptions
	// delegates bounds the session's pending callbacks when options.maxDelegates is set.
	delegates permits
	// cells is the session's share of the host's active cells.
	cells permits

	// ctx ends when the session closes: the lease dropped, CloseSession, a subscription lost an
	// unanswered call, the runtime failed, or the host shut down. Everything that waits on the
	// session selects on it.
	ctx    context.Context
	cancel context.CancelFunc

	shutdownOnce sync.Once
	shutdownDone chan struct{}
	shutdownErr  error
	// tasks counts the session's background goroutines (terminations of abandoned cells), which
	// shutdown waits for.
	tasks sync.WaitGroup

	// spaceWaiters mirrors, for a lock-free check, how many dispatches wait for subscription
	// capacity.
	spaceWaiters atomic.Int64

	mu    sync.Mutex
	state sessionState
}

// sessionState is what session.mu guards.
type sessionState struct {
	closed bool
	// cells are the admitted executions by cell ID.
	cells map[codemode.CellID]*execution
	// pendingExecutions are reserved execution IDs whose cell is not admitted yet.
	pendingExecutions map[string]struct{}
	seenExecutions    recent.Set[string]
	// pendingClosures are runtime closures of cells not admitted yet (the runtime may report a
	// closure before Execute has recorded the cell); ignoredClosures are cells whose execution
	// was abandoned before admission.
	pendingClosures map[codemode.CellID]struct{}
	ignoredClosures map[codemode.CellID]struct{}
	// cellsChanged is broadcast on every admission, waking callbacks that wait for their cell's
	// execution.
	cellsChanged broadcast.Signal

	subscriptions    []*subscription
	nextSubscription int
	nextSubID        uint64
	// spaceFreed is broadcast when a subscription takes a call from its queue while dispatches
	// wait for capacity.
	spaceFreed broadcast.Signal

	invocations     map[uuid.UUID]*invocation
	seenInvocations recent.Set[uuid.UUID]

	waits map[string]*activeWait
	// executeYields are the early-yield signals of the Executes waiting for their outcome, by
	// execution ID.
	executeYields  map[string]*yieldSwitch
	seenWaits      recent.Set[string]
	cancelledWaits recent.Set[string]
	// yieldedWaits are wait IDs a YieldObservation named before their Wait arrived (the two
	// RPCs race): that Wait yields at once.
	yieldedWaits recent.Set[string]

	// pendingAcks are the notifications waiting for their acknowledgement.
	pendingAcks map[uuid.UUID]chan struct{}

	// observing counts the Execute, Wait and Terminate requests in progress (drain.go); once
	// draining is set no new one starts, and observersGone is closed when the count is zero.
	observing     int
	draining      bool
	observersGone chan struct{}
}

// execution is an admitted cell.
type execution struct {
	id          string
	traceparent string
	// sequence is the last ToolCall.sequence issued.
	sequence uint64
	// releaseCell returns the host's active-cell permit.
	releaseCell func()
}

// errSessionClosed is the status of requests that meet a closed session.
func errSessionClosed() error {
	return connect.NewError(connect.CodeCanceled, "code-mode session is closed")
}

func newSession(h *Host, id uuid.UUID) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{
		id:           id,
		idText:       id.String(),
		host:         h,
		events:       newEventQueue(),
		ctx:          ctx,
		cancel:       cancel,
		shutdownDone: make(chan struct{}),
		cells:        newPermits(h.limits.MaxActiveCellsPerSession),
		state: sessionState{
			cells:             make(map[codemode.CellID]*execution),
			pendingExecutions: make(map[string]struct{}),
			pendingClosures:   make(map[codemode.CellID]struct{}),
			ignoredClosures:   make(map[codemode.CellID]struct{}),
			invocations:       make(map[uuid.UUID]*invocation),
			waits:             make(map[string]*activeWait),
			executeYields:     make(map[string]*yieldSwitch),
			pendingAcks:       make(map[uuid.UUID]chan struct{}),
		},
	}
}

// closed reports whether the session has closed.
func (s *session) closed() bool { return s.ctx.Err() != nil }

// bind returns a context that ends when parent ends or the session closes.
func (s *session) bind(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// close closes the session without waiting for its shutdown; the lease watcher runs it.
func (s *session) close(reason string) {
	if !s.closed() {
		s.host.log.Warn("code-mode host session failed", "session_id", s.idText, "reason", reason)
	}
	s.cancel()
}

// shutdown closes the session and shuts its runtime down; concurrent and later calls wait for the
// first. ctx bounds the wait, not the shutdown.
func (s *session) shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() { go s.runShutdown() })
	select {
	case <-s.shutdownDone:
		return s.shutdownErr
	case <-ctx.Done():
		return connect.NewError(connect.CodeDeadlineExceeded, "timed out shutting down code-mode gRPC session")
	}
}

// runShutdown is the one shutdown of the session: stop accepting work, interrupt the runtime's
// cells (which reports each closure), end the lease, then release what is left.
func (s *session) runShutdown() {
	defer close(s.shutdownDone)
	s.cancel()
	s.mu.Lock()
	s.state.closed = true
	for _, w := range s.state.waits {
		w.cancel()
	}
	clear(s.state.invocations)
	s.state.subscriptions = nil
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if s.runtime != nil {
		if err := s.runtime.Shutdown(ctx); err != nil {
			s.shutdownErr = connect.NewError(connect.CodeInternal, fmt.Sprintf("failed to shut down code-mode session: %v", err))
		}
	}
	s.tasks.Wait()
	s.events.close()
	s.releaseCells()
}

// releaseCells returns the permits of cells whose closure the runtime never reported.
func (s *session) releaseCells() {
	s.mu.Lock()
	cells := s.state.cells
	s.state.cells = make(map[codemode.CellID]*execution)
	s.mu.Unlock()
	for _, e := range cells {
		e.releaseCell()
	}
}

// spawn runs f as a session task unless the session is closed.
func (s *session) spawn(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.closed || s.closed() {
		return false
	}
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		f()
	}()
	return true
}

// errCellClosedBeforeAdmission and its siblings are the texts a cell's callback fails with when it
// cannot learn its execution.
var (
	errClosedBeforeAdmission    = errors.New("code-mode session closed before cell admission")
	errCancelledBeforeAdmission = errors.New("code-mode callback was cancelled before cell admission")
)

// knownExecution returns the execution of cell if it is announced already.
func (s *session) knownExecution(cell codemode.CellID) (execution, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.state.cells[cell]; ok {
		return *e, true
	}
	return execution{}, false
}

// awaitExecution returns the execution of cell, waiting for its admission: the runtime can call
// back before Execute has recorded the cell it admitted.

func (s *session) awaitExecution(ctx context.Context, cell codemode.CellID) (execution, error) {
	for {
		s.mu.Lock()
		if e, ok := s.state.cells[cell]; ok {
			snapshot := *e
			s.mu.Unlock()
			return snapshot, nil
		}
		changed := s.state.cellsChanged.Changed()
		s.mu.Unlock()
		select {
		case <-changed:
		case <-s.ctx.Done():
			return execution{}, errClosedBeforeAdmission
		case <-ctx.Done():
			return execution{}, errCancelledBeforeAdmission
		}
	}
}

// sendEvent queues an event that never waits (see eventQueue.pushNow).
func (s *session) sendEvent(e *pb.SessionEvent) {
	s.events.pushNow(e)
}
