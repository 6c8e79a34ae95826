package v1client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// sessionState is where a session is in its life.
type sessionState int

const (
	sessionReady sessionState = iota
	sessionClosing
	sessionClosed
)

// session is a codemode.Session on a remote host.
type session struct {
	conn     *connection
	id       wirev1.SessionId
	delegate codemode.Delegate

	// Guarded by conn.mu.
	state  sessionState
	closed chan struct{} // closed when Shutdown finished
	cells  map[wirev1.WireCellId]codemode.CellID
	// executing counts executes sent and not yet answered; delegate requests for unknown cells
	// are deferred while it is positive.
	executing int
}

var _ codemode.Session = (*session)(nil)

func newSession(c *connection, id wirev1.SessionId, d codemode.Delegate) *session {
	return &session{conn: c, id: id, delegate: d, closed: make(chan struct{}), cells: map[wirev1.WireCellId]codemode.CellID{}}
}

// cellsChanged is a hook for when the cell set changed; callers hold conn.mu.
func (s *session) cellsChanged() {}

// drainCells forgets every live cell and returns them for their closure. Callers hold conn.mu.
func (s *session) drainCells() []closedCell {
	out := make([]closedCell, 0, len(s.cells))
	for wire, public := range s.cells {
		out = append(out, closedCell{delegate: s.delegate, id: public})
		delete(s.cells, wire)
	}
	return out
}

// Execute admits a cell on the host. If ctx ends before the host answers, the execute is
// cancelled on the host, and a cell the host admitted all the same is terminated.
func (s *session) Execute(ctx context.Context, req codemode.ExecuteRequest) (*codemode.StartedCell, error) {
	c := s.conn
	wreq, err := v1convert.ExecuteRequestToWire(req)
	if err != nil {
		return nil, fmt.Errorf("failed to encode code-mode execute request: %w", err)
	}
	c.mu.Lock()
	if s.state != sessionReady {
		c.mu.Unlock()
		return nil, codemode.ErrShuttingDown
	}
	s.executing++
	c.mu.Unlock()
	p := newPending("execute", s)
	p.cancellable = true
	p.yieldNow = req.YieldNow
	p.yieldMs = req.YieldTimeMs
	if p.yieldMs == nil {
		d := codemode.DefaultExecYieldTimeMs
		p.yieldMs = &d
	}
	terminate := func(r reply) {
		if r.err == nil && p.started != nil {
			p.started.Abandon()
		}
	}
	p.retired, p.unclaimed = terminate, terminate
	p.unsent = func() { c.executeFailed(s) }
	if _, err := c.roundTrip(ctx, p, wirev1.Execute{SessionId: s.id, Request: wreq}, c.transportDeadline(nil)); err != nil {
		return nil, err
	}
	return p.started, nil
}

// admitCell records a started cell (in the read loop, before the next message is handled, so
// that delegate requests for it find it) and waits for its initial response.
func (c *connection) admitCell(id wirev1.RequestId, p *pendingRequest, wire wirev1.WireCellId) error {
	s := p.session
	public := publicCellID(c.epoch, wire)
	ch := make(chan codemode.InitialResult, 1)
	p.started = codemode.NewStartedCell(public, ch, func() { c.terminateAbandoned(s, wire) })
	w := &initialWaiter{ch: ch, cell: wire, stop: func() bool { return false }, done: make(chan struct{})}
	c.mu.Lock()
	s.executing--
	if _, dup := s.cells[wire]; dup {
		c.mu.Unlock()
		return fmt.Errorf("code-mode host reused live cell %s in session %s", wire, s.id)
	}
	s.cells[wire] = public
	c.requests.initials[id] = w
	timer := time.AfterFunc(c.transportDeadline(p.yieldMs), func() {
		c.fail(errors.New("code-mode host timed out waiting for execute response"))
	})
	w.stop = timer.Stop
	run := c.flushDeferredLocked(s)
	c.mu.Unlock()
	c.watchYield(id, p.yieldNow, w.done)
	run()
	return nil
}

// executeFailed accounts for an execute that admitted no cell.
func (c *connection) executeFailed(s *session) {
	c.mu.Lock()
	s.executing--
	run := c.flushDeferredLocked(s)
	c.mu.Unlock()
	run()
}

// initialWaiter receives an execute's initial response.
type initialWaiter struct {
	ch   chan codemode.InitialResult
	cell wirev1.WireCellId
	stop func() bool
	// done is closed once the response (or a failure) was delivered.
	done chan struct{}
	once sync.Once
}

func (w *initialWaiter) fail(err error) {
	w.stop()
	w.deliver(codemode.InitialResult{Err: err})
}

func (w *initialWaiter) deliver(r codemode.InitialResult) {
	select {
	case w.ch <- r:
	default:
	}
	w.once.Do(func() { close(w.done) })
}

// completeInitial hands an execute/initialResponse to its StartedCell. An unknown request ID
// and a response about another cell are fatal.
func (c *connection) completeInitial(id wirev1.RequestId, res wirev1.RuntimeResponseResult) error {
	c.mu.Lock()
	w, ok := c.requests.initials[id]
	delete(c.requests.initials, id)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("code-mode host returned initial response for unknown request ID RequestId(%d)", id)
	}
	w.stop()
	switch v := res.(type) {
	case wirev1.RuntimeResponseOk:
		if got := v1convert.RuntimeResponseCellID(v.Value); got != w.cell {
			err := fmt.Errorf("code-mode host returned initial response for cell %s instead of %s", got, w.cell)
			w.fail(err)
			return err
		}
		w.deliver(codemode.InitialResult{Response: c.runtimeResponse(v.Value)})
	case wirev1.RuntimeResponseError:
		w.deliver(codemode.InitialResult{Err: errors.New(v.Message)})
	}
	return nil
}

