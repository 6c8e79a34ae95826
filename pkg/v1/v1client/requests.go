package v1client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// reply is the host's answer to a request, or the reason there is none.
type reply struct {
	value wirev1.HostResponse
	err   error
}

// pendingRequest is a request sent and not yet answered.
type pendingRequest struct {
	op      string // names the operation in errors: "open-session", "execute", …
	session *session
	// cell is the wire cell a wait or terminate targets; the answer must name it.
	cell wirev1.WireCellId
	// cancellable requests (execute, wait) send operation/cancel when their caller leaves.
	cancellable bool
	done        chan reply
	stopTimer   func() bool
	// yieldMs is the runtime allowance of an execute's initial response.
	yieldMs *uint64
	// started is the admitted cell of a successful execute, set by the read loop.
	started *codemode.StartedCell
	// yieldNow is the caller's YieldNow: a wait sends operation/yield for it while it is
	// outstanding, an execute from its admission until its initial response.
	yieldNow <-chan struct{}

	// abandoned is set (under the connection's lock) when the caller left.
	abandoned bool
	// onAbandon runs under the connection's lock when the caller of a pending request leaves.
	onAbandon func()
	// retired receives the answer of an abandoned request (in the read loop).
	retired func(reply)
	// unclaimed receives an answer that was delivered while its caller was leaving.
	unclaimed func(reply)
	// unsent runs when the request could not be sent at all.
	unsent func()
}

func newPending(op string, s *session) *pendingRequest {
	return &pendingRequest{op: op, session: s, done: make(chan reply, 1), stopTimer: func() bool { return false }}
}

func (p *pendingRequest) fail(err error) {
	p.stopTimer()
	p.deliver(reply{err: err})
}

func (p *pendingRequest) deliver(r reply) {
	select {
	case p.done <- r:
	default:
	}
}

// requestTable holds a connection's requests. Callers hold the connection's lock.
type requestTable struct {
	last     int64
	pending  map[wirev1.RequestId]*pendingRequest
	initials map[wirev1.RequestId]*initialWaiter
	// retiring counts, per cell, the cancelled waits the host has not answered yet; deferred
	// are the waits queued behind them (docs/protocol/v1.md#client-rules: a cancelled wait is retired before the next
	// wait frame is sent).
	retiring map[cellKey]int
	deferred map[cellKey][]chan struct{}
}

// cellKey names a wire cell of a session.
type cellKey struct {
	session wirev1.SessionId
	cell    wirev1.WireCellId
}

func newRequestTable() requestTable {
	return requestTable{
		pending:  map[wirev1.RequestId]*pendingRequest{},
		initials: map[wirev1.RequestId]*initialWaiter{},
		retiring: map[cellKey]int{},
		deferred: map[cellKey][]chan struct{}{},
	}
}

// drain removes every pending request and initial response, for a failing connection.
func (t *requestTable) drain() []interface{ fail(error) } {
	var out []interface{ fail(error) }
	for id, p := range t.pending {
		out = append(out, p)
		delete(t.pending, id)
	}
	for id, w := range t.initials {
		out = append(out, w)
		delete(t.initials, id)
	}
	for k, waiters := range t.deferred {
		for _, w := range waiters {
			close(w)
		}
		delete(t.deferred, k)
	}
	return out
}

// transportDeadline is the client's deadline for a request with a runtime allowance of yieldMs
// (docs/protocol/v1.md#client-rules: wait = yield_time_ms + 1 s + 60 s, terminate = 60 s).
func (c *connection) transportDeadline(yieldMs *uint64) time.Duration {
	d := c.opts.transportTimeout()
	if yieldMs == nil {
		return d
	}
	const maxMs = uint64(math.MaxInt64/int64(time.Millisecond)) - 1_000
	ms := min(*yieldMs, maxMs) + codemode.YieldGraceMs
	if rest := time.Duration(math.MaxInt64) - d; time.Duration(ms)*time.Millisecond > rest {
		return time.Duration(math.MaxInt64)
	}
	return d + time.Duration(ms)*time.Millisecond
}

