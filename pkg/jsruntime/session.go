package jsruntime

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Locking: s.mu guards the session's registry and every cell field marked "guarded by
// session.mu", among them the cell's lifecycle (celllife.go). A function that takes s.mu releases
// it in exactly one place. Every change of a cell's life is an event applied to its lifecycle
// under s.mu (applyLocked, cellfx.go); work that must not run under the lock — handing a response
// to an observer, closing a cell (which calls the delegate), stopping or waking a cell's event
// loop — comes back as actions, which the caller runs after it released the lock.

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
	// borrowable is called whenever a cell's loop may be borrowed (cellRun.runInline): its
	// goroutine parked, or a borrowed turn gave it back.
	borrowable func(codemode.CellID)
}

// loopBorrowable runs the borrowable hook of cell id, if there is one.
func (h *testHooks) loopBorrowable(id codemode.CellID) {
	if h.borrowable != nil {
		h.borrowable(id)
	}
}

// stage runs the runtime hook of cell id's goroutine at st, if there is one.
func (h *testHooks) stage(id codemode.CellID, st runtimeStage) {
	if h.runtime != nil {
		h.runtime(id, st)
	}
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
	// stageBorrowed: a done caller's goroutine borrowed the parked loop for an answer's turn
	// (runInline); the hook runs on that goroutine.
	stageBorrowed
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
	return codemode.NewStartedCell(c.id, initial, func() { s.apply(c, event{kind: evInterrupt}) }), nil
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
	c, snapshot, err := s.admitLocked(req, newCellLifecycle(obs, pendingMode))
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	go s.runCell(c, req, snapshot)
	return c, nil
}

// admitLocked registers a new cell with its lifecycle and returns the stored values it starts
// from.
func (s *session) admitLocked(req codemode.ExecuteRequest, life cellLifecycle) (*cell, storedValues, error) {
	if s.closing.Load() {
		return nil, nil, codemode.ErrShuttingDown
	}
	id, err := s.ids.Next()
	if err != nil {
		return nil, nil, err
	}
	c := newCell(id, req.ToolCallID, life)
	c.out.budget = s.p.budget
	s.cells[id] = c
	s.open.Add(1)
	s.running.Add(1) // before anyone can see the cell, so its goroutine is counted from the start
	if c.life.unobserved() {
		s.idleLocked(c, idleRecord)
	}
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
	c := s.cells[id]
	var a applied
	if c != nil {
		s.applyLocked(c, &event{kind: evAttach, obs: obs}, &a)
	}
	s.mu.Unlock()
	a.after.run()
	switch {
	case c == nil || a.refused == refusedMissing:
		return nil, nil
	case a.refused == refusedObserved:
		return nil, codemode.NewCellError(codemode.CellHasObserver, id)
	}
	return c, nil
}

// watchYieldNow serves obs with the output so far when now is closed, if obs still observes c
// then, as its yield deadline would (operation/yield). The watcher ends with the observation.
func (s *session) watchYieldNow(c *cell, obs *observer, now <-chan struct{}) {
	if now == nil || !obs.yields() {
		return
	}
	go func() {
		select {
		case <-now:
			s.apply(c, event{kind: evDeadline, obs: obs})
		case <-obs.ended:
		}
	}()
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
	if s.apply(c, event{kind: evDetach, obs: obs}).dropped {
		return observation{}, ctx.Err()
	}
	return <-ch, nil
}

// Terminate stops a running cell; a completed but unobserved cell returns its completion instead.
func (s *session) Terminate(ctx context.Context, id codemode.CellID) (codemode.WaitOutcome, error) {
	ch := make(chan codemode.RuntimeResponse, 1)
	s.mu.Lock()
	c := s.cells[id]
	var a applied
	if c != nil {
		s.applyLocked(c, &event{kind: evTerminate, terminator: ch}, &a)
	}
	s.mu.Unlock()
	a.after.run()
	switch {
	case c == nil || a.refused == refusedMissing:
		return codemode.MissingCellOutcome(id), nil
	case a.refused == refusedTerminating:
		return codemode.WaitOutcome{}, codemode.NewCellError(codemode.CellTerminating, id)
	case a.claimed != nil:
		s.closeCell(c)
		return codemode.LiveCell(*a.claimed), nil
	}
	resp, err := s.awaitTermination(ctx, c, ch)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	s.closeCell(c)
	return codemode.LiveCell(resp), nil
}

// awaitTermination waits for the Terminated response of a terminate. If ctx ends first, the
// terminate stops waiting and the cell closes itself when its cleanup ends.
func (s *session) awaitTermination(ctx context.Context, c *cell, ch chan codemode.RuntimeResponse) (codemode.RuntimeResponse, error) {
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
	}
	if s.apply(c, event{kind: evDetachTerminator, terminator: ch}).dropped {
		return codemode.RuntimeResponse{}, ctx.Err()
	}
	return <-ch, nil
}

// Shutdown interrupts every cell, refuses new ones and waits until all are closed.
func (s *session) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	for _, c := range s.registered() {
		s.apply(c, event{kind: evInterrupt})
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

// closeCell removes a cell whose terminal response was delivered and reports it to the delegate,
// exactly once.
func (s *session) closeCell(c *cell) {
	c.closeOnce.Do(func() {
		s.mu.Lock()
		s.applyLocked(c, &event{kind: evClose}, &applied{})
		delete(s.cells, c.id)
		c.out.releaseHeld() // a Result nobody claimed
		s.mu.Unlock()
		c.cancel()
		defer s.open.Done()
		usage := codemode.CellUsage{PeakHeapBytes: c.peakHeap.Load()}
		// A callback that fails is the owner's bug: it is reported, and the next still runs.
		codemode.CallCellUsage(s.delegate, c.id, usage)
		codemode.CallCellClosed(s.delegate, c.id)
	})
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
