package jsruntime

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// session is the in-process codemode.Session: cells on fresh QuickJS runtimes that share stored
// values.
type session struct {
	p        *Provider
	delegate codemode.Delegate
	limits   codemode.SessionCellExecutionLimits

	mu           sync.Mutex
	ids          codemode.CellIDAllocator
	cells        map[codemode.CellID]*cell
	shuttingDown bool
	stored       storedValues   // committed stored values, as JSON
	open         sync.WaitGroup // admitted cells not yet closed
}

var _ codemode.Session = (*session)(nil)

func (s *session) heapLimit() uint64 {
	if s.limits.MaxHeapSizeBytes != nil {
		return *s.limits.MaxHeapSizeBytes
	}
	return s.p.defaultHeapLimit
}

// Execute admits a cell and starts it on its own goroutine.
func (s *session) Execute(_ context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	requested := codemode.DefaultExecYieldTimeMs
	if req.YieldTimeMs != nil {
		requested = *req.YieldTimeMs
	}
	s.mu.Lock()
	if s.shuttingDown {
		s.mu.Unlock()
		return nil, codemode.ErrShuttingDown
	}
	id, err := s.ids.Next()
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &cell{id: id, callID: req.ToolCallID, ctx: ctx, cancel: cancel, state: cellRunning}
	s.cells[id] = c
	s.open.Add(1)
	snapshot := maps.Clone(s.stored)
	if snapshot == nil {
		snapshot = storedValues{}
	}
	initial := make(chan codemode.InitialResult, 1)
	s.observeLocked(c, &observer{
		initial: true,
		deliver: func(r codemode.RuntimeResponse) { initial <- codemode.InitialResult{Response: r} },
	}, codemode.EffectiveYieldTimeMs(requested, s.limits.MaxYieldTimeMs))
	s.mu.Unlock()

	go s.runCell(c, req, snapshot)
	return codemode.NewStartedCell(id, initial, func() { s.interrupt(c) }), nil
}

// Wait observes a cell until it yields again or ends.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	s.mu.Lock()
	c := s.cells[req.CellID]
	if c == nil || c.state == cellDelivering || c.state == cellClosed {
		s.mu.Unlock()
		return codemode.MissingCellOutcome(req.CellID), nil
	}
	if c.state == cellCompleted {
		resp := *c.result
		c.state = cellDelivering
		s.mu.Unlock()
		s.closeCell(c)
		return codemode.LiveCell(resp), nil
	}
	if c.observer != nil {
		s.mu.Unlock()
		return codemode.WaitOutcome{}, codemode.NewCellError(codemode.CellHasObserver, c.id)
	}
	ch := make(chan codemode.RuntimeResponse, 1)
	obs := &observer{deliver: func(r codemode.RuntimeResponse) { ch <- r }}
	s.observeLocked(c, obs, codemode.EffectiveYieldTimeMs(req.YieldTimeMs, s.limits.MaxYieldTimeMs))
	s.mu.Unlock()

	var resp codemode.RuntimeResponse
	select {
	case resp = <-ch:
	case <-ctx.Done():
		s.mu.Lock()
		if c.observer == obs {
			// Not served yet: leave without consuming anything.
			s.dropObserverLocked(c)
			s.mu.Unlock()
			return codemode.WaitOutcome{}, ctx.Err()
		}
		s.mu.Unlock()
		resp = <-ch
	}
	if resp.IsTerminal() {
		s.closeCell(c)
	}
	return codemode.LiveCell(resp), nil
}

// Terminate stops a running cell; a completed but unobserved cell returns its completion instead.
func (s *session) Terminate(ctx context.Context, id codemode.CellID) (codemode.WaitOutcome, error) {
	s.mu.Lock()
	c := s.cells[id]
	if c == nil || c.state == cellDelivering || c.state == cellClosed {
		s.mu.Unlock()
		return codemode.MissingCellOutcome(id), nil
	}
	switch c.state {
	case cellCompleted:
		resp := *c.result
		c.state = cellDelivering
		s.mu.Unlock()
		s.closeCell(c)
		return codemode.LiveCell(resp), nil
	case cellTerminating:
		s.mu.Unlock()
		return codemode.WaitOutcome{}, codemode.NewCellError(codemode.CellTerminating, id)
	}
	ch := make(chan codemode.RuntimeResponse, 1)
	c.terminator = ch
	c.state = cellTerminating
	s.mu.Unlock()
	s.stop(c)

	var resp codemode.RuntimeResponse
	select {
	case resp = <-ch:
	case <-ctx.Done():
		s.mu.Lock()
		if c.terminator == ch {
			c.terminator = nil // the cell closes itself when its cleanup ends
			s.mu.Unlock()
			return codemode.WaitOutcome{}, ctx.Err()
		}
		s.mu.Unlock()
		resp = <-ch
	}
	s.closeCell(c)
	return codemode.LiveCell(resp), nil
}

// Shutdown interrupts every cell, refuses new ones and waits until all are closed.
func (s *session) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shuttingDown = true
	cells := make([]*cell, 0, len(s.cells))
	for _, c := range s.cells {
		cells = append(cells, c)
	}
	s.mu.Unlock()
	for _, c := range cells {
		s.interrupt(c)
	}
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

