package codemode

import (
	"errors"
	"fmt"
)

// Session-wide runtime errors. Their texts are Codex's and reach the model: keep them stable.
var (
	// ErrShuttingDown is returned by Execute once Shutdown has begun.
	ErrShuttingDown = errors.New("code mode session is shutting down")
	// ErrCellIDSpaceExhausted is returned when a session has used every cell ID.
	ErrCellIDSpaceExhausted = errors.New("code mode session exhausted its cell ID space")
	// ErrRuntimeEnded is the initial-response error of a cell whose runtime vanished.
	ErrRuntimeEnded = errors.New("exec runtime ended unexpectedly")
	// ErrResourceLimitsUnsupported is returned by providers that cannot honour non-default limits.
	ErrResourceLimitsUnsupported = errors.New("code-mode session provider does not support resource limits")
	// ErrNestedToolsUnavailable fails a NoopDelegate tool call once the call is cancelled.
	ErrNestedToolsUnavailable = errors.New("code mode nested tools are unavailable")
)

// CellErrorKind classifies a CellError.
type CellErrorKind int

// The kinds of per-cell runtime errors.
const (
	// CellAlreadyExists: a cell ID was admitted twice.
	CellAlreadyExists CellErrorKind = iota + 1
	// CellNotFound: the cell is unknown or closed.
	CellNotFound
	// CellHasObserver: a second observer tried to wait on a cell.
	CellHasObserver
	// CellTerminating: a second terminate arrived while the first was cleaning up.
	CellTerminating
	// CellClosedUnexpectedly: the cell's actor vanished.
	CellClosedUnexpectedly
)

// CellError is a runtime error about one cell. Its Error text is exactly Codex's.
type CellError struct {
	Kind   CellErrorKind
	CellID CellID
}

// Error returns Codex's text for the error.
func (e *CellError) Error() string {
	switch e.Kind {
	case CellAlreadyExists:
		return fmt.Sprintf("exec cell %s already exists", e.CellID)
	case CellNotFound:
		return fmt.Sprintf("exec cell %s not found", e.CellID)
	case CellHasObserver:
		return fmt.Sprintf("exec cell %s already has an active observer", e.CellID)
	case CellTerminating:
		return fmt.Sprintf("exec cell %s is already terminating", e.CellID)
	case CellClosedUnexpectedly:
		return fmt.Sprintf("exec cell %s closed unexpectedly", e.CellID)
	default:
		return fmt.Sprintf("exec cell %s: unknown error kind %d", e.CellID, int(e.Kind))
	}
}

// Is reports whether target is a CellError of the same kind (any cell), so callers can test
// errors.Is(err, &CellError{Kind: CellHasObserver}).
func (e *CellError) Is(target error) bool {
	t, ok := target.(*CellError)
	return ok && t.Kind == e.Kind && (t.CellID == "" || t.CellID == e.CellID)
}

// NewCellError returns a CellError of kind for id.
func NewCellError(kind CellErrorKind, id CellID) error {
	return &CellError{Kind: kind, CellID: id}
}
