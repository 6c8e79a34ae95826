package jsruntime

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
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

// observerKind says how an observer is answered and who closes the cell after it was handed a
// terminal response.
type observerKind int

const (
	// initialObserver is Execute's initial response. Nobody waits to close the cell after it, so
	// the session does.
	initialObserver observerKind = iota + 1
	// waitObserver is a Wait. Its caller closes the cell once it holds a terminal response, so
	// that CellClosed follows the response.
	waitObserver
	// pendingObserver is ExecuteToPending or WaitToPending: answered at the next frontier (or the
	// end), never by a yield. Its caller closes like a Wait's.
	pendingObserver
)

// observation is what an observer is handed: a response, or a frontier for a pending observer.
type observation struct {
	resp     codemode.RuntimeResponse
	frontier *codemode.PendingFrontier
}

// observer is a pending observation.
type observer struct {
	kind observerKind
	// deadline is the yield time of a yielding observer; hasDeadline is false for pending
	// observers and for yield times beyond time.Duration's range (forever).
	deadline    time.Duration
	hasDeadline bool
	// deliver hands over the observation without blocking (it sends on a buffered channel).
	deliver func(observation)
	// timer is armed once the cell's runtime has started, so start-up never eats into the yield.
	timer *time.Timer
	// ended is closed once the observer was served or dropped (see end); it stops the watcher
	// of a YieldNow channel.
	ended   chan struct{}
	endOnce sync.Once
}

// end records that the observation is over.
func (o *observer) end() { o.endOnce.Do(func() { close(o.ended) }) }

// newObserver returns an observer of kind that delivers on the returned channel. A yielding
// observer yields after ms (see codemode.EffectiveYieldTimeMs).
func newObserver(kind observerKind, ms uint64) (*observer, <-chan observation) {
	ch := make(chan observation, 1)
	obs := &observer{kind: kind, deliver: func(o observation) { ch <- o }, ended: make(chan struct{})}
	if kind != pendingObserver {
		obs.deadline, obs.hasDeadline = yieldDuration(ms)
	}
	return obs, ch
}

// yields reports whether yields and deadlines answer the observer.
func (o *observer) yields() bool { return o.kind != pendingObserver }

// cell is one admitted cell of a session.
type cell struct {
	id     codemode.CellID
	callID string

	// ctx ends when the cell is terminated (or the session shuts down): it interrupts the
	// runtime and cancels the cell's tool calls and notifications.
	ctx    context.Context
	cancel context.CancelFunc
	// wake pokes the cell's event loop when it may be blocked while an observer needs it: a
	// pending observer wants a frontier, or a paused cell was resumed. It holds one token.
	wake chan struct{}
	// calls are the tool calls a frontier lists; it has its own lock.
	calls callLog
	// peakHeap is the most memory the cell's runtime has held, as of its last turn (the cell's
	// goroutine writes it, LiveCellUsage and closeCell read it): zero until the cell has one.
	peakHeap atomic.Uint64

	// guarded by session.mu
	state cellState
	// started is set once the runtime has an engine: yield deadlines count from then.
	started bool
	// observed is set once any observer was attached.
	observed bool
	// pendingMode is set while the cell is driven by frontiers (Codex's PauseAtPendingFrontier):
	// from ExecuteToPending or WaitToPending until a yielding observer attaches. In pending mode
	// the loop pauses whenever it is quiescent, whether or not an observer waits.
	pendingMode bool
	// paused is set while the event loop is held at a frontier.
	paused bool
	// frontierReady is set while the loop is paused at a frontier no observer was handed yet (its
	// pending observer was dropped, or there was none): the next pending observer gets it at once.
	frontierReady bool
	out           output
	observer      *observer
	result        *codemode.RuntimeResponse
	// completedAt is when an unobserved cell finished: its Result reports how long it waited.
	completedAt time.Time
	terminator  chan codemode.RuntimeResponse // explicit Terminate waiting for its response
	closeOnce   sync.Once
}

