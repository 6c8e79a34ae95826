package grpchost

import (
	"connectrpc.com/connect/v2"
	"golang.org/x/sync/semaphore"
)

// Limits bounds what one host process admits at once (Codex's HostLimits). Every zero field means
// its default. They are per host, shared by all sessions; open sessions are unlimited unless
// MaxSessions says otherwise.
type Limits struct {
	// MaxInFlightRequests bounds the requests that can run for a long time: opening a session
	// or a subscription (while it is set up), Execute (until its outcome is sent), Wait and
	// Terminate. Default 256.
	MaxInFlightRequests int
	// MaxActiveCells bounds the cells admitted and not yet reported closed. Default 128.
	MaxActiveCells int
	// MaxActiveCellsPerSession is one session's share of MaxActiveCells: an Execute beyond it is
	// refused with RESOURCE_EXHAUSTED "code-mode session has too many active cells", so that one
	// session cannot take every slot (Codex's host has no such share). Default 32.
	MaxActiveCellsPerSession int
	// MaxControlRequests bounds the short requests that keep sessions moving: CloseSession,
	// CompleteToolCall, AcknowledgeNotification, CancelWait. They have their own budget so that a
	// host saturated by long requests can still complete the tool calls those requests wait for.
	// Default 256.
	MaxControlRequests int
	// MaxPendingDelegateCalls bounds the tool calls and notifications of all cells that are on
	// their way to a client. Default 1,024 (Codex's MAX_PENDING_DELEGATE_CALLS).
	MaxPendingDelegateCalls int
	// MaxSessions bounds the open sessions; an OpenSession beyond it is refused with
	// RESOURCE_EXHAUSTED ("code-mode host has too many open sessions"), which a client retries and
	// a proxy sends to another host. Zero means no limit (docs/protocol/grpc.md#status-codes): an
	// open session costs little until its cells run, and the active-cell limit bounds those.
	MaxSessions int
}

// The defaults of Limits.
const (
	DefaultMaxInFlightRequests      = 256
	DefaultMaxActiveCells           = 128
	DefaultMaxActiveCellsPerSession = 32
	DefaultMaxControlRequests       = 256
	DefaultMaxPendingDelegateCalls  = 1_024
)

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	l.MaxInFlightRequests = orDefault(l.MaxInFlightRequests, DefaultMaxInFlightRequests)
	l.MaxActiveCells = orDefault(l.MaxActiveCells, DefaultMaxActiveCells)
	l.MaxActiveCellsPerSession = orDefault(l.MaxActiveCellsPerSession, DefaultMaxActiveCellsPerSession)
	l.MaxControlRequests = orDefault(l.MaxControlRequests, DefaultMaxControlRequests)
	l.MaxPendingDelegateCalls = orDefault(l.MaxPendingDelegateCalls, DefaultMaxPendingDelegateCalls)
	return l
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// permits is the module's counting semaphore (golang.org/x/sync/semaphore, as v1host's; see
// docs/adr/0069-one-of-each-mechanism.md) used so that it never waits: a request either gets a
// permit at once or is refused, so a saturated host answers instead of queueing work without
// bound.
type permits struct{ sem *semaphore.Weighted }

func newPermits(n int) permits { return permits{semaphore.NewWeighted(int64(n))} }

// acquire takes a permit if one is free and returns its release function, or nil.
func (p permits) acquire() func() {
	if !p.sem.TryAcquire(1) {
		return nil
	}
	return p.release
}

func (p permits) release() { p.sem.Release(1) }

// hostPermits are the host's four budgets.
type hostPermits struct {
	requests, cells, control, delegates permits
}

func newHostPermits(l Limits) *hostPermits {
	return &hostPermits{
		requests:  newPermits(l.MaxInFlightRequests),
		cells:     newPermits(l.MaxActiveCells),
		control:   newPermits(l.MaxControlRequests),
		delegates: newPermits(l.MaxPendingDelegateCalls),
	}
}

// request takes an in-flight request permit or fails with Codex's status.
func (p *hostPermits) request() (func(), error) {
	if release := p.requests.acquire(); release != nil {
		return release, nil
	}
	return nil, connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many in-flight requests")
}

// cell takes an active-cell permit or fails with Codex's status.
func (p *hostPermits) cell() (func(), error) {
	if release := p.cells.acquire(); release != nil {
		return release, nil
	}
	return nil, connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many active cells")
}

// sessionCell takes the host's active-cell permit, then one of the session's share, and returns
// the function that releases both; or fails with the refusal's status (the host's, Codex's text,
// when both are exhausted).
func (p *hostPermits) sessionCell(share permits) (func(), error) {
	releaseHost, err := p.cell()
	if err != nil {
		return nil, err
	}
	releaseShare := share.acquire()
	if releaseShare == nil {
		releaseHost()
		return nil, connect.NewError(connect.CodeResourceExhausted, "code-mode session has too many active cells")
	}
	return func() { releaseShare(); releaseHost() }, nil
}

// controlRequest takes a control permit or fails with Codex's status.
func (p *hostPermits) controlRequest() (func(), error) {
	if release := p.control.acquire(); release != nil {
		return release, nil
	}
	return nil, connect.NewError(connect.CodeResourceExhausted, "code-mode host has too many in-flight control requests")
}
