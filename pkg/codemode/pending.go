package codemode

import (
	"context"
	"fmt"
)

// PendingSession is the pending-frontier API: an optional extension of Session for embedders that
// drive a cell step by step instead of by yield deadlines. It mirrors Codex's in-process
// execute_to_pending and wait_to_pending, which no host wire carries; a transport that cannot
// offer it simply does not implement the interface (check with a type assertion).
//
// A cell is quiescent when its JavaScript cannot run now: no tool result and no due timer is
// waiting to be delivered and the last turn queued nothing that is ready at once. A pending
// observer is answered at the first quiescent point with a PendingFrontier, and the cell then
// pauses there: tool results that arrive are held and timers that fall due do not fire, until the
// cell is observed again. WaitToPending resumes it until its next frontier; Wait resumes it for
// good (it then runs like any Execute cell and yields by deadline); Terminate stops it.
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