func newCell(id codemode.CellID, callID string) *cell {
	ctx, cancel := context.WithCancel(context.Background())
	return &cell{
		id: id, callID: callID, ctx: ctx, cancel: cancel,
		wake:  make(chan struct{}, 1),
		state: cellRunning,
	}
}

// poke wakes the cell's event loop if it is blocked; a token already waiting is enough.
func (c *cell) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// yielded is a Yielded observation of c.
func (c *cell) yielded(items []codemode.ContentItem) observation {
	return observation{resp: codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: c.id, ContentItems: items}}
}

// output is a cell's unobserved output.
type output struct {
	items []codemode.ContentItem
	// bytes is what items count against the provider's output limit.
	bytes int
	// yields are the item counts at which a yield_control() with no observer to answer set the
	// output apart, oldest first (Codex's pending initial yield; see session.yieldControl): each
	// later yielding observation gets the items up to the next one, and a completion keeps them
	// apart from its Result. A pending observer takes everything at once.
	yields []int
	// budget is the host's memory budget. It pays for the items while no observer has taken them,
	// and for a completed cell's Result until someone claims it (held bytes): charged is what it
	// pays, outputCharge times bytes + held once refund has run. What an observer took is the
	// transport's to charge.
	budget        MemoryBudget
	charged, held int
	// reserved is the part of charged an offered text reserved (cellRun.offer) until it arrives.
	reserved int
}

// outputCharge is what a byte of output costs the budget: a transport sending it holds it about
// three times (the string, the encoded message, the buffer that grew by doubling to hold it; see
// grpchost's sendingCopies), and the budget must have seen that cost before the output is taken,
// or cells that finish together overdraw it when their outcomes are sent.
const outputCharge = 3

// add appends an item of n bytes, whose cost (outputCharge times n) the caller has taken from
// the budget.
func (o *output) add(item codemode.ContentItem, n int) {
	o.items = append(o.items, item)
	o.bytes += n
	o.charged += outputCharge * n
}

// reserve takes the cost of an item of at least n bytes from the budget ahead of the item (a
// reservation left from an earlier offer is given back first), and reports whether it could.
func (o *output) reserve(n int) bool {
	o.reserved = 0
	o.refund()
	if !o.pay(n) {
		return false
	}
	o.charged += outputCharge * n
	o.reserved = outputCharge * n
	return true
}

// pay takes the cost of an item of n bytes from the budget: from the reservation first, then
// refused past the budget, except within the cell's outputGrant, which is charged all the same.
// The caller adds the item (or the reservation) to charged.
func (o *output) pay(n int) bool {
	cost := outputCharge * n
	if o.reserved > 0 {
		used := min(o.reserved, cost)
		o.reserved, o.charged, cost = 0, o.charged-used, cost-used
		o.refund() // what the reservation held beyond the item
	}
	switch {
	case cost == 0:
	case o.charged+cost <= outputGrant:
		o.budget.Charge(int64(cost))
	case !o.budget.Take(int64(cost)):
		return false
	}
	return true
}

// refund gives the budget back what left the output.
func (o *output) refund() {
	if extra := o.charged - o.reserved - outputCharge*(o.bytes+o.held); extra > 0 {
		o.budget.Give(int64(extra))
		o.charged -= extra
	}
}

// releaseHeld gives back what a claimed (or dropped) Result held.
func (o *output) releaseHeld() {
	o.held = 0
	o.refund()
}

// take returns all unobserved output (never nil, so responses carry an empty list).
func (o *output) take() []codemode.ContentItem {
	items := o.takeAll()
	o.refund()
	return items
}

// takeAll is take without the refund.
func (o *output) takeAll() []codemode.ContentItem {
	items := o.items
	o.items, o.bytes, o.yields, o.reserved = nil, 0, nil, 0
	if items == nil {
		items = []codemode.ContentItem{}
	}
	return items
}

// hasYield reports whether output is set apart for a yielding observation.
func (o *output) hasYield() bool { return len(o.yields) > 0 }

// markYield sets the output so far apart for the next yielding observation.
func (o *output) markYield() {
	o.yields = append(o.yields, len(o.items))
}

