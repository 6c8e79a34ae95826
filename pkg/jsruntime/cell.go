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

// cellState is the phase of a cell's life (cellLifecycle). All cell fields below "guarded by
// session.mu" change only under the session's lock.
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

// drop stops the observer's yield timer and ends it: it is no longer its cell's observer.
func (o *observer) drop() {
	if o.timer != nil {
		o.timer.Stop()
	}
	if o.ended != nil {
		o.end()
	}
}

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
	// wake signals the cell's event loop when it may be blocked while an observer needs it: a
	// pending observer wants a frontier, or a paused cell was resumed. It holds one token.
	wake chan struct{}
	// calls are the tool calls a frontier lists; it has its own lock.
	calls callLog
	// peakHeap is the most memory the cell's runtime has held, as of its last turn (the cell's
	// goroutine writes it, LiveCellUsage and closeCell read it): zero until the cell has one.
	peakHeap atomic.Uint64

	// guarded by session.mu
	life cellLifecycle
	out  output
	// result is the Result of a cell that completed unobserved, until it is claimed.
	result *codemode.RuntimeResponse
	// completedAt is when an unobserved cell finished: its Result reports how long it waited.
	completedAt time.Time
	closeOnce   sync.Once
}

func newCell(id codemode.CellID, callID string, life cellLifecycle) *cell {
	ctx, cancel := context.WithCancel(context.Background())
	return &cell{
		id: id, callID: callID, ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1),
		life: life,
	}
}

// wakeLoop wakes the cell's event loop if it is blocked; a token already waiting is enough.
func (c *cell) wakeLoop() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// yielded is a Yielded observation of c.
func (c *cell) yielded(items []codemode.ContentItem) observation {
	return observation{resp: codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: c.id, ContentItems: items}}
}

// terminated is c's Terminated response.
func (c *cell) terminated(items []codemode.ContentItem) codemode.RuntimeResponse {
	return codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: c.id, ContentItems: items}
}

// observation makes what a doServe hands over (errText: a finishing cell's error), taking the
// output it carries.
func (c *cell) observation(what serving, errText *string) observation {
	switch what {
	case serveSetApart:
		items, _ := c.out.takeYield()
		return c.yielded(items)
	case serveFrontier:
		f := codemode.PendingFrontier{CellID: c.id, ContentItems: c.out.take(), PendingToolCallIDs: c.calls.list()}
		return observation{frontier: &f}
	case serveClaimed:
		return observation{resp: c.claimCompletion()}
	case serveResult:
		var live time.Duration
		return observation{resp: codemode.RuntimeResponse{Kind: codemode.Result, CellID: c.id, ErrorText: errText, BufferedFor: &live, ContentItems: c.out.take()}}
	case serveTerminated:
		return observation{resp: c.terminated(c.out.take())}
	case serveTerminatedEmpty:
		return observation{resp: c.terminated([]codemode.ContentItem{})}
	}
	return c.yielded(c.out.take()) // serveSoFar
}

// keepResult keeps the Result of a cell that completed with nobody observing it, for the next
// observation, with the output after any yield set apart.
func (c *cell) keepResult(errText *string) {
	resp := codemode.RuntimeResponse{Kind: codemode.Result, CellID: c.id, ErrorText: errText}
	resp.ContentItems = c.out.takeResult()
	c.result, c.completedAt = &resp, time.Now()
}

// claimCompletion hands over a completed cell's Result, with any output still set apart before
// it (the lifecycle marked the cell delivering: its claimant closes it).
func (c *cell) claimCompletion() codemode.RuntimeResponse {
	resp := *c.result
	buffered := time.Since(c.completedAt)
	resp.BufferedFor = &buffered
	resp.ContentItems = append(c.out.take(), resp.ContentItems...)
	c.result = nil
	c.out.releaseHeld()
	return resp
}

// yieldDuration converts an effective yield time, treating values beyond time.Duration's range
// as forever.
func yieldDuration(ms uint64) (time.Duration, bool) {
	if ms > uint64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
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
	r.s.apply(r.c, event{kind: evFinish, errText: r.errText, writes: r.store.writes})
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
