package v1host

import (
	"io"
	"log/slog"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/recent"
)

// The host's limits (spec §2.8). Requests and cells are counted across all connections of a
// Host, pending delegate calls per connection.
const (
	MaxInFlightRequests = 256
	MaxActiveCells      = 128
	// DefaultMaxActiveCellsPerSession is a session's share of MaxActiveCells unless
	// WithMaxActiveCellsPerSession says otherwise: a quarter, so that one session cannot take
	// every cell slot of the host (Codex's host has no such share).
	DefaultMaxActiveCellsPerSession = 32
	MaxPendingDelegateCalls         = 1024
	// MaxPendingDelegateCallsGranted replaces MaxPendingDelegateCalls on a connection that
	// was granted DelegateCapacityCapability.
	MaxPendingDelegateCallsGranted = 4096
	// MaxQueuedCellMessages bounds the delegate requests a cell may queue before its
	// execution/started response is sent; further calls wait for the response.
	MaxQueuedCellMessages = 128
	// RecentIDs is how many finished request IDs and opened session IDs a connection remembers.
	RecentIDs = recent.Limit
)

// The capabilities a V1 host understands.
const (
	DualWebSocketCapability  wirev1.Capability = "dual-websocket-v1"
	ResourceLimitsCapability wirev1.Capability = "session-cell-execution-resource-limits"
	// The capabilities of generation bounded-output (Codex 0.169): host-side truncation
	// (outputTruncation on session/open), 4,096 pending delegate calls, and operation/yield.
	// The host honours outputTruncation and operation/yield whether or not they were
	// negotiated, as Codex's does.
	BoundedOutputCapability    wirev1.Capability = "bounded-output-v1"
	DelegateCapacityCapability wirev1.Capability = "delegate-capacity-4096"
	YieldObservationCapability wirev1.Capability = "yield-observation"
)

// DefaultGeneration is the wire generation a Host serves unless told otherwise: the one current
// Codex (0.169 and later) speaks, bounded-output. Codex 0.152 to 0.168 need
// WithGeneration(wirev1.GenerationHostDuration), 0.151 and older wirev1.GenerationBaseline; no
// host can serve two, because each refuses the others' shapes (spec §6.1, codex-0169.md §B).
const DefaultGeneration = wirev1.GenerationBoundedOutput

// Option configures a Host.
type Option func(*Host)

// WithLogger sends the host's diagnostics to log (by default they are discarded). On stdio it
// must not write to stdout, which carries the protocol.
func WithLogger(log *slog.Logger) Option { return func(h *Host) { h.log = log } }

// WithMaxActiveCellsPerSession sets a session's share of the host's MaxActiveCells: an execute
// beyond it is refused with "code-mode session has too many active cells" (n ≤ 0 keeps
// DefaultMaxActiveCellsPerSession; n ≥ MaxActiveCells leaves only the host's limit).
func WithMaxActiveCellsPerSession(n int) Option {
	return func(h *Host) {
		if n > 0 {
			h.cellsPerSession = n
		}
	}
}

// WithGeneration makes the host serve wire generation g instead of DefaultGeneration.
func WithGeneration(g wirev1.Generation) Option { return func(h *Host) { h.generation = g } }

// WithGenerationName is WithGeneration for a generation named on a command line ("baseline",
// "host-duration"), so that programs need not import the generated wire package for a flag.
func WithGenerationName(name string) (Option, error) {
	g, err := wirev1.ParseGeneration(name)
	if err != nil {
		return nil, err
	}
	return WithGeneration(g), nil
}

// DefaultGenerationName is the name of DefaultGeneration.
var DefaultGenerationName = DefaultGeneration.String()

// Host serves a SessionProvider over V1 connections.
type Host struct {
	provider   codemode.SessionProvider
	log        *slog.Logger
	generation wirev1.Generation
	requests   semaphore
	cells      semaphore
	// cellsPerSession is each session's share of cells.
	cellsPerSession int
	pairings        *pairings
	tracer          trace.Tracer // WithTracer; nil: no spans

	// mu guards the connections being served and whether the host drains (drain.go).
	mu       sync.Mutex
	draining bool
	conns    map[*conn]struct{}
}

// New returns a Host serving provider.
func New(provider codemode.SessionProvider, opts ...Option) *Host {
	h := &Host{
		provider:   provider,
		log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		generation: DefaultGeneration,
		requests:   newSemaphore(MaxInFlightRequests),
		cells:      newSemaphore(MaxActiveCells),
		// Set before the options, which may replace it.
		cellsPerSession: DefaultMaxActiveCellsPerSession,
		pairings:        newPairings(MaxPendingPairings),
		conns:           map[*conn]struct{}{},
	}
	for _, o := range opts {
		o(h)
	}
	return h
}

// semaphore is a counting semaphore that is only ever tried, never waited on: the host refuses
// work beyond a limit at once rather than queueing it.
type semaphore chan struct{}

func newSemaphore(n int) semaphore { return make(semaphore, n) }

// tryAcquire takes a slot and returns its release function, or nil when none is free.
func (s semaphore) tryAcquire() func() {
	select {
	case s <- struct{}{}:
		return func() { <-s }
	default:
		return nil
	}
}

// decodeClientMessage reads a client's message in the host's generation: operation/yield and
// the fields of bounded-output are unknown to earlier ones.
func (h *Host) decodeClientMessage(data []byte) (wirev1.ClientToHost, error) {
	return wirev1.DecodeClientToHostFor(h.generation, data)
}
