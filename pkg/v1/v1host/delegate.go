package v1host

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// Errors a delegate call of the runtime ends with (docs/protocol/v1.md#delegate-calls). The script sees their texts.
var (
	errClientClosed        = errors.New("code-mode client connection closed")
	errTooManyDelegates    = errors.New("code-mode host has too many pending delegate calls")
	errDelegateCancelled   = errors.New("code mode delegate request cancelled")
	errInvalidToolResult   = errors.New("code-mode client returned an invalid tool result")
	errInvalidNotifyResult = errors.New("code-mode client returned an invalid notification result")
)

// delegateCall is one call from the runtime to the client.
type delegateCall struct {
	id      wirev1.DelegateRequestId
	request wirev1.DelegateRequest
	// finish receives the outcome. Whoever takes the call out of the pending set calls end, so it
	// runs exactly once: the answer's reader, a failed send, the runtime abandoning the call, or
	// the disconnect.
	finish func(wirev1.DelegateResponse, error)
	// stopWatching stops watching the runtime's context for the call (see startCall).
	stopWatching func() bool
	// key is the cell the call belongs to: its route carries the request and its cancellation.
	key cellKey
	// runtimeID is the runtime's name for the call (NestedToolCall.RuntimeToolCallID).
	runtimeID string
	// abandoned is set, under delegateCalls.mu, when the runtime gave the call up before its
	// request went out: the route still sends the request, then its cancellation, so every call
	// a script started reaches the client whatever the race between sending and giving up
	// (docs/protocol/v1.md#delegate-calls); Codex's host sends them all too.
	abandoned bool
}

// end stops watching the call's context and gives finish the outcome.
func (call *delegateCall) end(resp wirev1.DelegateResponse, err error) {
	if call.stopWatching != nil {
		call.stopWatching()
	}
	call.finish(resp, err)
}

// delegateCalls tracks a connection's pending calls, at most limit (MaxPendingDelegateCalls, or
// MaxPendingDelegateCallsGranted).
type delegateCalls struct {
	limit        int
	mu           sync.Mutex
	pending      map[wirev1.DelegateRequestId]*pendingCall
	disconnected bool
	next         int64
}

type pendingCall struct {
	call       *delegateCall
	dispatched bool
}

func newDelegateCalls(limit int) delegateCalls {
	return delegateCalls{limit: limit, pending: map[wirev1.DelegateRequestId]*pendingCall{}}
}

// register allocates an ID for a new call, or fails at the limit or after disconnect.
func (d *delegateCalls) register(req wirev1.DelegateRequest, finish func(wirev1.DelegateResponse, error)) (*delegateCall, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.disconnected {
		return nil, errClientClosed
	}
	if len(d.pending) >= d.limit {
		return nil, errTooManyDelegates
	}
	d.next++
	call := &delegateCall{id: wirev1.DelegateRequestId(d.next), request: req, finish: finish}
	d.pending[call.id] = &pendingCall{call: call}
	return call, nil
}

// abandon removes a pending call the runtime gave up; a call whose request has not gone out yet
// is marked so, and its route sends the request and then its cancellation (dispatchCall).
func (d *delegateCalls) abandon(id wirev1.DelegateRequestId) (pendingCall, bool) {
	return d.remove(id, true)
}

// markDispatchedOrAbandoned records that the request is being sent; it reports whether the call
// is still pending and, if not, whether the runtime abandoned it before it went out.
func (d *delegateCalls) markDispatchedOrAbandoned(call *delegateCall) (pending, abandoned bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.pending[call.id]
	if ok {
		p.dispatched = true
	}
	return ok, !ok && call.abandoned
}

// take removes a pending call; ok is false when it was no longer pending (someone else ended
// it). dispatched reports whether its request had been sent.
func (d *delegateCalls) take(id wirev1.DelegateRequestId) (pendingCall, bool) {
	return d.remove(id, false)
}

// remove takes a pending call out of the set, marking it abandoned when asked and its request
// has not gone out.
func (d *delegateCalls) remove(id wirev1.DelegateRequestId, abandoned bool) (p pendingCall, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q, ok := d.pending[id]
	if !ok {
		return pendingCall{}, false
	}
	delete(d.pending, id)
	if abandoned && !q.dispatched {
		q.call.abandoned = true
	}
	return *q, true
}

