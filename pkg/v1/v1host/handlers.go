package v1host

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// Error texts of refused operations (docs/protocol/v1.md#sessions, docs/protocol/v1.md#execute). They reach the model: keep them stable.
const (
	errTooManyRequests = "code-mode host has too many in-flight requests"
	errTooManyCells    = "code-mode host has too many active cells"
	// errTooManySessionCells is codemode's own refusal (Codex's host has no per-session share),
	// worded like the pinned per-session texts ("code-mode session has too many pending delegate
	// calls", docs/protocol/grpc.md#additions-of-codex-0169), so a model meets one family of refusals.
	errTooManySessionCells = "code-mode session has too many active cells"
	// errTooManyConnectionCells is the refusal of a WebSocket connection's share under a memory
	// budget (WithMemoryBudget), codemode's own like the session's.
	errTooManyConnectionCells = "code-mode connection has too many active cells"
	errCancelled              = "code-mode request cancelled"
	errHostClosing            = "code-mode host is shutting down"
)

// startRequest admits a request from the read loop: a reused ID is fatal; beyond the in-flight
// limit the request is refused at once (its ID then counts as finished).
func (c *conn) startRequest(id wirev1.RequestId, req wirev1.HostRequest) error {
	receivedAt := time.Now()
	ctx, err := c.state.startRequest(c.ctx, id, req)
	if err != nil {
		return err
	}
	release := tryAcquire(c.host.requests)
	if release == nil {
		c.state.finishRequest(id)
		c.refuse(id, errTooManyRequests)
		return nil
	}
	c.tasks.Add(1)
	go func() {
		defer c.tasks.Done()
		defer release()
		defer c.state.finishRequest(id)
		defer c.supervise("request")
		c.handle(ctx, id, req, receivedAt)
	}()
	return nil
}

// supervise contains a panic of one of the connection's goroutines: the connection fails with
// Codex's "code-mode {task} task failed: …" (its client can no longer trust what it was told),
// and the host process and its other connections go on.
func (c *conn) supervise(task string) {
	if r := recover(); r != nil {
		c.fail(fmt.Errorf("code-mode %s task failed: %v", task, r))
	}
}

// handle runs one operation and answers it.
func (c *conn) handle(ctx context.Context, id wirev1.RequestId, req wirev1.HostRequest, receivedAt time.Time) {
	if c.state.isClosing() {
		c.respondError(id, errHostClosing)
		return
	}
	ctx, endSpan := c.host.traceOperation(ctx, req)
	defer endSpan()
	switch r := req.(type) {
	case wirev1.OpenSession:
		c.respond(id, c.openSession(ctx, r))
	case wirev1.Execute:
		c.execute(ctx, id, r, receivedAt)
	case wirev1.Wait:
		c.wait(ctx, id, r, receivedAt)
	case wirev1.Terminate:
		c.terminate(ctx, id, r, receivedAt)
	case wirev1.ShutdownSession:
		c.respond(id, c.shutdownSession(ctx, r))
	}
}

// result is a HostResponse or the error text that replaces it.
type result struct {
	value wirev1.HostResponse
	err   error
}

func ok(v wirev1.HostResponse) result { return result{value: v} }
func failed(format string, args ...any) result {
	return result{err: fmt.Errorf(format, args...)}
}
func failure(err error) result { return result{err: err} }

// execute admits a cell (docs/protocol/v1.md#execute): execution/started, then the cell's route
// sends its delegate requests, its initial response and finally cell/closed. The request stays
// active, and its ID unusable, until the initial response was sent.
func (c *conn) execute(ctx context.Context, id wirev1.RequestId, r wirev1.Execute, receivedAt time.Time) {
	if ctx.Err() != nil {
		c.respondError(id, errCancelled)
		return
	}
	req, err := v1convert.ExecuteRequestFromWire(r.Request)
	if err != nil {
		c.respondError(id, "invalid code-mode execute request: "+err.Error())
		return
	}
	s, err := c.state.session(r.SessionId)
	if err != nil {
		c.respond(id, failure(err))
		return
	}
	releaseCell, refusal := c.takeCell(s)
	if releaseCell == nil {
		c.respondError(id, refusal)
		return
	}
	req.YieldNow = c.state.yieldChannel(id)
	req.Observe = func(resp codemode.RuntimeResponse) {
		key, m := cellKey{s.id, resp.CellID}, routeMessage{kind: routeInitial, initial: codemode.InitialResult{Response: resp}}
		if !c.sendInitialDirect(key, m) {
			c.routes.offerInitial(key, m, true)
		}
	}
	started, err := s.session.Execute(ctx, req)
	if err != nil {
		releaseCell()
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			c.respondError(id, errCancelled)
			return
		}
		c.respond(id, failure(err))
		return
	}
	c.respondKeepingID(id, ok(wirev1.ExecutionStarted{CellId: wirev1.WireCellId(started.CellID)}))
	key := cellKey{s.id, started.CellID}
	written := c.startCell(key, execution{id: id, receivedAt: receivedAt, budget: s.budget(req.MaxOutputTokens)}, releaseCell)
	c.forwardInitial(key, started)
	select {
	case <-written:
	case <-c.ctx.Done():
	}
}

