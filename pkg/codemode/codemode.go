// Package codemode is the transport-neutral domain contract of a Code Mode host: sessions that run
// JavaScript cells, the requests and responses they exchange, and the delegate through which a cell
// calls back into the agent that owns the tools.
//
// Every transport (in process, V1 over stdio or WebSocket, gRPC, Connect) serves exactly this
// contract, and the conformance suite in codemodetest checks each of them against it. The package
// imports no transport and no generated code.
//
// # Glossary
//
//   - session: cells that share stored values (store, load), isolated from other sessions.
//   - cell: one script admitted by Execute, named by its CellID within its session.
//   - response: what a cell answers an observer (RuntimeResponse): Yielded (the cell runs on),
//     Result or Terminated (terminal).
//   - initial response: a cell's first response, the future of its StartedCell.
//   - observer: the one request (an initial response, a Wait, a pending observation) a cell
//     answers next; a cell has at most one at a time.
//   - yield: a Yielded response with the output produced since the last one, at the observer's
//     yield time or when the script calls yield_control().
//   - pending frontier: a cell paused where it has nothing to run until a tool call settles
//     (PendingFrontier, PendingSession).
//   - delegate: the owner of the tools, which a cell calls back (Delegate, BlockingDelegate):
//     nested tool calls, notifications, and the closing callbacks CellUsage and CellClosed.
//   - failure report: a failure no response carries, in Codex's words (ReportFailure, the
//     Failure constants).
//   - closed: a cell whose terminal response was delivered; CellClosed follows it, once.
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

// Delegate receives the callbacks of a session's cells (docs/adr/0066-one-delegate-contract.md).
// Methods may be called concurrently.
//
// The two calls a cell makes, StartToolCall and StartNotify, are started, not awaited: they give
// their outcome to done instead of returning it, so a transport can write the request to its
// connection and answer from its reader goroutine, with no goroutine waiting per call. Their rules:
//   - they return promptly: they may write the request to a connection, never wait for the answer;
//   - done is called exactly once, from any goroutine, possibly before the method returns;
//   - once ctx ends (termination, completion, shutdown: the cell no longer needs the outcome),
//     done is called soon, with an error unless the answer came first;
//   - a method that panics before calling done settles its call as a failed task does (Codex's
//     FailureToolTaskPanicked or FailureNotificationTaskPanicked, reported to ReportFailure); the
//     callers contain that through the package's StartToolCall and StartNotify functions.
//
// An owner whose tools block (the usual case) implements BlockingDelegate instead and passes
// FromBlocking(it), which runs each call on a goroutine and contains its failures: a call that
// panics still settles, so the script never waits forever, and the owner hears of it
// (docs/protocol/javascript.md#the-delegate).
// An owner that has no use for failure reports or cell usage embeds DiscardReports.
type Delegate interface {
	// StartToolCall starts a nested tool call; done receives its JSON result (empty means null)
	// or the error that rejects the script's promise with its text.
	StartToolCall(ctx context.Context, call NestedToolCall, done func(json.RawMessage, error))
	// StartNotify starts the delivery of a notify() text from the cell; callID is the exec call's
	// ToolCallID. A runtime starts a cell's notifications in the order the script wrote them
	// among its tool calls; done's error concerns only the transport, never the script.
	StartNotify(ctx context.Context, callID string, cellID CellID, text string, done func(error))
	// CellClosed reports that a cell reached a terminal state and its response was delivered, so
	// the owner can release what it keeps for the cell. It is called exactly once per admitted cell.
	CellClosed(cellID CellID)
	// ReportFailure hears of the failures no response carries: a delegate callback that
	// panicked, a cell's runtime that died, a cell's own goroutine that failed. Codex calls this
	// the session's task failure handler. It may be called concurrently, from any goroutine, and
	// should return quickly; reason is one of Codex's texts (the Failure constants and formats).
	ReportFailure(reason string)
	// CellUsage receives what a cell's runtime spent on it, exactly once per admitted cell, just
	// before CellClosed for the same cell, when the session's runtime measures its cells (the
	// in-process runtime does; a remote transport's client cannot, and never calls it). It must
	// not block: the cell's closing waits for it (codemode.CallCellUsage).
	CellUsage(cellID CellID, usage CellUsage)
}

// DiscardReports gives a Delegate (or BlockingDelegate) that does not listen for them the
// ReportFailure and CellUsage methods, as no-ops: embed it. A session without a listener still
// ends the affected cell or call with an error; nobody else hears of it.
type DiscardReports struct{}

// ReportFailure drops the report.
func (DiscardReports) ReportFailure(string) {}

// CellUsage drops the usage.
func (DiscardReports) CellUsage(CellID, CellUsage) {}

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
