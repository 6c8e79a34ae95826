package grpchost

import (
	"context"
	"fmt"

	"connectrpc.com/connect/v2"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// reserveExecution records an execution ID before its cell is admitted, refusing one that is in
// use or among the last 4,096 seen.
func (s *session) reserveExecution(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.closed || s.closed() {
		return errSessionClosed()
	}
	if _, pending := s.state.pendingExecutions[id]; pending || s.executionInUse(id) || !s.state.seenExecutions.Remember(id) {
		return connect.NewError(connect.CodeAlreadyExists, fmt.Sprintf("code-mode execution ID `%s` was reused", id))
	}
	s.state.pendingExecutions[id] = struct{}{}
	return nil
}

// executionInUse reports whether an admitted cell runs under execution id; the caller holds mu.
func (s *session) executionInUse(id string) bool {
	for _, e := range s.state.cells {
		if e.id == id {
			return true
		}
	}
	return false
}

// releaseReservation drops a reservation whose cell was never started.
func (s *session) releaseReservation(id string) {
	s.mu.Lock()
	delete(s.state.pendingExecutions, id)
	s.mu.Unlock()
}

// admitExecution maps an admitted cell to its execution. It fails if the execution was abandoned
// meanwhile (its reservation is gone), the session closed, or the runtime reused a live cell ID;
// the caller then calls abandonAdmission and abandons the cell. A closure the runtime reported
// before admission is sent now.
func (s *session) admitExecution(id string, cell codemode.CellID, traceparent string, releaseCell func()) error {
	s.mu.Lock()
	if s.state.closed || s.closed() {
		s.mu.Unlock()
		return errSessionClosed()
	}
	if _, ok := s.state.pendingExecutions[id]; !ok {
		s.mu.Unlock()
		return connect.NewError(connect.CodeCanceled, "code-mode execution was abandoned")
	}
	delete(s.state.pendingExecutions, id)
	if _, taken := s.state.cells[cell]; taken {
		s.mu.Unlock()
		return connect.NewError(connect.CodeInternal, "code-mode runtime reused an active cell ID")
	}
	e := &execution{id: id, traceparent: traceparent, releaseCell: releaseCell}
	s.state.cells[cell] = e
	s.state.cellsChanged.Broadcast()
	_, closedEarly := s.state.pendingClosures[cell]
	if closedEarly {
		delete(s.state.pendingClosures, cell)
		delete(s.state.cells, cell)
	}
	s.mu.Unlock()
	if closedEarly {
		s.sendCellClosed(cell, e)
	}
	return nil
}

// abandonAdmission is admitExecution's failure path: the execution is forgotten and the runtime's
// later closure of its cell will be ignored.
func (s *session) abandonAdmission(id string, cell codemode.CellID) {
	s.mu.Lock()
	delete(s.state.pendingExecutions, id)
	if _, ok := s.state.pendingClosures[cell]; ok {
		delete(s.state.pendingClosures, cell)
	} else if _, admitted := s.state.cells[cell]; !admitted {
		s.state.ignoredClosures[cell] = struct{}{}
	}
	s.mu.Unlock()
}

// closeCell records the runtime's closure of a cell: an admitted cell's CellClosed is sent now;
// a closure before admission waits for it (at most MaxActiveCells of them, or the session closes,
// since a runtime that reports unknown closures without end is broken).
func (s *session) closeCell(cell codemode.CellID) {
	s.mu.Lock()
	e, admitted := s.state.cells[cell]
	switch {
	case admitted:
		delete(s.state.cells, cell)
	case s.takeIgnored(cell):
	case len(s.state.pendingClosures) < s.host.limits.MaxActiveCells:
		s.state.pendingClosures[cell] = struct{}{}
	default:
		s.mu.Unlock()
		s.close(fmt.Sprintf("the runtime closed more than %d unknown cells", s.host.limits.MaxActiveCells))
		return
	}
	s.mu.Unlock()
	if admitted {
		s.sendCellClosed(cell, e)
	}
}

// takeIgnored consumes an ignored closure; the caller holds mu.
func (s *session) takeIgnored(cell codemode.CellID) bool {
	if _, ok := s.state.ignoredClosures[cell]; !ok {
		return false
	}
	delete(s.state.ignoredClosures, cell)
	return true
}

// sendCellClosed queues an execution's CellClosed and returns its active-cell permit.
func (s *session) sendCellClosed(cell codemode.CellID, e *execution) {
	s.sendEvent(&pb.SessionEvent{Event: &pb.SessionEvent_CellClosed{CellClosed: &pb.CellClosed{
		ExecutionId: e.id, CellId: string(cell), FinalToolCallSequence: e.sequence,
	}}})
	s.host.log.Debug("code-mode cell closed", "session_id", s.idText, "cell_id", string(cell))
	e.releaseCell()
}

// terminateInBackground stops a cell whose observer went away with the cell still live.
func (s *session) terminateInBackground(cell codemode.CellID) {
	s.spawn(func() {
		ctx, cancel := s.bind(context.Background())
		defer cancel()
		if _, err := s.runtime.Terminate(ctx, cell); err != nil && !s.closed() {
			s.host.log.Debug("abandoned code-mode execution termination raced its closure", "session_id", s.idText, "cell_id", string(cell), "error", err)
		}
	})
}
