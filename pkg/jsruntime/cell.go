package jsruntime

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// cellState is where a cell is in its life. All cell fields below "guarded by session.mu" change
// only under the session's lock.
type cellState int

const (
	cellRunning     cellState = iota + 1
	cellCompleted             // Result published but not yet observed
	cellTerminating           // a terminate claimed the cell; the runtime is being torn down
	cellDelivering            // terminal response handed to an observer, close pending
	cellClosed
)

// observer is a pending observation: the initial response of Execute or a Wait.
type observer struct {
	initial bool
	// deliver hands over the response without blocking (it sends on a buffered channel).
	deliver func(codemode.RuntimeResponse)
	timer   *time.Timer
}

// cell is one admitted cell of a session.
type cell struct {
	id     codemode.CellID
	callID string

	// ctx ends when the cell is terminated (or the session shuts down): it interrupts the
	// runtime and cancels the cell's tool calls and notifications.
	ctx    context.Context
	cancel context.CancelFunc

	// guarded by session.mu
	state   cellState
	pending []codemode.ContentItem
	// pendingBytes is what pending counts against the provider's output limit.
	pendingBytes int
	observer     *observer
	result       *codemode.RuntimeResponse
	terminator   chan codemode.RuntimeResponse // explicit Terminate waiting for its response
	closeOnce    sync.Once
}

// takePending returns the unobserved output (never nil, so responses carry an empty list).
func (c *cell) takePending() []codemode.ContentItem {
	items := c.pending
	c.pending, c.pendingBytes = nil, 0
	if items == nil {
		items = []codemode.ContentItem{}
	}
	return items
}

// yieldDuration converts an effective yield time, treating values beyond time.Duration's range
// as forever.
func yieldDuration(ms uint64) (time.Duration, bool) {
	if ms > uint64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}
