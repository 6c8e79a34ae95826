package v1host

import (
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// cellForwardingHook, when set by a test, runs at the start of every cell's sender.
var cellForwardingHook func()

// cellKey names a cell of a connection.
type cellKey struct {
	session wirev1.SessionId
	cell    codemode.CellID
}

// routeKind says what a routeMessage carries.
type routeKind int

const (
	routeCall     routeKind = iota // a delegate request to dispatch
	routeCancel                    // delegate/cancel of a dispatched request
	routeInitial                   // the execute's initial response
	routeResponse                  // a wait's or terminate's answer
)

// routeMessage is one message of a cell's route.
type routeMessage struct {
	kind    routeKind
	call    *delegateCall
	cancel  wirev1.DelegateRequestId
	initial codemode.InitialResult
	// send writes a routeResponse.
	send func()
}

// closeCell is the runtime telling that a cell closed (Delegate.CellClosed).
func (c *conn) closeCell(session wirev1.SessionId, cell codemode.CellID) {
	c.routes.closeCell(cellKey{session, cell})
}

// startCell starts the route of an admitted cell after its started response was written: its
// sender runs until cell/closed went out (or the connection ended), then gives the cell back. The
// returned channel is closed once the initial response was written.
func (c *conn) startCell(key cellKey, exec execution, releaseCell func()) <-chan struct{} {
	exec.written = make(chan struct{})
	r := c.routes.start(key, exec)
	c.cellTasks.Add(1)
	go func() {
		defer c.cellTasks.Done()
		defer c.routes.remove(key)
		// Before the route is removed, which a session/shutdown waits for: once it is answered,
		// the session's cells are given back.
		defer releaseCell()
		defer c.supervise("cell forwarding")
		c.sendCell(r, key)
	}()
	return exec.written
}

// forwardInitial queues the initial response the execute's future returns, unless Observe
// queued it already where the runtime produced it (the future returns that same response then);
// the future alone carries an error, and the response of a session that ignores Observe. The
// connection ending ends the wait and abandons the cell.
func (c *conn) forwardInitial(key cellKey, started *codemode.StartedCell) {
	resp, err := started.InitialResponse(c.ctx)
	if c.ctx.Err() != nil {
		return
	}
	c.routes.offerInitial(key, routeMessage{kind: routeInitial, initial: codemode.InitialResult{Response: resp, Err: err}}, false)
}

// sendCell is a cell's one sender: it writes what the cell's order hands it, in order, and
// cell/closed when only that is left. A disconnect ends it silently.
func (c *conn) sendCell(r *cellRoute, key cellKey) {
	if cellForwardingHook != nil {
		cellForwardingHook()
	}
	for {
		batch, finish := c.routes.next(r)
		if finish {
			c.send(wirev1.CellClosed{SessionId: key.session, CellId: wirev1.WireCellId(key.cell)})
			return
		}
		for _, m := range batch {
			c.sendMessage(r, key.session, m)
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-r.wake:
		case <-c.ctx.Done():
			return
		}
	}
}

// sendMessage writes one message of a cell's route.
func (c *conn) sendMessage(r *cellRoute, session wirev1.SessionId, m routeMessage) {
	switch m.kind {
	case routeCall:
		c.dispatchCall(session, m.call)
	case routeCancel:
		c.send(wirev1.DelegateCancel{Id: m.cancel})
	case routeInitial:
		c.sendInitial(r.exec, m.initial)
		close(r.exec.written)
	case routeResponse:
		m.send()
	}
}

// sendInitial sends the execute's initial response, truncated on the host when its budget is set.
func (c *conn) sendInitial(exec execution, res codemode.InitialResult) {
	if res.Err != nil {
		c.sendInitialResult(exec.id, wirev1.RuntimeResponseError{Message: res.Err.Error()})
		return
	}
	// The duration is frozen before conversion and delivery: it measures receipt to outcome
	// (docs/protocol/v1.md#host-duration-g2), not the time the response spends being encoded or queued.
	d := time.Since(exec.receivedAt)
	res.Response.HostDuration = &d
	res.Response = fitFrame(truncated(res.Response, exec.budget))
	w, err := v1convert.RuntimeResponseToWire(res.Response, wirev1.WireCellId(res.Response.CellID), c.host.generation)
	if err != nil {
		c.sendInitialResult(exec.id, wirev1.RuntimeResponseError{Message: err.Error()})
		return
	}
	c.sendInitialResult(exec.id, wirev1.RuntimeResponseOk{Value: w})
}
