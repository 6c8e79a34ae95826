package codemode

import (
	"context"
	"fmt"
)

// PendingSession is the pending-frontier API: an optional extension of Session for embedders that
// drive a cell step by step instead of by yield deadlines (docs/protocol/javascript.md#the-pending-frontier,
// ADR 0025). No host wire carries it (Codex offers execute_to_pending and wait_to_pending in process
// only), so a transport that cannot offer it simply does not implement the interface (check with a
// type assertion).
//
// A cell is quiescent when its JavaScript cannot run now: no tool result and no due timer is
// waiting to be delivered and the last turn queued nothing that is ready at once. A cell is in
// pending mode from ExecuteToPending, or from its first WaitToPending, until a Wait attaches. In
// pending mode it pauses whenever it becomes quiescent: tool results that arrive are held and
// timers that fall due do not fire. The frontier goes to the waiting pending observer or, if it
// gave up (its ctx ended), to the next one, at once. WaitToPending resumes a cell paused at a
// frontier that was already handed over, until its next frontier; Wait takes the cell out of
// pending mode and resumes it for good (it then yields by deadline like any Execute cell);
// Terminate stops it.
//
// A frontier reflects the results that reached the cell: a result a delegate is returning at that
// very moment may arrive just after it, and is delivered when the cell resumes.
type PendingSession interface {
	Session
	// ExecuteToPending admits a cell and runs it to its first frontier, or to its end when it
	// finishes first. The request's YieldTimeMs is ignored: a frontier, not a deadline, answers.
	//
	// If ctx ends first (or has already ended), ExecuteToPending returns an *UnobservedCellError
	// that wraps ctx's error and names the cell: the cell was admitted and keeps running with no
	// observer, and nothing it produced is consumed. Observe it with Wait, WaitToPending or
	// Terminate.
	ExecuteToPending(ctx context.Context, req ExecuteRequest) (ExecuteToPendingOutcome, error)
	// WaitToPending observes a cell until its next frontier or its end, resuming it first if it is
	// paused. A missing cell is a Missing outcome; a cell that already has an observer fails with
	// CellHasObserver. If ctx ends first, the observation is dropped without consuming anything.
	WaitToPending(ctx context.Context, req WaitToPendingRequest) (WaitToPendingOutcome, error)
}

// WaitToPendingRequest asks to observe a cell until its next pending frontier.
type WaitToPendingRequest struct {
	CellID CellID
}

// PendingFrontier is a cell paused at a quiescent point.
type PendingFrontier struct {
	CellID CellID
	// ContentItems is the output since the previous observation.
	ContentItems []ContentItem
	// PendingToolCallIDs are the RuntimeToolCallIDs ("tool-N") of the cell's tool calls that are
	// still awaiting their result and that no earlier frontier listed, in call order.
	PendingToolCallIDs []string
}

// ExecuteToPendingOutcome is either a frontier (Completed false) or the terminal response of a
// cell that finished before it became quiescent (Completed true).
type ExecuteToPendingOutcome struct {
	// Completed reports that the cell reached a terminal state; Response holds that response.
	Completed bool
	Response  RuntimeResponse
	// Frontier is where the cell paused; set when Completed is false.
	Frontier PendingFrontier
}

// PendingOutcome wraps a frontier.
func PendingOutcome(f PendingFrontier) ExecuteToPendingOutcome {
	return ExecuteToPendingOutcome{Frontier: f}
}

// CompletedOutcome wraps the terminal response of a cell.
func CompletedOutcome(r RuntimeResponse) ExecuteToPendingOutcome {
	return ExecuteToPendingOutcome{Completed: true, Response: r}
}

// CellID returns the cell the outcome is about.
func (o ExecuteToPendingOutcome) CellID() CellID {
	if o.Completed {
		return o.Response.CellID
	}
	return o.Frontier.CellID
}

// WaitToPendingOutcome is the result of WaitToPending.
type WaitToPendingOutcome struct {
	// Missing is true when the cell was unknown or already closed; Outcome is then the Completed
	// outcome holding the MissingCell response.
	Missing bool
	Outcome ExecuteToPendingOutcome
}

// LivePendingCell wraps the outcome of a cell that existed.
func LivePendingCell(o ExecuteToPendingOutcome) WaitToPendingOutcome {
	return WaitToPendingOutcome{Outcome: o}
}

// MissingPendingCellOutcome is the WaitToPending outcome for a cell that does not exist (any more).
func MissingPendingCellOutcome(id CellID) WaitToPendingOutcome {
	return WaitToPendingOutcome{Missing: true, Outcome: CompletedOutcome(MissingCellOutcome(id).Response)}
}

// UnobservedCellError is returned by ExecuteToPending when its ctx ended before the cell's first
// frontier: the cell named by CellID was admitted and keeps running without an observer.
type UnobservedCellError struct {
	CellID CellID
	// Err is the ctx's error.
	Err error
}

// Error says which cell was left running and why.
func (e *UnobservedCellError) Error() string {
	return fmt.Sprintf("exec cell %s keeps running unobserved: %v", e.CellID, e.Err)
}

// Unwrap returns the ctx's error, so errors.Is(err, context.Canceled) works.
func (e *UnobservedCellError) Unwrap() error { return e.Err }