// interrupt terminates a cell on behalf of nobody (abandon, shutdown): a running cell is stopped
// and its observer, if any, gets the Terminated response; a completed, unobserved cell is closed.
func (s *session) interrupt(c *cell) {
	s.mu.Lock()
	switch c.state {
	case cellRunning:
		c.state = cellTerminating
		s.mu.Unlock()
		s.stop(c)
	case cellCompleted:
		c.state = cellDelivering
		s.mu.Unlock()
		s.closeCell(c)
	default:
		s.mu.Unlock()
	}
}

// observeLocked registers obs as c's observer with a yield deadline of ms.
func (s *session) observeLocked(c *cell, obs *observer, ms uint64) {
	c.observer = obs
	d, ok := yieldDuration(ms)
	if !ok {
		return
	}
	obs.timer = time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c.observer == obs && c.state == cellRunning {
			s.serveLocked(c, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: c.id, ContentItems: c.takePending()})
		}
	})
}

// serveLocked hands r to c's observer and unregisters it.
func (s *session) serveLocked(c *cell, r codemode.RuntimeResponse) *observer {
	obs := c.observer
	s.dropObserverLocked(c)
	obs.deliver(r)
	return obs
}

func (s *session) dropObserverLocked(c *cell) {
	if c.observer.timer != nil {
		c.observer.timer.Stop()
	}
	c.observer = nil
}

// outputLimitText is the error a helper throws when the cell's unobserved output would exceed
// the provider's limit.
const outputLimitText = "output exceeded the cell's limit of %d bytes not yet observed; wait for the cell or write less"

// appendOutput records output of a running cell; it is visible to the next observation at once.
// It refuses an item that would take the unobserved output past the provider's limit.
func (s *session) appendOutput(c *cell, item codemode.ContentItem) error {
	n := itemBytes(item)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.pendingBytes+n > s.p.limits.maxOutputBytes {
		return fmt.Errorf(outputLimitText, s.p.limits.maxOutputBytes)
	}
	c.pending = append(c.pending, item)
	c.pendingBytes += n
	return nil
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

// yieldControl serves the current observer with the output so far; without one it does nothing.
func (s *session) yieldControl(c *cell) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.observer != nil && c.state == cellRunning {
		s.serveLocked(c, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: c.id, ContentItems: c.takePending()})
	}
}

// finish publishes the end of a cell's goroutine: a Result (committing stored values) unless a
// terminate claimed the cell first, in which case the Terminated response.
func (s *session) finish(c *cell, errText *string, writes storedValues) {
	s.mu.Lock()
	switch c.state {
	case cellRunning:
		if msg := s.p.storeLimits.commit(s.stored, writes); msg != "" && errText == nil {
			errText = &msg
		}
		resp := codemode.RuntimeResponse{Kind: codemode.Result, CellID: c.id, ContentItems: c.takePending(), ErrorText: errText}
		if c.observer == nil {
			c.state = cellCompleted
			c.result = &resp
			s.mu.Unlock()
			return
		}
		c.state = cellDelivering
		obs := s.serveLocked(c, resp)
		s.mu.Unlock()
		if obs.initial {
			s.closeCell(c) // a Wait closes the cell itself once it holds the response
		}
	case cellTerminating:
		s.endTerminationLocked(c)
	default:
		s.mu.Unlock()
	}
}

// terminateGrace bounds how long a terminated cell may take to wind down (its runtime to stop,
// its callbacks to return). A script stops within milliseconds, but a delegate that ignores
// cancellation, or a wasm host call that sleeps, must not hold the terminate or shutdown forever:
// after the grace the cell is reported terminated and closed, and its goroutine ends on its own.
var terminateGrace = 2 * time.Second

// stop cancels a cell whose terminate was just claimed and arms the grace backstop.
func (s *session) stop(c *cell) {
	c.cancel()
	time.AfterFunc(terminateGrace, func() {
		s.mu.Lock()
		if c.state != cellTerminating {
			s.mu.Unlock()
			return
		}
		s.endTerminationLocked(c)
	})
}

// endTerminationLocked delivers the Terminated response of a terminating cell: the output goes to
// the terminate caller if there is one, else to the observer. It releases s.mu.
func (s *session) endTerminationLocked(c *cell) {
	items := c.takePending()
	terminator := c.terminator
	c.terminator = nil
	terminated := codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: c.id, ContentItems: items}
	var obs *observer
	if c.observer != nil {
		forObserver := terminated
		if terminator != nil {
			forObserver.ContentItems = []codemode.ContentItem{}
		}
		obs = s.serveLocked(c, forObserver)
	}
	c.state = cellDelivering
	s.mu.Unlock()
	if terminator != nil {
		terminator <- terminated
	}
	// Wait and Terminate callers close the cell once they hold the response; otherwise (initial
	// response, or nobody listening) it is closed here, after delivery.
	if terminator == nil && (obs == nil || obs.initial) {
		s.closeCell(c)
	}
}

// closeCell removes a cell whose terminal response was delivered and reports it to the delegate,
// exactly once.
func (s *session) closeCell(c *cell) {
	c.closeOnce.Do(func() {
		s.mu.Lock()
		c.state = cellClosed
		delete(s.cells, c.id)
		s.mu.Unlock()
		c.cancel()
		s.delegate.CellClosed(c.id)
		s.open.Done()
	})
}
