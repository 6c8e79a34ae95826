package jsruntime

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Locking: s.mu guards the session's registry and every cell field marked "guarded by
// session.mu". A function that takes s.mu releases it in exactly one place. Work that must not run
// under the lock — handing a response to an observer, closing a cell (which calls the delegate),
// stopping or waking a cell's event loop — is decided by the *Locked functions, which return it as
// actions, and run by the caller after it released the lock.

// actions are the steps a locked section decided on, to run once s.mu is released.
type actions []func()

func (a *actions) add(steps ...func()) { *a = append(*a, steps...) }

func (a actions) run() {
	for _, step := range a {
		step()
	}
}

// session is the in-process codemode.Session: cells on QuickJS runtimes that share stored
// values.
type session struct {
	p        *Provider
	delegate codemode.Delegate
	limits   codemode.SessionCellExecutionLimits

	// closing is set by Shutdown before it takes mu, so that an Execute already waiting for mu
	// is refused rather than admitted and stopped at once.
	closing atomic.Bool

	mu     sync.Mutex
	ids    codemode.CellIDAllocator
	cells  map[codemode.CellID]*cell
	stored storedValues   // committed stored values, as JSON
	open   sync.WaitGroup // admitted cells not yet closed
	// running counts the cells' goroutines. One may outlive its cell, which is closed as soon as
	// its response is delivered (or after terminateGrace); tests wait for them all.
	running sync.WaitGroup
	// idle is the unobserved cells and when they are reclaimed (idle.go); idleTimer fires at or
	// before the earliest of them while any is recorded; nil while none is armed.
	idle      idleTable
	idleTimer *time.Timer

	hooks testHooks
}

var (
	_ codemode.Session        = (*session)(nil)
	_ codemode.PendingSession = (*session)(nil)
	_ codemode.CellUsageProbe = (*session)(nil)
)

// testHooks let this package's tests watch a session and break it from inside. They are nil
// outside tests, and per session, so tests running side by side do not see each other's.
type testHooks struct {
	// attached is called, with mu released, after an observer was registered on a cell.
	attached func(codemode.CellID)
	// runtime is called on a cell's goroutine at each runtimeStage; a test panics or calls
	// runtime.Goexit there to play a runtime that dies.
	runtime func(codemode.CellID, runtimeStage)
}

// runtimeStage names the points of a cell's goroutine where testHooks.runtime runs.
type runtimeStage int

const (
	// stageStarting: the goroutine began; the cell has no engine yet.
	stageStarting runtimeStage = iota + 1
	// stageIdle: the event loop found nothing to do and is about to block.
	stageIdle
	// stageShed: the waiting event loop shed its engine's resolved exports (wasm.go).
	stageShed
)

func (s *session) heapLimit() uint64 {
	if s.limits.MaxHeapSizeBytes != nil {
		return *s.limits.MaxHeapSizeBytes
	}
	return s.p.defaultHeapLimit
}

// effectiveYield applies Codex's grace and the session's cap to a requested yield time.
func (s *session) effectiveYield(requested uint64) uint64 {
	return codemode.EffectiveYieldTimeMs(requested, s.limits.MaxYieldTimeMs)
}

// report tells the delegate about a failure no response carries.
func (s *session) report(reason string) { s.delegate.ReportFailure(reason) }

// Execute admits a cell and starts it on its own goroutine.
func (s *session) Execute(_ context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	requested := codemode.DefaultExecYieldTimeMs
	if req.YieldTimeMs != nil {
		requested = *req.YieldTimeMs
	}
	initial := make(chan codemode.InitialResult, 1)
	obs := &observer{kind: initialObserver, deliver: func(o observation) {
		if req.Observe != nil {
			req.Observe(o.resp)
		}
		initial <- codemode.InitialResult{Response: o.resp}
	}, ended: make(chan struct{})}
	obs.deadline, obs.hasDeadline = yieldDuration(s.effectiveYield(requested))
	c, err := s.start(req, obs, false)
	if err != nil {
		return nil, err
	}
	s.watchYieldNow(c, obs, req.YieldNow)
	return codemode.NewStartedCell(c.id, initial, func() { s.interrupt(c) }), nil
}