// wait answers a session/wait. A response the runtime produced among the cell's events
// (codemode.WaitRequest.Observe) goes out on the cell's route, in that order; the wait returns
// once it was written.
func (c *conn) wait(ctx context.Context, id wirev1.RequestId, r wirev1.Wait, receivedAt time.Time) {
	s, err := c.state.session(r.SessionId)
	if err != nil {
		c.respond(id, failure(err))
		return
	}
	budget := s.budget(tokenBudget(r.MaxOutputTokens))
	req := v1convert.WaitRequestFromWire(r.Request)
	req.YieldNow = c.state.yieldChannel(id)
	routed := make(chan struct{})
	var onRoute atomic.Bool
	req.Observe = func(resp codemode.RuntimeResponse) {
		answer := c.waitCompleted(codemode.LiveCell(resp), receivedAt, budget)
		send := func() {
			c.respond(id, answer)
			close(routed)
		}
		onRoute.Store(c.routes.pushIfRouted(cellKey{s.id, resp.CellID}, routeMessage{kind: routeResponse, send: send}))
	}
	release := c.routes.hold(cellKey{s.id, req.CellID})
	defer release()
	outcome, err := s.session.Wait(ctx, req)
	switch {
	case onRoute.Load():
		select {
		case <-routed:
		case <-c.ctx.Done():
		}
	case err != nil && ctx.Err() != nil:
		c.respond(id, failed(errCancelled))
	case err != nil:
		c.respond(id, failure(err))
	default:
		c.respond(id, c.waitCompleted(outcome, receivedAt, budget))
	}
}

// terminate answers a session/terminate on the cell's route, after the cancellations of the calls
// it abandoned; the cell's cell/closed waits until the answer was written (hold), so that
// cell/closed stays the cell's last frame (docs/protocol/v1.md#execute).
func (c *conn) terminate(ctx context.Context, id wirev1.RequestId, r wirev1.Terminate, receivedAt time.Time) {
	s, err := c.state.session(r.SessionId)
	if err != nil {
		c.respond(id, failure(err))
		return
	}
	release := c.routes.hold(cellKey{s.id, codemode.CellID(r.CellId)})
	defer release()
	outcome, err := s.session.Terminate(ctx, codemode.CellID(r.CellId))
	if err != nil {
		c.respond(id, failure(err))
		return
	}
	c.respondOnRoute(cellKey{s.id, codemode.CellID(r.CellId)}, id, c.waitCompleted(outcome, receivedAt, s.budget(tokenBudget(r.MaxOutputTokens))))
}

// respondOnRoute answers request id on the cell's route, behind what the cell sent before (the
// cancellations of the calls a termination abandoned), and returns once the answer was written;
// a cell without a route is answered at once.
func (c *conn) respondOnRoute(key cellKey, id wirev1.RequestId, answer result) {
	written := make(chan struct{})
	send := func() {
		c.respond(id, answer)
		close(written)
	}
	if !c.routes.pushIfRouted(key, routeMessage{kind: routeResponse, send: send}) {
		c.respond(id, answer)
		return
	}
	select {
	case <-written:
	case <-c.ctx.Done():
	}
}

// waitCompleted answers a wait or terminate, its output truncated to budget when there is one.
// The host duration counts from receipt of the request until now, when the outcome is ready
// (docs/protocol/v1.md#host-duration-g2).
func (c *conn) waitCompleted(o codemode.WaitOutcome, receivedAt time.Time, budget *outputBudget) result {
	d := time.Since(receivedAt)
	o.Response.HostDuration = &d
	o.Response = fitFrame(truncated(o.Response, budget))
	w, err := v1convert.WaitOutcomeToWire(o, wirev1.WireCellId(o.Response.CellID), c.host.generation)
	if err != nil {
		return failure(err)
	}
	return ok(wirev1.WaitCompleted{Outcome: w})
}
