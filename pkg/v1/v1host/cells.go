package v1host

import (
	"context"
	"sync"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// cellForwardingHook, when set by a test, runs at the start of every cell route goroutine.
var cellForwardingHook func()

// cellKey names a cell of a connection.
type cellKey struct {
	session wirev1.SessionId
	cell    codemode.CellID
}

// cellRoute orders what the host sends about one cell (spec §2.8 session/execute):
// execution/started first, then the cell's delegate requests, the cancellations of those it
// abandoned and the responses of its observations, in the order the runtime produced them (so in
// the order the script caused them, as Codex's host sends them), and cell/closed last, after the
// initial response and after any wait or terminate response being written. Until the route is
// started (the started response is queued) messages wait in queue, at most MaxQueuedCellMessages
// delegate requests of them; the route's goroutine then sends them in order.
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
	// id and receivedAt are the execute's, for its initial response.
	id         wirev1.RequestId
	receivedAt time.Time
	// observed is set when the runtime queued the initial response on the route
	// (codemode.ExecuteRequest.Observe): the copy StartedCell.InitialResponse returns is not sent.
	observed bool
	// holds counts the wait and terminate responses being written: cell/closed waits for them.
	holds    int
	released chan struct{} // closed and replaced when holds drops
	// finished is set, under c.mu, once the route's goroutine decided to send cell/closed: from
	// then on the route takes no hold and no response (enqueueIfRouted, hold), which go out at
	// once instead, since nothing would drain them.
	finished bool
}

// routeKind says what a routeMessage carries.
type routeKind int

const (
	routeCall     routeKind = iota // a delegate request to dispatch
	routeCancel                    // delegate/cancel of a dispatched request
	routeInitial                   // the execute's initial response
	routeResponse                  // a wait's response
	routeClosed                    // the cell's closure
)

// routeMessage is one message of a cell's route.
type routeMessage struct {
	kind     routeKind
	call     *delegateCall
	cancel   wirev1.DelegateRequestId
	response codemode.RuntimeResponse
	// send writes a routeResponse.
	send func()
}

func newCellRoute() *cellRoute {
	return &cellRoute{wake: make(chan struct{}, 1), space: make(chan struct{}), initialSent: make(chan struct{}), released: make(chan struct{})}
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

// enqueue adds m to the route of key. Before the route is started, a full queue makes a
// delegate request wait for room (ctx bounds the wait); nothing else waits.
func (c *conn) enqueue(ctx context.Context, key cellKey, m routeMessage) error {
	for {
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			return errClientClosed
		}
		r := c.routeLocked(key)
		if r.started || m.kind != routeCall || len(r.queue) < MaxQueuedCellMessages {
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
	if r == nil || r.finished || !r.started || r.sending || len(r.queue) > 0 || c.ctx.Err() != nil {
		return nil
	}
	r.sending = true
	return r
}

// closeCell is the runtime telling that a cell closed (Delegate.CellClosed).
func (c *conn) closeCell(session wirev1.SessionId, cell codemode.CellID) {
	_ = c.enqueue(c.ctx, cellKey{session, cell}, routeMessage{kind: routeClosed})
}

// enqueueIfRouted adds m to the route of key if the cell still has one (it did not close yet)
// and reports whether it did.
func (c *conn) enqueueIfRouted(key cellKey, m routeMessage) bool {
	c.mu.Lock()
	r := c.routes[key]
	if r == nil || r.finished || c.ctx.Err() != nil {
		c.mu.Unlock()
		return false
	}
	if m.kind == routeInitial {
		r.observed = true
	}
	r.queue = append(r.queue, m)
	c.mu.Unlock()
	signal(r.wake)
	return true
}

// observeInitial queues an execute's initial response on its cell's route, where the runtime
// produced it among the cell's delegate requests (codemode.ExecuteRequest.Observe). The route is
// created if it was not yet: the runtime may answer before Execute returned.
func (c *conn) observeInitial(session wirev1.SessionId, resp codemode.RuntimeResponse) {
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	r := c.routeLocked(cellKey{session, resp.CellID})
	r.observed = true
	r.queue = append(r.queue, routeMessage{kind: routeInitial, response: resp})
	c.mu.Unlock()
	signal(r.wake)
}

// hold keeps the cell/closed of key back until the returned release is called: a wait or
// terminate response is being written, and the closure must follow it. A cell without a route
// (closed already) needs no hold.
func (c *conn) hold(key cellKey) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.routes[key]
	if r == nil || r.finished {
		return func() {}
	}
	r.holds++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			r.holds--
			close(r.released)
			r.released = make(chan struct{})
			c.mu.Unlock()
		})
	}
}

