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

// closeCell is the runtime telling that a cell closed (Delegate.CellClosed). When cell/closed is
// all that is left of the cell's route and the link takes it at once, it is written here, on the
// runtime's goroutine, as the initial response before it (sendInitialDirect); otherwise the
// route's sender writes it.
func (c *conn) closeCell(session wirev1.SessionId, cell codemode.CellID) {
	key := cellKey{session, cell}
	if !c.routes.closeCellDirect(key) {
		return
	}
	sent, err := c.link.TrySendNow(wirev1.CellClosed{SessionId: session, CellId: wirev1.WireCellId(cell)}, nil)
	c.routes.endClose(key, sent && err == nil)
}

// sendInitialDirect writes a cell's initial response on the goroutine that produced it (the
// runtime's, in Observe) instead of waking the route's sender for it, as sendDirect does a
// delegate request: only when nothing of the cell waits before it and the link takes the frame
// at once (docs/adr/0078-a-cells-end-on-its-own-goroutine.md). It reports false, having done
// nothing, when the response must take the route; a response that could not go out after all is
// handed to the sender, first.
func (c *conn) sendInitialDirect(key cellKey, m routeMessage) bool {
	r, ok := c.routes.takeInitialDirect(key)
	if !ok {
		return false
	}
	exec := r.exec
	resp := wirev1.InitialResponse{Id: exec.id, Result: c.initialResult(exec, m.initial)}
	sent, err := c.link.TrySendNow(resp, func() bool {
		c.state.finishRequest(exec.id) // as sendInitialResult does: the ID is retired first
		return true
	})
	if !sent || err != nil {
		c.routes.endDirect(key, &m) // the sender writes it (a frame too large as an error)
		return true
	}
	close(exec.written)
	c.routes.endDirect(key, nil)
	return true
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
		step := c.routes.next(r)
		switch {
		case step.end:
			return
		case step.closeNow:
			c.send(wirev1.CellClosed{SessionId: key.session, CellId: wirev1.WireCellId(key.cell)})
			return
		}
		for _, m := range step.batch {
			c.sendMessage(r, key.session, m)
		}
		if len(step.batch) > 0 {
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

// sendInitial sends the execute's initial response.
func (c *conn) sendInitial(exec execution, res codemode.InitialResult) {
	c.sendInitialResult(exec.id, c.initialResult(exec, res))
}

// initialResult is the execute's initial response on the wire, truncated on the host when its
// budget is set.
func (c *conn) initialResult(exec execution, res codemode.InitialResult) wirev1.RuntimeResponseResult {
	if res.Err != nil {
		return wirev1.RuntimeResponseError{Message: res.Err.Error()}
	}
	// The duration is frozen before conversion and delivery: it measures receipt to outcome
	// (docs/protocol/v1.md#host-duration-g2), not the time the response spends being encoded or queued.
	d := time.Since(exec.receivedAt)
	res.Response.HostDuration = &d
	res.Response = fitFrame(truncated(res.Response, exec.budget))
	w, err := v1convert.RuntimeResponseToWire(res.Response, wirev1.WireCellId(res.Response.CellID), c.host.generation)
	if err != nil {
		return wirev1.RuntimeResponseError{Message: err.Error()}
	}
	return wirev1.RuntimeResponseOk{Value: w}
}