// completeCall delivers the client's answer, on the connection's reader, which says so for the
// call it ends: the runtime may run the answer's turn here (remoteDelegate.RunTurnHere). Answers
// to unknown or cancelled calls are ignored.
func (c *conn) completeCall(id wirev1.DelegateRequestId, r wirev1.DelegateResponseResult) {
	p, ok := c.delegates.take(id)
	if !ok {
		return
	}
	c.answering.Store(p.call)
	p.call.end(delegateResult(r))
	c.answering.CompareAndSwap(p.call, nil) // a reader that relayed meanwhile may have a successor answering
}

// fail ends a pending call with err.
func (d *delegateCalls) fail(id wirev1.DelegateRequestId, err error) {
	if p, ok := d.take(id); ok {
		p.call.end(nil, err)
	}
}

// disconnect fails every pending call with errClientClosed and refuses new ones.
func (d *delegateCalls) disconnect() {
	d.mu.Lock()
	d.disconnected = true
	calls := make([]*delegateCall, 0, len(d.pending))
	for id, p := range d.pending {
		calls = append(calls, p.call)
		delete(d.pending, id)
	}
	d.mu.Unlock()
	for _, call := range calls {
		call.end(nil, errClientClosed)
	}
}

// startCall queues a delegate request about cell on the cell's route and returns; finish gets
// the outcome exactly once, from whichever goroutine ends the call: the connection's reader with
// the answer, the route's sender when the request cannot go out, the runtime's context ending
// (the call is abandoned: delegate/cancel goes out if the request did, a late answer is ignored),
// or the disconnect.
func (c *conn) startCall(ctx context.Context, session wirev1.SessionId, cell codemode.CellID, runtimeID string, req wirev1.DelegateRequest, finish func(wirev1.DelegateResponse, error)) {
	if ctx.Err() != nil {
		finish(nil, errDelegateCancelled)
		return
	}
	call, err := c.delegates.register(req, finish)
	if err != nil {
		finish(nil, err)
		return
	}
	key := cellKey{session, cell}
	call.key, call.runtimeID = key, runtimeID
	call.stopWatching = context.AfterFunc(ctx, func() { c.abandon(call.id) })
	if c.sendDirect(session, call) {
		return
	}
	if !c.routes.push(key, routeMessage{kind: routeCall, call: call}) {
		c.dispatchCall(session, call) // the cell closed: nothing is left to order it behind
	}
}

// sendDirect writes a call's request at once, without its cell's sender, when nothing of the cell
// waits before it and the link can take it without waiting (v1transport.Link.TrySendNow): then no
// goroutine is woken for it, which with the answer's turn on the reader makes a round trip on one
// thread (docs/adr/0075-a-round-trip-on-one-thread.md). It reports false, having done nothing, when
// the request must take the cell's route.
func (c *conn) sendDirect(session wirev1.SessionId, call *delegateCall) bool {
	if !c.routes.takeDirect(call.key) {
		return false
	}
	// The call is marked dispatched only once its request is sure to go out now (as dispatchCall
	// does before it sends): a call abandoned meanwhile then gets its cancellation after it.
	var abandoned bool
	sent, err := c.link.TrySendNow(wirev1.DelegateRequestMessage{Id: call.id, SessionId: session, Request: call.request}, func() bool {
		var pending bool
		pending, abandoned = c.delegates.markDispatchedOrAbandoned(call)
		return pending || abandoned
	})
	switch {
	case err != nil: // the request does not fit a frame
		c.delegates.fail(call.id, err)
	case !sent:
		c.routes.endDirect(call.key, &routeMessage{kind: routeCall, call: call}) // the sender writes it, first
		return true
	case abandoned:
		c.routes.endDirect(call.key, &routeMessage{kind: routeCancel, cancel: call.id})
		return true
	}
	c.routes.endDirect(call.key, nil)
	return true
}

// abandon forgets a call the runtime no longer needs and tells the client to stop it: the
// cancellation goes out on the cell's route, behind what the cell sent before, or, when the
// request is still queued, right after it (dispatchCall). It is queued before the runtime hears
// that the call ended, so the runtime's next response follows it on the route.
func (c *conn) abandon(id wirev1.DelegateRequestId) {
	p, ok := c.delegates.abandon(id)
	if !ok {
		return
	}
	if p.dispatched && !c.routes.pushIfRouted(p.call.key, routeMessage{kind: routeCancel, cancel: id}) {
		c.send(wirev1.DelegateCancel{Id: id})
	}
	p.call.end(nil, errDelegateCancelled)
}

