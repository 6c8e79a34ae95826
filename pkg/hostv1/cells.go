package hostv1

import (
	"context"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/convertv1"
)

// cellForwardingHook, when set by a test, runs at the start of every cell route goroutine.
var cellForwardingHook func()

// cellKey names a cell of a connection.
type cellKey struct {
	session wirev1.SessionId
	cell    codemode.CellID
}

// cellRoute orders what the host sends about one cell (spec §2.8 session/execute):
// execution/started first, then the cell's delegate requests, its initial response, and
// cell/closed last. Until the route is started (the started response is queued) delegate
// requests wait in queue, at most MaxQueuedCellMessages of them; the route's goroutine then
// sends them in order.
type cellRoute struct {
	queue   []routeMessage
	wake    chan struct{} // one pending signal: queue grew
	space   chan struct{} // closed and replaced when the queue was drained
	started bool
	// sending is set while a goroutine sends this route's delegate requests: the route's own
	// goroutine draining the queue, or a caller that found the route idle and sends its request
	// itself (saving a handoff). Either way requests go out one at a time, in order.
	sending bool
	// initialSent is closed once the initial response was queued.
	initialSent chan struct{}
	// budget is the host-side truncation of the initial response; nil: it goes out whole.
	budget *outputBudget
}

// routeMessage is a delegate request to dispatch, or (call nil) the cell's closure.
type routeMessage struct {
	call *delegateCall
}

func newCellRoute() *cellRoute {
	return &cellRoute{wake: make(chan struct{}, 1), space: make(chan struct{}), initialSent: make(chan struct{})}
}

// routeLocked returns the route of key, creating it (not started) if needed. Callers hold c.mu.
func (c *conn) routeLocked(key cellKey) *cellRoute {
	r := c.routes[key]
	if r == nil {
		r = newCellRoute()
		c.routes[key] = r
	}
	return r
}

// enqueue adds m to the route of key. Before the route is started, a full queue makes the
// caller wait for room (ctx bounds the wait); a closure never waits.
func (c *conn) enqueue(ctx context.Context, key cellKey, m routeMessage) error {
	for {
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			return errClientClosed
		}
		r := c.routeLocked(key)
		if r.started || m.call == nil || len(r.queue) < MaxQueuedCellMessages {
			r.queue = append(r.queue, m)
			c.mu.Unlock()
			signal(r.wake)
			return nil
		}
		space := r.space
		c.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return errDelegateCancelled
		case <-c.ctx.Done():
			return errClientClosed
		}
	}
}

// tryEnqueue adds a delegate request to the route of key if that needs no wait (see enqueue)
// and reports whether it did.
func (c *conn) tryEnqueue(key cellKey, m routeMessage) bool {
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return false
	}
	r := c.routeLocked(key)
	if !r.started && len(r.queue) >= MaxQueuedCellMessages {
		c.mu.Unlock()
		return false
	}
	r.queue = append(r.queue, m)
	c.mu.Unlock()
	signal(r.wake)
	return true
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// take empties the route's queue and marks the route as sending, unless a caller is sending
// right now (it wakes the route when it is done).
func (c *conn) take(r *cellRoute) []routeMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.sending {
		return nil
	}
	q := r.queue
	r.queue = nil
	r.sending = len(q) > 0
	close(r.space)
	r.space = make(chan struct{})
	return q
}

// doneSending clears the sending mark and wakes the route if requests queued meanwhile.
func (c *conn) doneSending(r *cellRoute) {
	c.mu.Lock()
	r.sending = false
	more := len(r.queue) > 0
	c.mu.Unlock()
	if more {
		signal(r.wake)
	}
}

// claimIdleRoute marks the route of key as sending if it is started, idle and has nothing
// queued, so that the caller may send its delegate request itself.
func (c *conn) claimIdleRoute(key cellKey) *cellRoute {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.routes[key]
	if r == nil || !r.started || r.sending || len(r.queue) > 0 || c.ctx.Err() != nil {
		return nil
	}
	r.sending = true
	return r
}

// closeCell is the runtime telling that a cell closed (Delegate.CellClosed).
func (c *conn) closeCell(session wirev1.SessionId, cell codemode.CellID) {
	_ = c.enqueue(c.ctx, cellKey{session, cell}, routeMessage{})
}