// ExecuteToPending admits a cell and observes it until its first frontier or its end.
func (s *session) ExecuteToPending(ctx context.Context, req codemode.ExecuteRequest) (codemode.ExecuteToPendingOutcome, error) {
	obs, ch := newObserver(pendingObserver, 0)
	if ctx.Err() != nil {
		obs = nil // the caller gave up already: the cell starts unobserved
	}
	c, err := s.start(req, obs, true)
	if err != nil {
		return codemode.ExecuteToPendingOutcome{}, err
	}
	if obs == nil {
		return codemode.ExecuteToPendingOutcome{}, &codemode.UnobservedCellError{CellID: c.id, Err: ctx.Err()}
	}
	o, err := s.await(ctx, c, obs, ch)
	if err != nil {
		return codemode.ExecuteToPendingOutcome{}, &codemode.UnobservedCellError{CellID: c.id, Err: err}
	}
	return s.pendingOutcome(c, o), nil
}

// start admits a cell with its first observer (nil: none) and runs it on its own goroutine. A
// cell started for pending observation is in pending mode from the start, observed or not.
func (s *session) start(req codemode.ExecuteRequest, obs *observer, pendingMode bool) (*cell, error) {
	s.mu.Lock()
	c, snapshot, err := s.admitLocked(req, obs)
	if err == nil {
		c.pendingMode = pendingMode
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	go s.runCell(c, req, snapshot)
	return c, nil
}

// admitLocked registers a new cell and returns the stored values it starts from.
func (s *session) admitLocked(req codemode.ExecuteRequest, obs *observer) (*cell, storedValues, error) {
	if s.closing.Load() {
		return nil, nil, codemode.ErrShuttingDown
	}
	id, err := s.ids.Next()
	if err != nil {
		return nil, nil, err
	}
	c := newCell(id, req.ToolCallID)
	c.out.budget = s.p.budget
	s.cells[id] = c
	s.open.Add(1)
	s.running.Add(1) // before anyone can see the cell, so its goroutine is counted from the start
	if obs != nil {
		// The runtime has not started, so nothing is served yet and no timer is armed.
		c.observed, c.observer = true, obs
	}
	s.unobservedLocked(c)
	snapshot := maps.Clone(s.stored)
	if snapshot == nil {
		snapshot = storedValues{}
	}
	return c, snapshot, nil
}

// Wait observes a cell until it yields again or ends.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	if err := ctx.Err(); err != nil {
		return codemode.WaitOutcome{}, err // a caller that is gone must not consume anything
	}
	obs, ch := newObserver(waitObserver, s.effectiveYield(req.YieldTimeMs))
	if observe := req.Observe; observe != nil {
		deliver := obs.deliver
		obs.deliver = func(o observation) {
			observe(o.resp)
			deliver(o)
		}
	}
	c, err := s.attach(req.CellID, obs)
	if c == nil {
		if err != nil {
			return codemode.WaitOutcome{}, err
		}
		return codemode.MissingCellOutcome(req.CellID), nil
	}
	s.watchYieldNow(c, obs, req.YieldNow)
	o, err := s.await(ctx, c, obs, ch)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	if o.resp.IsTerminal() {
		s.closeCell(c)
	}
	return codemode.LiveCell(o.resp), nil
}

// WaitToPending observes a cell until its next frontier or its end, resuming it if it is paused.
func (s *session) WaitToPending(ctx context.Context, req codemode.WaitToPendingRequest) (codemode.WaitToPendingOutcome, error) {
	if err := ctx.Err(); err != nil {
		return codemode.WaitToPendingOutcome{}, err
	}
	obs, ch := newObserver(pendingObserver, 0)
	c, err := s.attach(req.CellID, obs)
	if c == nil {
		if err != nil {
			return codemode.WaitToPendingOutcome{}, err
		}
		return codemode.MissingPendingCellOutcome(req.CellID), nil
	}
	o, err := s.await(ctx, c, obs, ch)
	if err != nil {
		return codemode.WaitToPendingOutcome{}, err
	}
	return codemode.LivePendingCell(s.pendingOutcome(c, o)), nil
}