// terminateAbandoned terminates a cell whose caller left, in the background; its answer is
// dropped. A session that is closing terminates its cells anyway.
func (c *connection) terminateAbandoned(s *session, wire wirev1.WireCellId) {
	c.mu.Lock()
	skip := s.state != sessionReady || c.failure != nil
	c.mu.Unlock()
	if skip {
		return
	}
	c.tasks.Add(1)
	go func() {
		defer c.tasks.Done()
		p := newPending("terminate", s)
		p.cell = wire
		_, _ = c.roundTrip(context.Background(), p, wirev1.Terminate{SessionId: s.id, CellId: wire}, c.transportDeadline(nil))
	}()
}

// Wait observes a cell. A wait behind a cancelled one for the same cell is sent only after the
// host retired that one.
func (s *session) Wait(ctx context.Context, req codemode.WaitRequest) (codemode.WaitOutcome, error) {
	c := s.conn
	wire, err := wireCellID(c.epoch, req.CellID)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	key := cellKey{s.id, wire}
	if err := c.awaitRetirement(ctx, key); err != nil {
		return codemode.WaitOutcome{}, err
	}
	p := newPending("wait", s)
	p.cell = wire
	p.cancellable = true
	p.yieldNow = req.YieldNow
	p.onAbandon = func() { c.requests.retiring[key]++ }
	p.retired = func(reply) { c.retire(key) }
	yield := req.YieldTimeMs
	resp, err := c.roundTrip(ctx, p, wirev1.Wait{SessionId: s.id, Request: v1convert.WaitRequestToWire(wire, req), MaxOutputTokens: c.waitBudget(req.MaxOutputTokens)}, c.transportDeadline(&yield))
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	return c.waitOutcome(resp), nil
}

// awaitRetirement waits until no cancelled wait of key is outstanding.
func (c *connection) awaitRetirement(ctx context.Context, key cellKey) error {
	for {
		c.mu.Lock()
		if c.failure != nil {
			c.mu.Unlock()
			return c.failure
		}
		if c.requests.retiring[key] == 0 {
			c.mu.Unlock()
			return nil
		}
		ch := make(chan struct{})
		c.requests.deferred[key] = append(c.requests.deferred[key], ch)
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// retire accounts for the answer to a cancelled wait and releases the waits behind it.
func (c *connection) retire(key cellKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests.retiring[key]--; c.requests.retiring[key] > 0 {
		return
	}
	delete(c.requests.retiring, key)
	for _, ch := range c.requests.deferred[key] {
		close(ch)
	}
	delete(c.requests.deferred, key)
}

func (c *connection) waitOutcome(resp wirev1.HostResponse) codemode.WaitOutcome {
	o := v1convert.WaitOutcomeFromWire(resp.(wirev1.WaitCompleted).Outcome)
	o.Response = publicResponse(c.epoch, o.Response)
	return o
}

// Terminate stops a cell.
func (s *session) Terminate(ctx context.Context, id codemode.CellID) (codemode.WaitOutcome, error) {
	c := s.conn
	wire, err := wireCellID(c.epoch, id)
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	p := newPending("terminate", s)
	p.cell = wire
	resp, err := c.roundTrip(ctx, p, wirev1.Terminate{SessionId: s.id, CellId: wire}, c.transportDeadline(nil))
	if err != nil {
		return codemode.WaitOutcome{}, err
	}
	return c.waitOutcome(resp), nil
}

// Shutdown shuts the session down on the host, which closes every cell first. It is
// idempotent; a session whose connection failed is already shut down (its cells were closed
// when the connection failed). A caller that leaves once the request went out gets ctx's error,
// but the shutdown goes on: the host's answer finishes it, closing the session here too.
func (s *session) Shutdown(ctx context.Context) error {
	c := s.conn
	c.mu.Lock()
	switch s.state {
	case sessionClosed:
		c.mu.Unlock()
		return nil
	case sessionClosing:
		c.mu.Unlock()
		select {
		case <-s.closed:
			return nil
		case <-c.ctx.Done(): // the connection failed: its cells were closed with it
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.state = sessionClosing
	failed := c.failure != nil
	c.mu.Unlock()
	if !failed {
		p := newPending("shutdown", s)
		p.retired = func(r reply) {
			if r.err != nil {
				s.reopen()
				return
			}
			s.finishShutdown()
		}
		p.unclaimed = p.retired
		unsent := false
		p.unsent = func() { unsent = true }
		if _, err := c.roundTrip(ctx, p, wirev1.ShutdownSession{SessionId: s.id}, c.transportDeadline(nil)); err != nil && c.alive() {
			if !unsent && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return err // the request went out: p.retired finishes the shutdown
			}
			s.reopen()
			return err
		}
	}
	s.finishShutdown()
	return nil
}

// reopen makes a session whose shutdown failed usable again.
func (s *session) reopen() {
	s.conn.mu.Lock()
	if s.state == sessionClosing {
		s.state = sessionReady
	}
	s.conn.mu.Unlock()
}

// finishShutdown closes the session locally once the host closed it (or the connection
// failed): its remaining cells are closed and it is forgotten. It runs at most once.
func (s *session) finishShutdown() {
	c := s.conn
	c.mu.Lock()
	if s.state == sessionClosed {
		c.mu.Unlock()
		return
	}
	rest := s.drainCells()
	delete(c.sessions, s.id)
	s.state = sessionClosed
	close(s.closed)
	c.mu.Unlock()
	for _, cc := range rest {
		cc.notify()
	}
}