// takeYield returns the items up to the oldest pending yield, if there is one, and keeps the
// rest.
func (o *output) takeYield() ([]codemode.ContentItem, bool) {
	if len(o.yields) == 0 {
		return nil, false
	}
	n := o.yields[0]
	head := append([]codemode.ContentItem{}, o.items[:n]...)
	o.set(append([]codemode.ContentItem{}, o.items[n:]...))
	o.yields = o.yields[1:]
	for i := range o.yields {
		o.yields[i] -= n
	}
	if len(o.yields) == 0 {
		o.yields = nil
	}
	o.refund()
	return head, true
}

// takeResult returns the items after the last pending yield, for the Result of a cell that
// completed with no observer, and keeps the ones before it, which the pending yields hand out
// (without a pending yield it takes everything). The Result keeps its items until it is claimed,
// so the budget keeps paying for them (releaseHeld).
func (o *output) takeResult() []codemode.ContentItem {
	before := o.bytes
	items := o.splitAfterYields()
	o.held += before - o.bytes
	o.refund()
	return items
}

// splitAfterYields is takeResult without the budget's bookkeeping.
func (o *output) splitAfterYields() []codemode.ContentItem {
	if len(o.yields) == 0 {
		return o.takeAll()
	}
	last := o.yields[len(o.yields)-1]
	tail := append([]codemode.ContentItem{}, o.items[last:]...)
	o.set(append([]codemode.ContentItem{}, o.items[:last]...))
	return tail
}

// set replaces the items and recounts their bytes (the caller refunds).
func (o *output) set(items []codemode.ContentItem) {
	o.items, o.bytes, o.reserved = items, 0, 0
	for _, item := range items {
		o.bytes += itemBytes(item)
	}
}

// itemBytes is what an item counts against the output limit.
func itemBytes(item codemode.ContentItem) int {
	switch it := item.(type) {
	case codemode.InputText:
		return len(it.Text)
	case codemode.InputImage:
		return len(it.ImageURL)
	case codemode.InputAudio:
		return len(it.AudioURL)
	}
	return 0
}

// yieldDuration converts an effective yield time, treating values beyond time.Duration's range
// as forever.
func yieldDuration(ms uint64) (time.Duration, bool) {
	if ms > uint64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// stage runs the test hook of a cell's goroutine, if any.
func (s *session) stage(c *cell, st runtimeStage) {
	if s.hooks.runtime != nil {
		s.hooks.runtime(c.id, st)
	}
}

// conclude ends a cell's goroutine, however it ends: the cell's tool calls are cancelled and
// awaited, its notifications delivered (a terminate cancels those too), its outcome published and
// its engine released. A goroutine that panicked or ended early (runtime.Goexit) did not finish:
// the cell fails with Codex's "exec runtime ended unexpectedly" and the owner is told.
func (r *cellRun) conclude(panicked any, finished bool) {
	switch {
	case panicked != nil:
		r.runtimeFailed(codemode.FailureRuntimePanicked)
	case !finished:
		r.runtimeFailed(codemode.FailureRuntimeEnded)
	}
	if observeLoopStats != nil {
		observeLoopStats(r.stats)
	}
	r.tools.cancelAndWait()
	r.notes.wait()
	if r.e != nil {
		// Before finish: the response may close the cell, whose usage goes with its closure.
		r.recordHeap()
		// The next cell may start as soon as finish publishes this one's response: it waits for
		// this engine instead of creating one.
		r.s.p.runtimes().willReturn()
	}
	r.s.finish(r.c, r.errText, r.store.writes)
	if r.e != nil {
		// Let the observer the response just woke run first: a reset takes tens of microseconds.
		runtime.Gosched()
		r.e.Detach()
		r.s.p.runtimes().put(r.e)
	}
}

// runtimeFailed fails the cell whose goroutine died and retires its engine, whose state is
// unknown.
func (r *cellRun) runtimeFailed(reason string) {
	if r.e != nil {
		r.e.Retire()
	}
	r.fail(codemode.ErrRuntimeEnded.Error())
	r.s.report(reason)
}
