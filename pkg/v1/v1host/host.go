package v1host

import (
	"io"
	"log/slog"
	"sync"

	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/semaphore"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/internal/recent"
)

// The host's limits (docs/protocol/v1.md#limits). Requests and cells are counted across all connections of a
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
	// negotiated (docs/protocol/v1.md#output-truncation, docs/protocol/v1.md#operationyield): a
	// host of this generation decodes them either way, and a client that sends them means them.
	BoundedOutputCapability    wirev1.Capability = "bounded-output-v1"
	DelegateCapacityCapability wirev1.Capability = "delegate-capacity-4096"
	YieldObservationCapability wirev1.Capability = "yield-observation"
)

// DefaultGeneration is the wire generation a Host serves unless told otherwise: the one current
// Codex (0.169 and later) speaks, bounded-output. Codex 0.152 to 0.168 need
// WithGeneration(wirev1.GenerationHostDuration), 0.151 and older wirev1.GenerationBaseline; no
// host can serve two, because each refuses the others' shapes (docs/protocol/v1.md#wire-generations).
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

// CellMemoryBytes is what a live cell holds beside its heap's growth (which the runtime charges
// to the budget itself): its runtime's memory image, its goroutines and its route. A cell blocked
// on a tool call measured 818–832 KB of resident memory (issue 38). Under WithMemoryBudget every
// admitted cell charges it until it closes, and the host admits as many cells as the budget holds
// of it.
const CellMemoryBytes = 1 << 20

// MemoryBudget is the host's memory budget as a V1 host uses it (membudget.Budget implements it).
type MemoryBudget interface {
	// Charge takes n bytes even past the budget (a cell admitted, a frame to write).
	Charge(n int64)
	// Give gives back n bytes charged earlier.
	Give(n int64)
	// Limit is the budget's size in bytes.
	Limit() int64
}

// WithMemoryBudget bounds the host's live cells by the host's memory budget instead of
// MaxActiveCells (docs/adr/0059-*.md): what a cell costs a host is memory, and a fixed count is too
// few for a large host or too many for a small one (Codex's V1 host has no cell cap at all). The
// host admits Limit()/CellMemoryBytes cells (1,536 for a 2 GiB host, whose
// budget is 1.5 GiB), each charging CellMemoryBytes until it closes, and beyond that refuses
// "code-mode host has too many active cells". The per-session share then gives way to a share
// per WebSocket connection, the same fraction of what the budget admits as
// WithMaxActiveCellsPerSession is of MaxActiveCells (a quarter by default), refused with
// "code-mode connection has too many active cells"; a connection of ServeConn or ServeStdio is
// its process's only client and takes what the host admits. Frames waiting to be written are
// charged too (v1transport.WithBudget).
func WithMemoryBudget(b MemoryBudget) Option { return func(h *Host) { h.budget = b } }

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
	requests   *semaphore.Weighted
	cells      *semaphore.Weighted
	// cellsPerSession is each session's share of cells.
	cellsPerSession int
	// budget is WithMemoryBudget's (nil: none); connCells is then a WebSocket connection's share
	// of cells, and cells holds what the budget admits.
	budget    MemoryBudget
	connCells int
	pairings  *pairings
	tracer    trace.Tracer // WithTracer; nil: no spans

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
		requests:   semaphore.NewWeighted(MaxInFlightRequests),
		cells:      semaphore.NewWeighted(MaxActiveCells),
		// Set before the options, which may replace it.
		cellsPerSession: DefaultMaxActiveCellsPerSession,
		pairings:        newPairings(MaxPendingPairings),
		conns:           map[*conn]struct{}{},
	}
	for _, o := range opts {
		o(h)
	}
	if h.budget != nil {
		admitted := int(max(h.budget.Limit()/CellMemoryBytes, 1))
		h.cells = semaphore.NewWeighted(int64(admitted))
		h.connCells = max(admitted*h.cellsPerSession/MaxActiveCells, 1)
	}
	return h
}

// tryAcquire takes a slot of s and returns its release function, or nil when none is free: the
// host refuses work beyond a limit at once rather than queueing it. A nil s has no limit.
func tryAcquire(s *semaphore.Weighted) func() {
	if s == nil {
		return func() {}
	}
	if !s.TryAcquire(1) {
		return nil
	}
	return func() { s.Release(1) }
}

// decodeClientMessage reads a client's message in the host's generation: operation/yield and
// the fields of bounded-output are unknown to earlier ones.
func (h *Host) decodeClientMessage(data []byte) (wirev1.ClientToHost, error) {
	return wirev1.DecodeClientToHostFor(h.generation, data)
}