// pendingOutcome turns what a pending observer was handed into an outcome; a terminal response
// closes the cell, since the caller now holds it.
func (s *session) pendingOutcome(c *cell, o observation) codemode.ExecuteToPendingOutcome {
	if o.frontier != nil {
		return codemode.PendingOutcome(*o.frontier)
	}
	s.closeCell(c)
	return codemode.CompletedOutcome(o.resp)
}

// attach makes obs the observer of cell id, or serves it at once. It returns a nil cell for a
// missing cell (nil error) or a refused observer (the error).
func (s *session) attach(id codemode.CellID, obs *observer) (*cell, error) {
	s.mu.Lock()
	c, after, err := s.attachLocked(id, obs)
	s.mu.Unlock()
	after.run()
	return c, err
}

func (s *session) attachLocked(id codemode.CellID, obs *observer) (*cell, actions, error) {
	c := s.cells[id]
	switch {
	case c == nil || c.state == cellDelivering || c.state == cellClosed:
		return nil, nil, nil
	case c.state != cellCompleted && c.observer != nil:
		return nil, nil, codemode.NewCellError(codemode.CellHasObserver, c.id)
	}
	// An observation restarts the cell's unobserved time, whether it is served at once or waits.
	s.idle.observed(c.id)
	defer s.unobservedLocked(c)
	if c.state == cellCompleted {
		return c, s.serveCompletedLocked(c, obs), nil
	}
	return c, s.observeLocked(c, obs), nil
}

// serveCompletedLocked answers an observer of a completed cell: a yielding observer first gets
// the initial yield, if one was set apart; otherwise the observer claims the Result.
func (s *session) serveCompletedLocked(c *cell, obs *observer) actions {
	if obs.yields() {
		if items, ok := c.out.takeYield(); ok {
			return serveNow(obs, c.yielded(items))
		}
	}
	return serveNow(obs, observation{resp: s.claimCompletionLocked(c)})
}

// claimCompletionLocked hands over a completed cell's Result, with any output still set apart
// before it, and marks the cell delivering: its claimant closes it.
func (s *session) claimCompletionLocked(c *cell) codemode.RuntimeResponse {
	resp := *c.result
	buffered := time.Since(c.completedAt)
	resp.BufferedFor = &buffered
	resp.ContentItems = append(c.out.take(), resp.ContentItems...)
	c.result = nil
	c.out.releaseHeld()
	c.state = cellDelivering
	return resp
}

// observeLocked attaches obs to a running or terminating cell that has no observer.
func (s *session) observeLocked(c *cell, obs *observer) actions {
	c.observed = true
	switch {
	case c.state == cellTerminating:
		c.observer = obs // the end of the termination answers it
		return s.attachedLocked(c)
	case !obs.yields():
		return s.observePendingLocked(c, obs)
	}
	return s.observeYieldingLocked(c, obs)
}

// observePendingLocked attaches a pending observer: it gets a frontier the cell is paused at and
// nobody was handed yet at once, without resuming the cell; otherwise it resumes a paused cell
// until its next frontier, and a cell that is idle right now answers it as soon as its loop wakes.
func (s *session) observePendingLocked(c *cell, obs *observer) actions {
	c.pendingMode = true
	if c.frontierReady {
		c.frontierReady = false
		return serveNow(obs, s.frontierLocked(c))
	}
	c.observer, c.paused = obs, false
	return append(s.attachedLocked(c), c.poke)
}

// observeYieldingLocked attaches a Wait. It takes the cell out of pending mode and resumes it for
// good; an initial yield set apart earlier, or a zero yield time, answers it at once.
func (s *session) observeYieldingLocked(c *cell, obs *observer) actions {
	var after actions
	if c.paused {
		after.add(c.poke)
	}
	c.pendingMode, c.paused, c.frontierReady = false, false, false
	if items, ok := c.out.takeYield(); ok {
		return append(after, serveNow(obs, c.yielded(items))...)
	}
	if obs.hasDeadline && obs.deadline == 0 {
		return append(after, serveNow(obs, c.yielded(c.out.take()))...)
	}
	c.observer = obs
	after = append(after, s.attachedLocked(c)...)
	return append(after, s.armLocked(c)...)
}