// startCell starts the route of an admitted cell after its started response was queued. The
// returned channel is closed once its initial response was queued.
func (c *conn) startCell(session wirev1.SessionId, id wirev1.RequestId, started *codemode.StartedCell, releaseCell func(), receivedAt time.Time, budget *outputBudget) <-chan struct{} {
	key := cellKey{session, started.CellID}
	c.mu.Lock()
	r := c.routeLocked(key)
	r.started, r.budget = true, budget
	c.mu.Unlock()
	c.cellTasks.Add(1)
	go func() {
		defer c.cellTasks.Done()
		defer releaseCell()
		defer c.removeRoute(key)
		defer c.supervise("cell forwarding")
		c.driveCell(r, key, id, started, receivedAt)
	}()
	return r.initialSent
}

// driveCell sends, in order, the cell's delegate requests and initial response, and cell/closed
// once the cell closed after it. A disconnect ends it silently.
func (c *conn) driveCell(r *cellRoute, key cellKey, id wirev1.RequestId, started *codemode.StartedCell, receivedAt time.Time) {
	if cellForwardingHook != nil {
		cellForwardingHook()
	}
	initial := make(chan codemode.InitialResult, 1)
	go func() {
		defer c.supervise("initial response")
		resp, err := started.InitialResponse(c.ctx)
		initial <- codemode.InitialResult{Response: resp, Err: err}
	}()
	closed := false
	for !closed {
		select {
		case res := <-initial:
			if c.ctx.Err() != nil {
				return
			}
			c.sendInitial(id, res, receivedAt, r.budget)
			close(r.initialSent)
			initial = nil
		case <-r.wake:
			closed = c.dispatchQueued(r, key.session)
		case <-c.ctx.Done():
			return
		}
	}
	if initial != nil {
		select {
		case res := <-initial:
			c.sendInitial(id, res, receivedAt, r.budget)
			close(r.initialSent)
		case <-c.ctx.Done():
			return
		}
	}
	c.send(wirev1.CellClosed{SessionId: key.session, CellId: wirev1.WireCellId(key.cell)})
}

// dispatchQueued sends the queued delegate requests and reports whether the cell closed.
func (c *conn) dispatchQueued(r *cellRoute, session wirev1.SessionId) bool {
	q := c.take(r)
	if len(q) == 0 {
		return false
	}
	closed := false
	for _, m := range q {
		if m.call == nil {
			closed = true
			continue
		}
		c.dispatchCall(session, m.call)
	}
	c.doneSending(r)
	return closed
}

// removeRoute forgets a finished route and wakes shutdowns waiting for the session's cells.
func (c *conn) removeRoute(key cellKey) {
	c.mu.Lock()
	delete(c.routes, key)
	close(c.routesGone)
	c.routesGone = make(chan struct{})
	c.mu.Unlock()
}

// awaitSessionCells returns once no route of session is left (every cell/closed was sent), the
// connection ended or ctx ended.
func (c *conn) awaitSessionCells(ctx context.Context, session wirev1.SessionId) {
	for {
		c.mu.Lock()
		busy := false
		for k := range c.routes {
			if k.session == session {
				busy = true
				break
			}
		}
		gone := c.routesGone
		c.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-gone:
		case <-c.ctx.Done():
			return
		case <-ctx.Done():
			return
		}
	}
}

// sendInitial sends the execute's initial response, truncated on the host when budget is set.
func (c *conn) sendInitial(id wirev1.RequestId, res codemode.InitialResult, receivedAt time.Time, budget *outputBudget) {
	if res.Err != nil {
		c.sendInitialResult(id, wirev1.RuntimeResponseError{Message: res.Err.Error()})
		return
	}
	// The duration is frozen before conversion and delivery, as Codex does.
	d := time.Since(receivedAt)
	res.Response.HostDuration = &d
	res.Response = truncated(res.Response, budget)
	w, err := convertv1.RuntimeResponseToWire(res.Response, wirev1.WireCellId(res.Response.CellID), c.host.generation)
	if err != nil {
		c.sendInitialResult(id, wirev1.RuntimeResponseError{Message: err.Error()})
		return
	}
	c.sendInitialResult(id, wirev1.RuntimeResponseOk{Value: w})
}