// finishRoute marks r finished and reports true when nothing is left for it to send before
// cell/closed: no wait or terminate response is being written and nothing is queued. The check
// and the mark are one step under c.mu, so a response is either queued before it (and sent) or
// finds the route finished (and goes out directly), never queued where nobody drains it.
func (c *conn) finishRoute(r *cellRoute) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.holds > 0 || len(r.queue) > 0 {
		return false
	}
	r.finished = true
	return true
}

// releasedSignal is closed at the next release of a hold on r.
func (c *conn) releasedSignal(r *cellRoute) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return r.released
}

// startCell starts the route of an admitted cell after its started response was queued. The
// returned channel is closed once its initial response was queued.
func (c *conn) startCell(session wirev1.SessionId, id wirev1.RequestId, started *codemode.StartedCell, releaseCell func(), receivedAt time.Time, budget *outputBudget) <-chan struct{} {
	key := cellKey{session, started.CellID}
	c.mu.Lock()
	r := c.routeLocked(key)
	r.started, r.budget, r.id, r.receivedAt = true, budget, id, receivedAt
	c.mu.Unlock()
	c.cellTasks.Add(1)
	go func() {
		defer c.cellTasks.Done()
		defer releaseCell()
		defer c.removeRoute(key)
		defer c.supervise("cell forwarding")
		c.driveCell(r, key, started)
	}()
	return r.initialSent
}

// driveCell sends, in order, what the cell's route carries (delegate requests, cancellations, the
// initial response and wait answers), and cell/closed once the cell closed, its initial response
// is out and no wait or terminate answer is still being written. A disconnect ends it silently.
func (c *conn) driveCell(r *cellRoute, key cellKey, started *codemode.StartedCell) {
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
	for !closed || !isClosed(r.initialSent) || !c.finishRoute(r) {
		released := c.releasedSignal(r)
		select {
		case res := <-initial:
			initial = nil
			if c.ctx.Err() != nil {
				return
			}
			c.sendFutureInitial(r, res)
		case <-r.wake:
			if c.dispatchQueued(r, key.session) {
				closed = true
			}
		case <-released:
		case <-c.ctx.Done():
			return
		}
	}
	c.send(wirev1.CellClosed{SessionId: key.session, CellId: wirev1.WireCellId(key.cell)})
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// sendFutureInitial sends the initial response StartedCell.InitialResponse returned, unless the
// runtime queued it on the route, which sends it in its place.
func (c *conn) sendFutureInitial(r *cellRoute, res codemode.InitialResult) {
	c.mu.Lock()
	observed := r.observed
	c.mu.Unlock()
	if observed {
		return
	}
	c.sendInitial(r.id, res, r.receivedAt, r.budget)
	close(r.initialSent)
}

// dispatchQueued sends the queued delegate requests and reports whether the cell closed.
func (c *conn) dispatchQueued(r *cellRoute, session wirev1.SessionId) bool {
	q := c.take(r)
	if len(q) == 0 {
		return false
	}
	closed := false
	for _, m := range q {
		switch m.kind {
		case routeCall:
			c.dispatchCall(session, m.call)
		case routeCancel:
			c.send(wirev1.DelegateCancel{Id: m.cancel})
		case routeInitial:
			c.sendInitial(r.id, codemode.InitialResult{Response: m.response}, r.receivedAt, r.budget)
			close(r.initialSent)
		case routeResponse:
			m.send()
		case routeClosed:
			closed = true
		}
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
	w, err := v1convert.RuntimeResponseToWire(res.Response, wirev1.WireCellId(res.Response.CellID), c.host.generation)
	if err != nil {
		c.sendInitialResult(id, wirev1.RuntimeResponseError{Message: err.Error()})
		return
	}
	c.sendInitialResult(id, wirev1.RuntimeResponseOk{Value: w})
}