// frontierLocked takes the frontier c is at: the output so far and the calls not listed before.
func (s *session) frontierLocked(c *cell) observation {
	f := codemode.PendingFrontier{CellID: c.id, ContentItems: c.out.take(), PendingToolCallIDs: c.calls.list()}
	return observation{frontier: &f}
}

// attachedLocked returns the test hook's call for a registered observer.
func (s *session) attachedLocked(c *cell) actions {
	if s.hooks.attached == nil {
		return nil
	}
	return actions{func() { s.hooks.attached(c.id) }}
}

// armLocked starts the yield deadline of c's observer once the runtime has started. A zero
// deadline answers at once, before anything the script does next.
func (s *session) armLocked(c *cell) actions {
	obs := c.observer
	if !c.started || obs == nil || !obs.hasDeadline || obs.timer != nil {
		return nil
	}
	if obs.deadline == 0 {
		return s.serveLocked(c, c.yielded(c.out.take()))
	}
	obs.timer = time.AfterFunc(obs.deadline, func() { s.deadlineReached(c, obs) })
	return nil
}

// deadlineReached answers obs with the output so far if it is still c's observer.
func (s *session) deadlineReached(c *cell, obs *observer) {
	s.mu.Lock()
	var after actions
	if c.observer == obs && c.state == cellRunning {
		after = s.serveLocked(c, c.yielded(c.out.take()))
	}
	s.mu.Unlock()
	after.run()
}

// serveNow returns the delivery of o to an observer that was never registered.
func serveNow(obs *observer, o observation) actions {
	return actions{func() {
		obs.deliver(o)
		obs.end()
	}}
}

// watchYieldNow serves obs with the output so far when now is closed, if obs still observes c
// then, as its yield deadline would (Codex 0.169's operation/yield). The watcher ends with the
// observation.
func (s *session) watchYieldNow(c *cell, obs *observer, now <-chan struct{}) {
	if now == nil || !obs.yields() {
		return
	}
	go func() {
		select {
		case <-now:
			s.deadlineReached(c, obs)
		case <-obs.ended:
		}
	}()
}

// serveLocked unregisters c's observer and returns the delivery of o to it.
func (s *session) serveLocked(c *cell, o observation) actions {
	obs := c.observer
	s.dropObserverLocked(c)
	return serveNow(obs, o)
}

func (s *session) dropObserverLocked(c *cell) {
	if c.observer.timer != nil {
		c.observer.timer.Stop()
	}
	if c.observer.ended != nil {
		c.observer.end()
	}
	c.observer = nil
	s.unobservedLocked(c)
}

// await waits for obs's observation. If ctx ends first and obs was not served yet, obs is
// dropped without consuming anything and ctx's error is returned; an observation that was
// already handed over is returned, never lost.
func (s *session) await(ctx context.Context, c *cell, obs *observer, ch <-chan observation) (observation, error) {
	select {
	case o := <-ch:
		return o, nil
	case <-ctx.Done():
	}
	if s.detach(c, obs) {
		return observation{}, ctx.Err()
	}
	return <-ch, nil
}

// detach drops obs if it is still c's observer and reports whether it was.
func (s *session) detach(c *cell, obs *observer) bool {
	s.mu.Lock()
	registered := c.observer == obs
	if registered {
		s.dropObserverLocked(c)
	}
	s.mu.Unlock()
	return registered
}

// Terminate stops a running cell; a completed but unobserved cell returns its completion instead.
func (s *session) Terminate(ctx context.Context, id codemode.CellID) (codemode.WaitOutcome, error) {
	s.mu.Lock()
	claim := s.terminateLocked(id)
	s.mu.Unlock()
	claim.after.run()
	switch {
	case claim.c == nil:
		return codemode.MissingCellOutcome(id), nil
	case claim.err != nil:
		return codemode.WaitOutcome{}, claim.err
	case claim.completion != nil:
		s.closeCell(claim.c)
		return codemode.LiveCell(*claim.completion), nil
	}
	resp, err := s.awaitTermination(ctx, claim.c, claim.ch)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	s.closeCell(claim.c)
	return codemode.LiveCell(resp), nil
}

