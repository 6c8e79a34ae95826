package hostv1

import (
	"io"
	"log/slog"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// The host's limits (spec §2.8). Requests and cells are counted across all connections of a
// Host, pending delegate calls per connection.
const (
	MaxInFlightRequests     = 256
	MaxActiveCells          = 128
	MaxPendingDelegateCalls = 1024
	// MaxQueuedCellMessages bounds the delegate requests a cell may queue before its
	// execution/started response is sent; further calls wait for the response.
	MaxQueuedCellMessages = 128
	// RecentIDs is how many finished request IDs and opened session IDs a connection remembers.
	RecentIDs = 4096
)

// The capabilities a V1 host understands.
const (
	DualWebSocketCapability  wirev1.Capability = "dual-websocket-v1"
	ResourceLimitsCapability wirev1.Capability = "session-cell-execution-resource-limits"
)

// Options configure a Host.
type Options struct {
	// Logger receives the host's diagnostics; nil discards them. On stdio it must not write to
	// stdout, which carries the protocol.
	Logger *slog.Logger
}

// Host serves a SessionProvider over V1 connections.
type Host struct {
	provider codemode.SessionProvider
	log      *slog.Logger
	requests semaphore
	cells    semaphore
	pairings *pairings
}

// New returns a Host serving provider.
func New(provider codemode.SessionProvider, opts Options) *Host {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Host{
		provider: provider,
		log:      log,
		requests: newSemaphore(MaxInFlightRequests),
		cells:    newSemaphore(MaxActiveCells),
		pairings: newPairings(MaxPendingPairings),
	}
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
