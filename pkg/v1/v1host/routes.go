package v1host

import (
	"context"
	"sync"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
)

// routeTable is the connection's cell routes: for each cell its order (cellOrder) and what its
// sender needs beside it. Its lock guards every route's order, a leaf under every other lock of
// the conn. Each change that may give a sender work wakes it; the sender (cells.go) writes a cell's
// messages, but for a delegate request written directly in its place (takeDirect).
type routeTable struct {
	mu     sync.Mutex
	routes map[cellKey]*cellRoute
	// gone is broadcast whenever a route is removed, to wake shutdowns that wait for a session's
	// cells.
	gone broadcast.Signal
	// done is closed when the connection ends: the senders are gone then, and nothing waits for
	// what was queued.
	done <-chan struct{}
}

// cellRoute is one cell's route: its order under the table's lock, the wake-up of its sender,
// and the execute's details for its initial response.
type cellRoute struct {
	order cellOrder
	// wake holds one pending signal: the order changed since the sender last looked.
	wake chan struct{}
	// exec is set by start, before the sender runs or a direct write may take the route (both
	// after the order started, under the table's lock), and only read after that.
	exec execution
}

// execution is what the initial response of a cell's execute needs.
type execution struct {
	id         wirev1.RequestId
	receivedAt time.Time
	// budget is the host-side truncation of the initial response; nil: it goes out whole.
	budget *outputBudget
	// written is closed by the sender once the initial response was written.
	written chan struct{}
}

func newRouteTable(done <-chan struct{}) *routeTable {
	return &routeTable{routes: map[cellKey]*cellRoute{}, done: done}
}

// routeLocked returns the route of key, creating it (not started) if needed: the runtime may
// hand over a cell's messages before Execute returned. Callers hold t.mu.
func (t *routeTable) routeLocked(key cellKey) *cellRoute {
	r := t.routes[key]
	if r == nil {
		r = &cellRoute{wake: make(chan struct{}, 1)}
		t.routes[key] = r
	}
	return r
}

// update applies change to the order of key's route, creating the route if asked, and wakes its
// sender; false when there is no route and none was to be created.
func (t *routeTable) update(key cellKey, create bool, change func(*cellOrder) bool) bool {
	t.mu.Lock()
	r := t.routes[key]
	if r == nil && create {
		r = t.routeLocked(key)
	}
	if r == nil {
		t.mu.Unlock()
		return false
	}
	changed := change(&r.order)
	t.mu.Unlock()
	if changed {
		wake(r.wake)
	}
	return changed
}

func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// start records the execute's details on the route of key and lets its sender take, and returns
// the route for the sender.
func (t *routeTable) start(key cellKey, exec execution) *cellRoute {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.routeLocked(key)
	r.exec = exec
	r.order.start()
	return r
}

// push queues m on the route of key, created if needed; false when the cell's closure was decided
// already (the caller sends m itself).
func (t *routeTable) push(key cellKey, m routeMessage) bool {
	return t.update(key, true, func(o *cellOrder) bool { return o.push(m) })
}

// takeDirect lets the caller write a message of key's route itself (cellOrder.takeDirect).
func (t *routeTable) takeDirect(key cellKey) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.routes[key]
	return r != nil && r.order.takeDirect()
}

// takeInitialDirect lets the caller write key's initial response itself
// (cellOrder.takeInitialDirect), and returns the route, whose execution the response needs.
func (t *routeTable) takeInitialDirect(key cellKey) (*cellRoute, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.routes[key]
	if r == nil || !r.order.takeInitialDirect() {
		return nil, false
	}
	return r, true
}

// closeCellDirect records that the cell of key closed and reports whether the caller writes
// cell/closed itself (cellOrder.takeClose), then calling endClose; otherwise the sender will.
func (t *routeTable) closeCellDirect(key cellKey) bool {
	t.mu.Lock()
	r := t.routeLocked(key)
	r.order.close()
	direct := r.order.takeClose()
	t.mu.Unlock()
	if !direct {
		wake(r.wake)
	}
	return direct
}

// endClose ends the closer's write of cell/closed and wakes the sender: to end, or to write it.
func (t *routeTable) endClose(key cellKey, written bool) {
	t.mu.Lock()
	r := t.routes[key]
	if r != nil {
		r.order.endClose(written)
	}
	t.mu.Unlock()
	if r != nil {
		wake(r.wake)
	}
}

// endDirect ends a direct write on key's route, queueing unsent first when it was not written, and
// wakes the route's sender if it has work.
func (t *routeTable) endDirect(key cellKey, unsent *routeMessage) {
	t.mu.Lock()
	r := t.routes[key]
	wakeSender := r != nil && r.order.endDirect(unsent)
	t.mu.Unlock()
	if wakeSender {
		wake(r.wake)
	}
}

// pushIfRouted queues m on the route of key if the cell has one that still takes messages, and
// reports whether it did; otherwise the caller sends m itself.
func (t *routeTable) pushIfRouted(key cellKey, m routeMessage) bool {
	return t.update(key, false, func(o *cellOrder) bool { return o.push(m) })
}

// offerInitial queues the initial response of key unless it is queued already
// (cellOrder.offerInitial). Observe creates the route, as it may come before Execute returned;
// the execute's future does not, since a route gone by then sent its initial response and closed.
func (t *routeTable) offerInitial(key cellKey, m routeMessage, create bool) {
	t.update(key, create, func(o *cellOrder) bool { o.offerInitial(m); return true })
}

// hold keeps the cell/closed of key back until the returned release is called: a wait or
// terminate answer is being made, and the closure must follow it. A cell without a route, or
// whose closure was decided, needs no hold.
func (t *routeTable) hold(key cellKey) (release func()) {
	if !t.update(key, false, (*cellOrder).hold) {
		return func() {}
	}
	var once sync.Once
	return func() {
		once.Do(func() { t.update(key, false, func(o *cellOrder) bool { o.release(); return true }) })
	}
}

// next is the sender's step on r (cellOrder.next).
func (t *routeTable) next(r *cellRoute) senderStep {
	t.mu.Lock()
	defer t.mu.Unlock()
	return r.order.next()
}

// remove forgets a finished route and wakes shutdowns waiting for the session's cells.
func (t *routeTable) remove(key cellKey) {
	t.mu.Lock()
	delete(t.routes, key)
	t.mu.Unlock()
	t.gone.Broadcast()
}

// awaitSession returns once no route of session is left (every cell/closed was sent), the
// connection ended or ctx ended.
func (t *routeTable) awaitSession(ctx context.Context, session wirev1.SessionId) {
	for {
		t.mu.Lock()
		busy := false
		for k := range t.routes {
			if k.session == session {
				busy = true
				break
			}
		}
		gone := t.gone.Changed()
		t.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-gone:
		case <-t.done:
			return
		case <-ctx.Done():
			return
		}
	}
}