// terminationClaim is what terminateLocked decided.
type terminationClaim struct {
	c          *cell                     // nil: the cell is missing
	err        error                     // the cell is already terminating
	completion *codemode.RuntimeResponse // the unobserved completion the terminate claimed
	ch         chan codemode.RuntimeResponse
	after      actions
}

func (s *session) terminateLocked(id codemode.CellID) terminationClaim {
	c := s.cells[id]
	if c == nil {
		return terminationClaim{}
	}
	switch c.state {
	case cellCompleted:
		resp := s.claimCompletionLocked(c)
		s.idle.observed(id)
		return terminationClaim{c: c, completion: &resp}
	case cellTerminating:
		return terminationClaim{c: c, err: codemode.NewCellError(codemode.CellTerminating, id)}
	case cellRunning:
		ch := make(chan codemode.RuntimeResponse, 1)
		c.terminator, c.state = ch, cellTerminating
		s.idle.observed(id)
		return terminationClaim{c: c, ch: ch, after: actions{func() { s.stop(c) }}}
	}
	return terminationClaim{}
}

// awaitTermination waits for the Terminated response of a terminate. If ctx ends first, the
// terminate stops waiting and the cell closes itself when its cleanup ends.
func (s *session) awaitTermination(ctx context.Context, c *cell, ch chan codemode.RuntimeResponse) (codemode.RuntimeResponse, error) {
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
	}
	if s.detachTerminator(c, ch) {
		return codemode.RuntimeResponse{}, ctx.Err()
	}
	return <-ch, nil
}

// detachTerminator removes ch as c's terminator if it still is and reports whether it was.
func (s *session) detachTerminator(c *cell, ch chan codemode.RuntimeResponse) bool {
	s.mu.Lock()
	waiting := c.terminator == ch
	if waiting {
		c.terminator = nil
	}
	s.mu.Unlock()
	return waiting
}

