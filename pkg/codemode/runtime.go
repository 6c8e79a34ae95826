package codemode

import "time"

// Defaults and limits that Codex pins.
const (
	// PublicToolName is the model-facing exec tool.
	PublicToolName = "exec"
	// WaitToolName is the model-facing wait tool.
	WaitToolName = "wait"
	// DefaultExecYieldTimeMs is the yield time of an exec whose pragma gives none.
	DefaultExecYieldTimeMs uint64 = 10_000
	// DefaultWaitYieldTimeMs is the yield time of a wait that gives none.
	DefaultWaitYieldTimeMs uint64 = 10_000
	// DefaultMaxOutputTokensPerExecCall is the output budget of one exec or wait.
	DefaultMaxOutputTokensPerExecCall = 10_000
	// YieldGraceThresholdMs is the yield time from which YieldGraceMs is added.
	YieldGraceThresholdMs uint64 = 10_000
	// YieldGraceMs is the grace added to long yields so a tool call that finishes right at the
	// deadline still makes it into the response.
	YieldGraceMs uint64 = 1_000
)

// ExecuteRequest asks a session to run a cell.
type ExecuteRequest struct {
	// ToolCallID is the model's exec call id; notifications echo it as their call id.
	ToolCallID string
	// EnabledTools are the tools exposed on the cell's global `tools`.
	EnabledTools []ToolDefinition
	// Source is the JavaScript module source.
	Source string
	// YieldTimeMs is the initial yield deadline; nil means DefaultExecYieldTimeMs.
	YieldTimeMs *uint64
	// MaxOutputTokens is the token budget of the output: carried for the client's truncation,
	// and applied by a host whose session truncates on the host (Codex 0.169's
	// outputTruncation "server").
	MaxOutputTokens *int
	// YieldNow, when closed, ends the initial observation at once, as if its yield deadline had
	// passed (Codex 0.169's yield-observation): the cell goes on running. Nil never fires. A
	// session whose host cannot yield early ignores it.
	YieldNow <-chan struct{}
	// Observe, when set, is handed the initial response in the cell's order of events (see
	// Observer); InitialResponse returns the same response. A session that cannot keep that
	// order ignores it.
	Observe Observer
}

// Observer receives an observation's response on the goroutine that produced it, at its place
// among what the cell hands its delegate: after every tool call and notification the cell started
// before it (Delegate.StartToolCall and StartNotify) and the cancellation of those it
// abandoned, and before anything the cell starts after it and before CellClosed. A transport that
// queues the response there, behind those requests, writes the cell's events in the order the
// script caused them, the order a client reads them in: no request of the cell comes after the
// response that ended it (docs/protocol/v1.md#execute). It must not block; it is not called for a
// MissingCell outcome, which no cell event precedes.
type Observer func(RuntimeResponse)

// WaitRequest asks to observe a cell.
type WaitRequest struct {
	CellID      CellID
	YieldTimeMs uint64
	// YieldNow, when closed, ends this observation at once, as ExecuteRequest.YieldNow does.
	YieldNow <-chan struct{}
	// MaxOutputTokens is the token budget of this observation's output, applied by a host
	// whose session truncates on the host (see ExecuteRequest.MaxOutputTokens); nil: none.
	MaxOutputTokens *int
	// Observe, when set, is handed the wait's response in the cell's order of events, as
	// ExecuteRequest.Observe is; Wait returns the same response.
	Observe Observer
}

// ResponseKind says what a RuntimeResponse reports.
type ResponseKind int

// The response kinds.
const (
	// Yielded: the cell is still running; content is the output since the last observation.
	Yielded ResponseKind = iota + 1
	// Terminated: the cell was stopped; content is its unobserved output.
	Terminated
	// Result: the cell finished; ErrorText is set when the script failed.
	Result
)

// String returns Codex's variant name.
func (k ResponseKind) String() string {
	switch k {
	case Yielded:
		return "Yielded"
	case Terminated:
		return "Terminated"
	case Result:
		return "Result"
	default:
		return "Invalid"
	}
}

// RuntimeResponse is what an observation of a cell returns.
type RuntimeResponse struct {
	Kind         ResponseKind
	CellID       CellID
	ContentItems []ContentItem
	// ErrorText is set only on a Result of a failed script.
	ErrorText *string
	// HostDuration is how long a remote host spent on the request this response answers, from
	// receiving it until the response was ready (nested tool waits included), when the host
	// reports it: Codex from 0.152 on sends it with every V1 runtime response
	// (code_mode_host_duration_ns). Nil when unknown; an in-process session leaves it nil.
	HostDuration *time.Duration
	// BufferedFor is how long a Result waited for an observer after the cell finished: zero when
	// the cell finished while observed, else from its completion until the Wait that collected
	// it (Codex 0.169's result_buffered_for_ns). Nil when unknown, and on other kinds.
	BufferedFor *time.Duration
}

// IsTerminal reports whether the cell is finished after this response.
func (r RuntimeResponse) IsTerminal() bool { return r.Kind != Yielded }

// WaitOutcome is the result of Wait or Terminate.
type WaitOutcome struct {
	// Missing is true when the cell was unknown or already closed.
	Missing  bool
	Response RuntimeResponse
}

// LiveCell wraps the response of a cell that existed.
func LiveCell(r RuntimeResponse) WaitOutcome { return WaitOutcome{Response: r} }

// MissingCellOutcome is the outcome for a cell that does not exist (any more).
func MissingCellOutcome(id CellID) WaitOutcome {
	text := NewCellError(CellNotFound, id).Error()
	return WaitOutcome{Missing: true, Response: RuntimeResponse{
		Kind: Result, CellID: id, ContentItems: []ContentItem{}, ErrorText: &text,
	}}
}

// EffectiveYieldTimeMs applies Codex's yield rule: a requested time of at least
// YieldGraceThresholdMs gets YieldGraceMs added (saturating), then a session limit, if set,
// caps the result.
func EffectiveYieldTimeMs(requested uint64, sessionLimit *uint64) uint64 {
	t := requested
	if t >= YieldGraceThresholdMs {
		t = saturatingAdd(t, YieldGraceMs)
	}
	if sessionLimit != nil && *sessionLimit < t {
		t = *sessionLimit
	}
	return t
}

func saturatingAdd(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}
