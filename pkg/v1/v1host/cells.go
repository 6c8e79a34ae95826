package v1host

import (
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

// cellRoute orders what the host sends about one cell (docs/protocol/v1.md#execute):
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
	// finished is set, under the table's lock, once the route's goroutine decided to send cell/closed: from
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

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// closeCell is the runtime telling that a cell closed (Delegate.CellClosed).
func (c *conn) closeCell(session wirev1.SessionId, cell codemode.CellID) {
	_ = c.routes.enqueue(c.ctx, cellKey{session, cell}, routeMessage{kind: routeClosed})
}

// startCell starts the route of an admitted cell after its started response was queued. The
// returned channel is closed once its initial response was queued.
func (c *conn) startCell(session wirev1.SessionId, id wirev1.RequestId, started *codemode.StartedCell, releaseCell func(), receivedAt time.Time, budget *outputBudget) <-chan struct{} {
	key := cellKey{session, started.CellID}
	r := c.routes.start(key, id, receivedAt, budget)
	c.cellTasks.Add(1)
	go func() {
		defer c.cellTasks.Done()
		defer c.routes.remove(key)
		// Before the route is removed, which a session/shutdown waits for: once it is answered,
		// the session's cells are given back.
		defer releaseCell()
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
	for !closed || !isClosed(r.initialSent) || !c.routes.finish(r) {
		released := c.routes.releasedSignal(r)
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
	if c.routes.observed(r) {
		return
	}
	c.sendInitial(r.id, res, r.receivedAt, r.budget)
	close(r.initialSent)
}

// dispatchQueued sends the queued delegate requests and reports whether the cell closed.
func (c *conn) dispatchQueued(r *cellRoute, session wirev1.SessionId) bool {
	q := c.routes.take(r)
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
	c.routes.doneSending(r)
	return closed
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
	res.Response = fitFrame(truncated(res.Response, budget))
	w, err := v1convert.RuntimeResponseToWire(res.Response, wirev1.WireCellId(res.Response.CellID), c.host.generation)
	if err != nil {
		c.sendInitialResult(id, wirev1.RuntimeResponseError{Message: err.Error()})
		return
	}
	c.sendInitialResult(id, wirev1.RuntimeResponseOk{Value: w})
}
