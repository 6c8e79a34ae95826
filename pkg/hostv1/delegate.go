package hostv1

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/convertv1"
)

// Errors a delegate call of the runtime ends with (spec §2.8). The script sees their texts.
var (
	errClientClosed           = errors.New("code-mode client connection closed")
	errTooManyDelegates       = errors.New("code-mode host has too many pending delegate calls")
	errDelegateCancelled      = errors.New("code mode delegate request cancelled")
	errCancelledBeforeSending = errors.New("code-mode delegate request was cancelled before dispatch")
	errInvalidToolResult      = errors.New("code-mode client returned an invalid tool result")
	errInvalidNotifyResult    = errors.New("code-mode client returned an invalid notification result")
)

// delegateCall is one call from the runtime to the client.
type delegateCall struct {
	id      wirev1.DelegateRequestId
	request wirev1.DelegateRequest
	// dispatched receives the outcome of sending the request (nil once it is queued).
	dispatched chan error
	// response receives the client's answer.
	response chan wirev1.DelegateResponseResult
}

// delegateCalls tracks a connection's pending calls, at most MaxPendingDelegateCalls.
type delegateCalls struct {
	mu           sync.Mutex
	pending      map[wirev1.DelegateRequestId]*pendingCall
	disconnected bool
	next         int64
}

type pendingCall struct {
	call       *delegateCall
	dispatched bool
}

func newDelegateCalls() delegateCalls {
	return delegateCalls{pending: map[wirev1.DelegateRequestId]*pendingCall{}}
}

// register allocates an ID for a new call, or fails at the limit or after disconnect.
func (d *delegateCalls) register(req wirev1.DelegateRequest) (*delegateCall, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.disconnected {
		return nil, errClientClosed
	}
	if len(d.pending) >= MaxPendingDelegateCalls {
		return nil, errTooManyDelegates
	}
	d.next++
	call := &delegateCall{
		id:         wirev1.DelegateRequestId(d.next),
		request:    req,
		dispatched: make(chan error, 1),
		response:   make(chan wirev1.DelegateResponseResult, 1),
	}
	d.pending[call.id] = &pendingCall{call: call}
	return call, nil
}

// remove forgets a call and reports whether it was still pending and had been sent.
func (d *delegateCalls) remove(id wirev1.DelegateRequestId) (found, dispatched bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.pending[id]
	delete(d.pending, id)
	return ok, ok && p.dispatched
}

// markDispatched records that the request is being sent, unless the call is gone (cancelled).
func (d *delegateCalls) markDispatched(id wirev1.DelegateRequestId) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.pending[id]
	if ok {
		p.dispatched = true
	}
	return ok
}

// complete delivers the client's answer; answers to unknown or cancelled calls are ignored.
func (d *delegateCalls) complete(id wirev1.DelegateRequestId, r wirev1.DelegateResponseResult) {
	d.mu.Lock()
	p, ok := d.pending[id]
	delete(d.pending, id)
	d.mu.Unlock()
	if ok {
		p.call.response <- r
	}
}

// disconnect fails every pending call and refuses new ones.
func (d *delegateCalls) disconnect() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.disconnected = true
	for id := range d.pending {
		delete(d.pending, id)
	}
}

// call sends a delegate request about cell through the cell's route and waits for the answer.
// ctx ending (the runtime abandoned the call) sends delegate/cancel if the request went out;
// a late answer is then ignored.
func (c *conn) call(ctx context.Context, session wirev1.SessionId, cell codemode.CellID, req wirev1.DelegateRequest) (wirev1.DelegateResponse, error) {
	if ctx.Err() != nil {
		return nil, errDelegateCancelled
	}
	call, err := c.delegates.register(req)
	if err != nil {
		return nil, err
	}
	key := cellKey{session, cell}
	if r := c.claimIdleRoute(key); r != nil {
		c.dispatchCall(session, call)
		c.doneSending(r)
	} else if err := c.enqueue(ctx, key, routeMessage{call: call}); err != nil {
		c.delegates.remove(call.id)
		return nil, err
	}
	select {
	case err := <-call.dispatched:
		if err != nil {
			c.delegates.remove(call.id)
			return nil, err
		}
	case <-ctx.Done():
		return nil, c.abandon(call.id)
	case <-c.ctx.Done():
		return nil, errClientClosed
	}
	select {
	case r := <-call.response:
		return delegateResult(r)
	case <-ctx.Done():
		return nil, c.abandon(call.id)
	case <-c.ctx.Done():
		return nil, errClientClosed
	}
}

// abandon forgets a call the runtime no longer needs and tells the client to stop it.
func (c *conn) abandon(id wirev1.DelegateRequestId) error {
	if found, dispatched := c.delegates.remove(id); found && dispatched {
		c.send(wirev1.DelegateCancel{Id: id})
	}
	return errDelegateCancelled
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

// dispatchCall sends a queued delegate request from the cell's route, unless it was cancelled
// meanwhile. A request too large for a frame fails only its call.
func (c *conn) dispatchCall(session wirev1.SessionId, call *delegateCall) {
	if !c.delegates.markDispatched(call.id) {
		call.dispatched <- errCancelledBeforeSending
		return
	}
	msg := wirev1.DelegateRequestMessage{Id: call.id, SessionId: session, Request: call.request}
	call.dispatched <- c.link.Send(c.ctx, msg)
}

// remoteDelegate is the Delegate of a hosted session: it forwards the runtime's callbacks to
// the client.
type remoteDelegate struct {
	conn    *conn
	session wirev1.SessionId
}

// InvokeTool forwards a nested tool call as delegate/request tool/invoke.
func (d *remoteDelegate) InvokeTool(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	resp, err := d.conn.call(ctx, d.session, call.CellID, wirev1.ToolInvoke{Invocation: convertv1.NestedToolCallToWire(call)})
	if err != nil {
		return nil, err
	}
	r, ok := resp.(wirev1.ToolResult)
	if !ok {
		return nil, errInvalidToolResult
	}
	return r.Result, nil
}

// Notify forwards a notification as delegate/request notification/send.
func (d *remoteDelegate) Notify(ctx context.Context, callID string, cellID codemode.CellID, text string) error {
	resp, err := d.conn.call(ctx, d.session, cellID, wirev1.NotificationSend{CallId: callID, CellId: wirev1.WireCellId(cellID), Text: text})
	if err != nil {
		return err
	}
	if _, ok := resp.(wirev1.NotificationDelivered); !ok {
		return errInvalidNotifyResult
	}
	return nil
}

// CellClosed queues cell/closed on the cell's route, after its initial response.
func (d *remoteDelegate) CellClosed(cellID codemode.CellID) {
	d.conn.closeCell(d.session, cellID)
}

// ReportFailure ends the connection, as Codex's host does when a session task fails: the
// runtime can no longer be trusted to keep its promises to this client.
func (d *remoteDelegate) ReportFailure(reason string) {
	d.conn.fail(errors.New(reason))
}

var (
	_ codemode.Delegate        = (*remoteDelegate)(nil)
	_ codemode.FailureReporter = (*remoteDelegate)(nil)
)
