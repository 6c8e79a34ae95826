package v1host

import (
	"context"
	"sync"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// routeTable is the connection's cell routes as bookkeeping: which cells have a route, what each
// has queued, how many answers are held back and whether it finished. It starts no goroutine and
// does no I/O, so its rules are tested without either (route_test.go); the conn's route goroutines
// (cells.go) do the sending. Its own lock guards it, a leaf under every other lock of the conn.
type routeTable struct {
	mu     sync.Mutex
	routes map[cellKey]*cellRoute
	// gone is closed (and replaced) whenever a route is removed, to wake shutdowns that wait for a
	// session's cells.
	gone chan struct{}
	// done is closed when the connection ends: from then on nothing is queued.
	done <-chan struct{}
}

func newRouteTable(done <-chan struct{}) *routeTable {
	return &routeTable{routes: map[cellKey]*cellRoute{}, gone: make(chan struct{}), done: done}
}

// closed reports whether the connection ended.
func (t *routeTable) closed() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// start marks the route of key started, with the execute's answer details, and returns it.
func (t *routeTable) start(key cellKey, id wirev1.RequestId, receivedAt time.Time, budget *outputBudget) *cellRoute {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.routeLocked(key)
	r.started, r.budget, r.id, r.receivedAt = true, budget, id, receivedAt
	return r
}

// observed reports whether the runtime queued r's initial response on the route.
func (t *routeTable) observed(r *cellRoute) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return r.observed
}

// routeLocked returns the route of key, creating it (not started) if needed. Callers hold t.mu.
func (t *routeTable) routeLocked(key cellKey) *cellRoute {
	r := t.routes[key]
	if r == nil {
		r = newCellRoute()
		t.routes[key] = r
	}
	return r
}

// enqueue adds m to the route of key. Before the route is started, a full queue makes a
// delegate request wait for room (ctx bounds the wait); nothing else waits.
func (t *routeTable) enqueue(ctx context.Context, key cellKey, m routeMessage) error {
	for {
		t.mu.Lock()
		if t.closed() {
			t.mu.Unlock()
			return errClientClosed
		}
		r := t.routeLocked(key)
		if r.started || m.kind != routeCall || len(r.queue) < MaxQueuedCellMessages {
			r.queue = append(r.queue, m)
			t.mu.Unlock()
			signal(r.wake)
			return nil
		}
		space := r.space
		t.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return errDelegateCancelled
		case <-t.done:
			return errClientClosed
		}
	}
}

// tryEnqueue adds a delegate request to the route of key if that needs no wait (see enqueue)
// and reports whether it did.
func (t *routeTable) tryEnqueue(key cellKey, m routeMessage) bool {
	t.mu.Lock()
	if t.closed() {
		t.mu.Unlock()
		return false
	}
	r := t.routeLocked(key)
	if !r.started && len(r.queue) >= MaxQueuedCellMessages {
		t.mu.Unlock()
		return false
	}
	r.queue = append(r.queue, m)
	t.mu.Unlock()
	signal(r.wake)
	return true
}

// take empties the route's queue and marks the route as sending, unless a caller is sending
// right now (it wakes the route when it is done).
func (t *routeTable) take(r *cellRoute) []routeMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
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
func (t *routeTable) doneSending(r *cellRoute) {
	t.mu.Lock()
	r.sending = false
	more := len(r.queue) > 0
	t.mu.Unlock()
	if more {
		signal(r.wake)
	}
}

// claimIdle marks the route of key as sending if it is started, idle and has nothing
// queued, so that the caller may send its delegate request itself.
func (t *routeTable) claimIdle(key cellKey) *cellRoute {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.routes[key]
	if r == nil || r.finished || !r.started || r.sending || len(r.queue) > 0 || t.closed() {
		return nil
	}
	r.sending = true
	return r
}

// enqueueIfRouted adds m to the route of key if the cell still has one (it did not close yet)
// and reports whether it did.
func (t *routeTable) enqueueIfRouted(key cellKey, m routeMessage) bool {
	t.mu.Lock()
	r := t.routes[key]
	if r == nil || r.finished || t.closed() {
		t.mu.Unlock()
		return false
	}
	if m.kind == routeInitial {
		r.observed = true
	}
	r.queue = append(r.queue, m)
	t.mu.Unlock()
	signal(r.wake)
	return true
}

// observeInitial queues an execute's initial response on its cell's route, where the runtime
// produced it among the cell's delegate requests (codemode.ExecuteRequest.Observe). The route is
// created if it was not yet: the runtime may answer before Execute returned.
func (t *routeTable) observeInitial(session wirev1.SessionId, resp codemode.RuntimeResponse) {
	t.mu.Lock()
	if t.closed() {
		t.mu.Unlock()
		return
	}
	r := t.routeLocked(cellKey{session, resp.CellID})
	r.observed = true
	r.queue = append(r.queue, routeMessage{kind: routeInitial, response: resp})
	t.mu.Unlock()
	signal(r.wake)
}

// hold keeps the cell/closed of key back until the returned release is called: a wait or
// terminate response is being written, and the closure must follow it. A cell without a route
// (closed already) needs no hold.
func (t *routeTable) hold(key cellKey) (release func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.routes[key]
	if r == nil || r.finished {
		return func() {}
	}
	r.holds++
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			r.holds--
			close(r.released)
			r.released = make(chan struct{})
			t.mu.Unlock()
		})
	}
}

// finish marks r finished and reports true when nothing is left for it to send before
// cell/closed: no wait or terminate response is being written and nothing is queued. The check
// and the mark are one step under t.mu, so a response is either queued before it (and sent) or
// finds the route finished (and goes out directly), never queued where nobody drains it.
func (t *routeTable) finish(r *cellRoute) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.holds > 0 || len(r.queue) > 0 {
		return false
	}
	r.finished = true
	return true
}

// releasedSignal is closed at the next release of a hold on r.
func (t *routeTable) releasedSignal(r *cellRoute) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return r.released
}

// remove forgets a finished route and wakes shutdowns waiting for the session's cells.
func (t *routeTable) remove(key cellKey) {
	t.mu.Lock()
	delete(t.routes, key)
	close(t.gone)
	t.gone = make(chan struct{})
	t.mu.Unlock()
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
		gone := t.gone
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