// Shutdown interrupts every cell, refuses new ones and waits until all are closed.
func (s *session) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	for _, c := range s.registered() {
		s.interrupt(c)
	}
	s.stopIdleTimer() // every cell is ending: none is left to reclaim
	done := make(chan struct{})
	go func() {
		s.open.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.p.forget(s)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// registered returns the session's cells.
func (s *session) registered() []*cell {
	s.mu.Lock()
	cells := make([]*cell, 0, len(s.cells))
	for _, c := range s.cells {
		cells = append(cells, c)
	}
	s.mu.Unlock()
	return cells
}

// interrupt terminates a cell on behalf of nobody (abandon, shutdown): a running cell is stopped
// and its observer, if any, gets the Terminated response; a completed, unobserved cell is closed.
func (s *session) interrupt(c *cell) {
	s.mu.Lock()
	after := s.interruptLocked(c)
	s.mu.Unlock()
	after.run()
}

// interruptLocked is interrupt's decision.
func (s *session) interruptLocked(c *cell) actions {
	s.idle.observed(c.id)
	switch c.state {
	case cellRunning:
		c.state = cellTerminating
		return actions{func() { s.stop(c) }}
	case cellCompleted:
		c.state = cellDelivering
		return actions{func() { s.closeCell(c) }}
	}
	return nil
}

// outputLimitText is the error a helper throws when the cell's unobserved output would exceed
// the provider's limit.
const outputLimitText = "output exceeded the cell's limit of %d bytes not yet observed; wait for the cell or write less"

// outputBudgetText is the error a helper throws when the cell is within its output limit but the
// host's memory budget, shared by every cell, cannot hold the item: the host is full, not the
// cell's output.
const outputBudgetText = "output of %d bytes refused: the code-mode host's memory budget of %d bytes, shared by every cell, is spent; wait for the cell or write less"

// outputGrant is how much a cell's unobserved output may cost (outputCharge) without the budget's
// refusal (it is charged all the same): a host whose budget the other cells spent still lets a small cell
// answer (128 cells overdraw it by 8 MiB at most, within the host's headroom).
const outputGrant = 64 << 10

// appendOutput records output of a running cell; it is visible to the next observation at once.
// It refuses an item that would take the unobserved output past the provider's limit, or that
// the host's memory budget cannot hold while no observer has taken it.
func (s *session) appendOutput(c *cell, item codemode.ContentItem) error {
	n := itemBytes(item)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.out.bytes+n > s.p.limits.maxOutputBytes {
		c.out.reserved = 0
		c.out.refund()
		return fmt.Errorf(outputLimitText, s.p.limits.maxOutputBytes)
	}
	if !c.out.pay(n) {
		return fmt.Errorf(outputBudgetText, n, s.p.budget.Limit())
	}
	c.out.add(item, n)
	return nil
}

// reserveOutput reserves the budget for a text of at least n bytes that the cell is about to
// append (see cellRun.offer), or refuses it as appendOutput would.
func (s *session) reserveOutput(c *cell, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !c.out.reserve(n) {
		return fmt.Errorf(outputBudgetText, n, s.p.budget.Limit())
	}
	return nil
}

// runtimeStarted records that c's runtime has an engine and arms its observer's yield deadline:
// like Codex's Started event, start-up does not count against the yield time.
func (s *session) runtimeStarted(c *cell) {
	s.mu.Lock()
	c.started = true
	var after actions
	if c.state == cellRunning {
		after = s.armLocked(c)
	}
	s.mu.Unlock()
	after.run()
}

// yieldControl answers a yielding observer with the output so far. Without an observer it does
// nothing, except that the first one before the cell was ever observed sets the output so far
// apart for the first observation (Codex's pending initial yield). (Codex's host sometimes also
// keeps later unobserved yields apart, when its cell actor lags behind V8; that is a race of its
// threads, not a rule, and codemode follows the rule.)
func (s *session) yieldControl(c *cell) {
	s.mu.Lock()
	var after actions
	switch {
	case c.state != cellRunning:
	case c.observer == nil:
		if !c.observed && !c.out.hasYield() {
			c.out.markYield()
		}
	case c.observer.yields():
		after = s.serveLocked(c, c.yielded(c.out.take()))
	}
	s.mu.Unlock()
	after.run()
}

// atFrontier is called by c's event loop when it is quiescent and reports whether the loop must
// pause there. It must in pending mode: a waiting pending observer is handed the frontier, and
// without one the frontier is kept for the next (Codex: a dropped pending observer preserves it).
func (s *session) atFrontier(c *cell) bool {
	s.mu.Lock()
	var after actions
	pause := c.state == cellRunning && c.pendingMode
	if pause {
		c.paused = true
		if c.observer != nil && !c.observer.yields() {
			after = s.serveLocked(c, s.frontierLocked(c))
		} else {
			c.frontierReady = true
		}
	}
	s.mu.Unlock()
	after.run()
	return pause
}

// awaitResume blocks c's paused event loop until an observation resumes it or the cell is
// stopped. If idle fires meanwhile, it calls onIdle (the loop sheds its engine's exports).
func (s *session) awaitResume(c *cell, idle <-chan time.Time, onIdle func()) {
	for s.isPaused(c) {
		select {
		case <-c.wake:
		case <-c.ctx.Done():
			return
		case <-idle:
			onIdle()
			idle = nil
		}
	}
}

func (s *session) isPaused(c *cell) bool {
	s.mu.Lock()
	paused := c.paused
	s.mu.Unlock()
	return paused
}

// finish publishes the end of a cell's goroutine: a Result (committing stored values) unless a
// terminate claimed the cell first, in which case the Terminated response.
func (s *session) finish(c *cell, errText *string, writes storedValues) {
	s.mu.Lock()
	var after actions
	switch c.state {
	case cellRunning:
		after = s.completeLocked(c, errText, writes)
	case cellTerminating:
		after = s.endTerminationLocked(c)
	}
	s.mu.Unlock()
	after.run()
}

// completeLocked commits a finished cell's stored values and hands its Result to the observer,
// or keeps it for the next observation.
func (s *session) completeLocked(c *cell, errText *string, writes storedValues) actions {
	if msg := s.p.storeLimits.commit(s.stored, writes); msg != "" && errText == nil {
		errText = &msg
	}
	resp := codemode.RuntimeResponse{Kind: codemode.Result, CellID: c.id, ErrorText: errText}
	obs := c.observer
	if obs == nil {
		resp.ContentItems = c.out.takeResult()
		c.state, c.result, c.completedAt = cellCompleted, &resp, time.Now()
		s.unobservedLocked(c)
		return nil
	}
	var live time.Duration
	resp.BufferedFor = &live
	resp.ContentItems = c.out.take()
	c.state = cellDelivering
	after := s.serveLocked(c, observation{resp: resp})
	if obs.kind == initialObserver {
		after.add(func() { s.closeCell(c) })
	}
	return after
}

// terminateGrace bounds how long a terminated cell may take to wind down (its runtime to stop,
// its callbacks to return). A script stops within milliseconds, but a delegate that ignores
// cancellation, or a wasm host call that sleeps, must not hold the terminate or shutdown forever:
// after the grace the cell is reported terminated and closed, and its goroutine ends on its own.
const terminateGrace = 2 * time.Second

// stop cancels a cell whose terminate was just claimed and arms the grace backstop.
func (s *session) stop(c *cell) {
	c.cancel()
	time.AfterFunc(terminateGrace, func() { s.graceExpired(c) })
}

// graceExpired ends a termination whose cell did not wind down within terminateGrace.
func (s *session) graceExpired(c *cell) {
	s.mu.Lock()
	var after actions
	if c.state == cellTerminating {
		after = s.endTerminationLocked(c)
	}
	s.mu.Unlock()
	after.run()
}

// endTerminationLocked delivers the Terminated response of a terminating cell: the output goes to
// the terminate caller if there is one, else to the observer. Wait and Terminate callers close the
// cell once they hold the response; otherwise (initial response, or nobody listening) the returned
// actions close it after delivery.
func (s *session) endTerminationLocked(c *cell) actions {
	terminated := codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: c.id, ContentItems: c.out.take()}
	terminator, obs := c.terminator, c.observer
	c.terminator, c.state = nil, cellDelivering
	var after actions
	if obs != nil {
		forObserver := terminated
		if terminator != nil {
			forObserver.ContentItems = []codemode.ContentItem{}
		}
		after = s.serveLocked(c, observation{resp: forObserver})
	}
	switch {
	case terminator != nil:
		after.add(func() { terminator <- terminated })
	case obs == nil || obs.kind == initialObserver:
		after.add(func() { s.closeCell(c) })
	}
	return after
}

