// Package codemode is the transport-neutral domain contract of a Code Mode host: sessions that run
// JavaScript cells, the requests and responses they exchange, and the delegate through which a cell
// calls back into the agent that owns the tools.
//
// Every transport (in process, V1 over stdio or WebSocket, gRPC, Connect) serves exactly this
// contract, and the conformance suite in codemodetest checks each of them against it. The package
// imports no transport and no generated code.
package codemode

import (
	"context"
	"encoding/json"
)

// Session runs cells that share stored values. Sessions are isolated from each other.
//
// All methods are safe for concurrent use. Cells of one session run concurrently; each cell has at
// most one observer (a pending Wait or initial response) at a time.
type Session interface {
	// Execute admits a cell and returns at once with its cell ID. The first RuntimeResponse arrives
	// through StartedCell.InitialResponse when the cell yields, completes or is terminated. The
	// yield deadline counts from the moment the cell's runtime has started (Codex's Started event),
	// so start-up never eats into it; a zero yield time answers with an empty Yielded before the
	// script has run.
	Execute(ctx context.Context, req ExecuteRequest) (*StartedCell, error)
	// Wait observes a cell until it yields again or reaches a terminal state. A missing cell is a
	// MissingCell outcome, not an error. If ctx has ended, or ends before the cell answers, Wait
	// returns ctx's error and consumes nothing: output and a buffered completion stay for the next
	// observation.
	Wait(ctx context.Context, req WaitRequest) (WaitOutcome, error)
	// Terminate stops a cell. If the cell already completed but its completion was not yet
	// observed, the completion wins.
	Terminate(ctx context.Context, cellID CellID) (WaitOutcome, error)
	// Shutdown interrupts every cell, refuses new ones, and returns once every admitted cell has
	// been closed.
	Shutdown(ctx context.Context) error
}

// SessionProvider creates sessions. Implementations include the in-process QuickJS provider and
// the clients of every remote transport.
type SessionProvider interface {
	// Availability reports whether the provider can create sessions right now.
	Availability() error
	// CreateSession opens a session whose nested tool calls, notifications and cell closures are
	// reported to delegate. A provider that cannot honour non-default limits must fail with
	// ErrResourceLimitsUnsupported.
	CreateSession(ctx context.Context, delegate Delegate, limits SessionCellExecutionLimits) (Session, error)
}

// Delegate receives the callbacks of a session's cells. Methods may be called concurrently.
type Delegate interface {
	// InvokeTool runs a nested tool call and returns its JSON result. ctx is cancelled when the
	// cell no longer needs the result (termination, completion, shutdown); the delegate should
	// stop its work then.
	InvokeTool(ctx context.Context, call NestedToolCall) (json.RawMessage, error)
	// Notify delivers a notify() text from the cell. callID is the exec call's ToolCallID.
	Notify(ctx context.Context, callID string, cellID CellID, text string) error
	// CellClosed reports that a cell reached a terminal state and its response was delivered, so
	// the owner can release what it keeps for the cell. It is called exactly once per admitted cell.
	CellClosed(cellID CellID)
}

// A Delegate may also implement FailureReporter to hear of failures no response carries.

// SessionCellExecutionLimits bounds the cells of one session. A nil field means no limit.
type SessionCellExecutionLimits struct {
	// MaxYieldTimeMs caps the effective yield time of execute and wait (after the grace period).
	MaxYieldTimeMs *uint64
	// MaxHeapSizeBytes caps a cell's JavaScript heap. Codex ignores it; codemode enforces it.
	MaxHeapSizeBytes *uint64
}

// IsDefault reports whether no limit is set.
func (l SessionCellExecutionLimits) IsDefault() bool {
	return l.MaxYieldTimeMs == nil && l.MaxHeapSizeBytes == nil
}