// roundTrip sends req and waits for its answer, at most deadline: a host that misses it fails
// the connection. If ctx ends first the caller gets ctx's error; a cancellable request is then
// cancelled on the host, and its answer, when it comes, goes to p.orphaned.
func (c *connection) roundTrip(ctx context.Context, p *pendingRequest, req wirev1.HostRequest, deadline time.Duration) (wirev1.HostResponse, error) {
	// A caller that has already left sends nothing, so the host consumes nothing for it.
	if err := ctx.Err(); err != nil {
		if p.unsent != nil {
			p.unsent()
		}
		return nil, err
	}
	// The deadline is armed before the request becomes visible to the read loop, so the
	// timer's stop function is set before anyone else can read it.
	timer := time.AfterFunc(deadline, func() {
		c.fail(fmt.Errorf("code-mode host timed out waiting for %s response", p.op))
	})
	p.stopTimer = timer.Stop
	id, err := c.register(p)
	if err != nil {
		timer.Stop()
		return nil, err
	}
	if err := c.send(wirev1.OperationRequest{Id: id, Request: req}); err != nil {
		timer.Stop()
		c.unregister(id)
		if p.unsent != nil {
			p.unsent()
		}
		if errors.Is(err, v1frame.ErrInvalidData) {
			return nil, fmt.Errorf("code-mode %s request exceeds the IPC frame limit: %w", p.op, err)
		}
		return nil, err
	}
	if p.op == "wait" {
		answered := make(chan struct{})
		defer close(answered)
		c.watchYield(id, p.yieldNow, answered)
	}
	select {
	case r := <-p.done:
		return r.value, r.err
	case <-ctx.Done():
		c.abandonRequest(id, p)
		return nil, ctx.Err()
	}
}

func (c *connection) register(p *pendingRequest) (wirev1.RequestId, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failure != nil {
		return 0, c.failure
	}
	c.requests.last++
	id := wirev1.RequestId(c.requests.last)
	c.requests.pending[id] = p
	return id, nil
}

func (c *connection) unregister(id wirev1.RequestId) {
	c.mu.Lock()
	delete(c.requests.pending, id)
	c.mu.Unlock()
}

// abandonRequest handles a caller that left: a request still pending is cancelled on the host
// and its answer orphaned; an answer that was already delivered but not claimed is orphaned now.
func (c *connection) abandonRequest(id wirev1.RequestId, p *pendingRequest) {
	c.mu.Lock()
	_, pending := c.requests.pending[id]
	if pending {
		p.abandoned = true
		if p.onAbandon != nil {
			p.onAbandon()
		}
	}
	c.mu.Unlock()
	if !pending {
		select {
		case r := <-p.done:
			if p.unclaimed != nil {
				p.unclaimed(r)
			}
		default:
		}
		return
	}
	if p.cancellable {
		_ = c.send(wirev1.OperationCancel{Id: id})
	}
}

// completeRequest matches an operation/response to its request (an unknown ID is fatal),
// checks it and hands it over.
func (c *connection) completeRequest(id wirev1.RequestId, res wirev1.HostResponseResult) error {
	c.mu.Lock()
	p, ok := c.requests.pending[id]
	delete(c.requests.pending, id)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("code-mode host returned unknown request ID RequestId(%d)", id)
	}
	p.stopTimer()
	r := reply{}
	switch v := res.(type) {
	case wirev1.HostResponseOk:
		r.value = v.Value
	case wirev1.HostResponseError:
		r.err = errors.New(v.Message)
	}
	if err := c.check(id, p, &r); err != nil {
		p.fail(err)
		return err
	}
	c.mu.Lock()
	abandoned := p.abandoned
	c.mu.Unlock()
	if abandoned {
		if p.retired != nil {
			p.retired(r)
		}
		return nil
	}
	p.deliver(r)
	return nil
}

// check validates an answer against its request, in the read loop so that what it admits (a
// started cell) is known before the next message is handled.
func (c *connection) check(id wirev1.RequestId, p *pendingRequest, r *reply) error {
	if r.err != nil {
		if p.op == "execute" {
			c.executeFailed(p.session)
		}
		return nil
	}
	switch p.op {
	case "open-session":
		if v, ok := r.value.(wirev1.SessionReady); !ok || v.SessionId != p.session.id {
			return errors.New("code-mode host returned an invalid open-session response")
		}
		c.mu.Lock()
		c.sessions[p.session.id] = p.session
		c.mu.Unlock()
	case "execute":
		v, ok := r.value.(wirev1.ExecutionStarted)
		if !ok {
			return errors.New("code-mode host returned an invalid execute response")
		}
		return c.admitCell(id, p, v.CellId)
	case "wait", "terminate":
		v, ok := r.value.(wirev1.WaitCompleted)
		if !ok {
			return errors.New("code-mode host returned an invalid cell response")
		}
		if got := v1convert.WaitOutcomeCellID(v.Outcome); got != p.cell {
			return fmt.Errorf("code-mode host returned cell %s for request targeting %s", got, p.cell)
		}
	case "shutdown":
		if v, ok := r.value.(wirev1.SessionClosed); !ok || v.SessionId != p.session.id {
			return errors.New("code-mode host returned an invalid shutdown response")
		}
	}
	return nil
}