func delegateResult(r wirev1.DelegateResponseResult) (wirev1.DelegateResponse, error) {
	switch v := r.(type) {
	case wirev1.DelegateResponseOk:
		return v.Value, nil
	case wirev1.DelegateResponseError:
		return nil, errors.New(v.Message)
	}
	return nil, errors.New("code-mode client returned an empty delegate result")
}

// dispatchCall sends a delegate request from the cell's route, unless the call ended meanwhile
// (cancelled). A request too large for a frame, or a connection that failed, fails only its
// call here.
func (c *conn) dispatchCall(session wirev1.SessionId, call *delegateCall) {
	pending, abandoned := c.delegates.markDispatchedOrAbandoned(call)
	if !pending && !abandoned {
		return
	}
	msg := wirev1.DelegateRequestMessage{Id: call.id, SessionId: session, Request: call.request}
	err := c.link.Send(c.ctx, msg)
	switch {
	case abandoned && err == nil:
		c.send(wirev1.DelegateCancel{Id: call.id})
	case err != nil:
		c.delegates.fail(call.id, err)
	}
}

// RunTurnHere lets the runtime run the turn of call's answer on the connection's reader, which is
// handing that answer over (completeCall), when no further message waits to be read and the
// connection lets its reader take on turns (v1transport.Link.RunsTurns: it relays the reading to
// a new reader if the turn runs long, and writes the next request without waiting): stdio's.
func (d *remoteDelegate) RunTurnHere(call codemode.NestedToolCall) (relay func(), ok bool) {
	a := d.conn.answering.Load()
	if a == nil || a.key != (cellKey{d.session, call.CellID}) || a.runtimeID != call.RuntimeToolCallID || !d.conn.link.RunsTurns() || d.conn.link.ReadAhead() {
		return nil, false
	}
	return d.conn.link.Relay, true
}

// remoteDelegate is the Delegate of a hosted session: it forwards the runtime's callbacks to
// the client.
type remoteDelegate struct {
	conn    *conn
	session wirev1.SessionId
}

// StartToolCall forwards a nested tool call as delegate/request tool/invoke without waiting: the
// request is queued on the cell's route for its sender (docs/adr/0067-one-queue-per-cell.md), and
// the connection's reader hands the answer to done, with no goroutine in between.
func (d *remoteDelegate) StartToolCall(ctx context.Context, call codemode.NestedToolCall, done func(json.RawMessage, error)) {
	d.conn.startCall(ctx, d.session, call.CellID, call.RuntimeToolCallID, toolInvoke(call), func(resp wirev1.DelegateResponse, err error) {
		done(toolResult(resp, err))
	})
}

func toolInvoke(call codemode.NestedToolCall) wirev1.ToolInvoke {
	return wirev1.ToolInvoke{Invocation: v1convert.NestedToolCallToWire(call)}
}

// toolResult is the outcome of a tool/invoke call: its result, or why there is none.
func toolResult(resp wirev1.DelegateResponse, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	r, ok := resp.(wirev1.ToolResult)
	if !ok {
		return nil, errInvalidToolResult
	}
	return r.Result, nil
}

// StartNotify forwards a notification as delegate/request notification/send without waiting,
// on the cell's route in the order the runtime starts it among the cell's tool calls.
func (d *remoteDelegate) StartNotify(ctx context.Context, callID string, cellID codemode.CellID, text string, done func(error)) {
	req := wirev1.NotificationSend{CallId: callID, CellId: wirev1.WireCellId(cellID), Text: text}
	d.conn.startCall(ctx, d.session, cellID, "", req, func(resp wirev1.DelegateResponse, err error) {
		if _, ok := resp.(wirev1.NotificationDelivered); err == nil && !ok {
			err = errInvalidNotifyResult
		}
		done(err)
	})
}

// CellClosed queues cell/closed on the cell's route, after its initial response.
func (d *remoteDelegate) CellClosed(cellID codemode.CellID) {
	d.conn.closeCell(d.session, cellID)
}

// ReportFailure ends the connection: the runtime can no longer be trusted to keep its promises to
// this client, and ending the connection fails everything the client waits for at once
// (docs/protocol/v1.md#disconnect) instead of leaving it to hang.
func (d *remoteDelegate) ReportFailure(reason string) {
	d.conn.fail(errors.New(reason))
}

// CellUsage is dropped: V1 carries no cell usage to the client; the host accounts for it.
func (d *remoteDelegate) CellUsage(codemode.CellID, codemode.CellUsage) {}

var _ codemode.Delegate = (*remoteDelegate)(nil)