// closeCell removes a cell whose terminal response was delivered and reports it to the delegate,
// exactly once.
func (s *session) closeCell(c *cell) {
	c.closeOnce.Do(func() {
		s.mu.Lock()
		c.state = cellClosed
		delete(s.cells, c.id)
		s.idle.observed(c.id)
		c.out.releaseHeld() // a Result nobody claimed
		s.mu.Unlock()
		c.cancel()
		defer s.open.Done()
		usage := codemode.CellUsage{PeakHeapBytes: c.peakHeap.Load()}
		s.callDelegate(c.id, "CellUsage", func() { s.delegate.CellUsage(c.id, usage) })
		s.callDelegate(c.id, "CellClosed", func() { s.delegate.CellClosed(c.id) })
	})
}

// callDelegate calls one of the delegate's closing callbacks (name) for cell id. A callback that
// panics is the owner's bug, not the caller's: it is contained and reported (Codex reports its
// cell task failing), and the next callback still runs.
func (s *session) callDelegate(id codemode.CellID, name string, call func()) {
	returned := false
	defer func() {
		switch p := recover(); {
		case p != nil:
			s.report(codemode.CellTaskFailure(id, fmt.Sprintf("%s panicked: %v", name, p)))
		case !returned:
			s.report(codemode.CellTaskFailure(id, name+" ended its goroutine without returning"))
		}
	}()
	call()
	returned = true
}

// LiveCellUsage implements codemode.CellUsageProbe: the peak memory of a cell still open, as of
// its last turn.
func (s *session) LiveCellUsage(id codemode.CellID) (codemode.CellUsage, bool) {
	s.mu.Lock()
	c := s.cells[id]
	s.mu.Unlock()
	if c == nil {
		return codemode.CellUsage{}, false
	}
	return codemode.CellUsage{PeakHeapBytes: c.peakHeap.Load()}, true
}
