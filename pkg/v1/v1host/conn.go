package v1host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// ShutdownTimeout bounds how long a disconnected connection waits for its sessions to shut
// down (Codex's 5 s).
const ShutdownTimeout = 5 * time.Second

// conn is one served connection after a successful handshake.
type conn struct {
	host   *Host
	link   *v1transport.Link[wirev1.ClientToHost]
	limits bool // session-cell-execution-resource-limits was granted

	// ctx lives as long as the connection; it ends on disconnect.
	ctx    context.Context
	cancel context.CancelFunc

	// state is the connection's requests and sessions, under its own lock.
	state *connState

	// routes is the cells' route bookkeeping, under its own lock.
	routes *routeTable

	delegates delegateCalls
	// answering is the call whose answer the reader is handing to the runtime right now, which
	// may run the answer's turn on the reader (remoteDelegate.RunTurnHere); nil otherwise.
	answering atomic.Pointer[delegateCall]
	// cells is a WebSocket connection's share of the host's cells under a memory budget; nil:
	// none (no budget, or a connection that is its process's only client).
	cells *semaphore.Weighted
	// refusals carries the read loop's own replies to sendRefusals, made on the first one.
	refusals      chan wirev1.Message
	startRefusing sync.Once
	tasks         sync.WaitGroup // request goroutines and sendRefusals
	cellTasks     sync.WaitGroup // cell route goroutines
	// ended is closed when the connection has been torn down (Host.Drain waits for it).
	ended chan struct{}
}

// ServeConn serves one single-lane connection (dual websockets are never granted on it) until
// the client ends it, a protocol violation ends it or ctx ends. It returns nil for a clean end
// and the reason otherwise.
// A connection served here is its process's only client (stdio, a pipe): under a memory budget it
// takes every cell the host admits, where a WebSocket connection takes its share.
func (h *Host) ServeConn(ctx context.Context, c v1transport.Conn) error {
	return h.serve(ctx, c, nil, nil)
}

// serve negotiates on c and serves the connection; upgrade turns the single control connection
// into a dual one once the bulk socket has been paired.
func (h *Host) serve(ctx context.Context, c v1transport.Conn, offer dualOffer, upgrade func(context.Context, *pairing) (v1transport.Conn, error)) error {
	hs, ok, err := negotiate(c, offer, h.generation)
	if err != nil || !ok {
		_ = c.Close()
		return err
	}
	if hs.pairing != nil {
		dual, err := upgrade(ctx, hs.pairing)
		if err != nil {
			_ = c.Close()
			return err
		}
		c = dual
	}
	return h.run(ctx, c, hs, offer != nil)
}

// run serves a negotiated connection; shared is set for a WebSocket's, one of many clients.
func (h *Host) run(parent context.Context, c v1transport.Conn, hs handshake, shared bool) error {
	cn := h.newConn(parent, c, hs, shared)
	if !h.track(cn) {
		// The host drains: a connection that completed its handshake meanwhile ends at once.
		cn.cancel()
		close(cn.ended)
		cn.link.Close(io.EOF)
		cn.link.Wait()
		return nil
	}
	defer h.untrack(cn)
	readErr := cn.readLoop()
	failure := readErr
	if failure == nil {
		failure = cn.state.firstFailure()
	}
	if failure != nil {
		// A peer that broke the protocol gets no more messages, only the reason (a WebSocket's
		// close frame). It may also have stopped reading, and a cell's write blocked on it would
		// hold up the teardown, which waits for the cells: closing the transport first fails such
		// writes at once.
		cn.link.Close(failure)
	}
	cn.disconnect()
	if err := cn.state.firstFailure(); err != nil {
		return err
	}
	return readErr
}

// newConn starts serving a negotiated connection's transport; its read loop is not started.
func (h *Host) newConn(parent context.Context, c v1transport.Conn, hs handshake, shared bool) *conn {
	ctx, cancel := context.WithCancel(parent)
	var linkOpts []v1transport.LinkOption
	var cells *semaphore.Weighted
	if h.budget != nil {
		linkOpts = append(linkOpts, v1transport.WithBudget(h.budget))
		if shared {
			cells = semaphore.NewWeighted(int64(h.connCells))
		}
	}
	return &conn{
		host:      h,
		cells:     cells,
		link:      v1transport.NewLink(c, v1transport.SideClient, h.decodeClientMessage, linkOpts...),
		limits:    hs.limits,
		ctx:       ctx,
		cancel:    cancel,
		state:     newConnState(),
		routes:    newRouteTable(ctx.Done()),
		delegates: newDelegateCalls(hs.maxDelegates),
		ended:     make(chan struct{}),
	}
}

// readLoop dispatches incoming messages until the input ends or the connection fails. It never
// fails for the outgoing queue: its own replies go through refuse, which waits (and so stops
// reading) only once refusalBacklog of them are waiting.
func (c *conn) readLoop() error {
	var dispatchErr error
	err := c.link.Serve(c.ctx, func(msg wirev1.ClientToHost) error {
		dispatchErr = c.dispatch(msg)
		return dispatchErr
	})
	switch {
	case err == nil:
		return nil
	case dispatchErr != nil:
		return dispatchErr
	case errors.Is(err, io.EOF), c.ctx.Err() != nil:
		return nil
	}
	return fmt.Errorf("failed to read code-mode client message: %w", err)
}

func (c *conn) dispatch(msg wirev1.ClientToHost) error {
	switch m := msg.(type) {
	case wirev1.ClientHello:
		return errors.New("received a second code-mode client hello")
	case wirev1.OperationRequest:
		return c.startRequest(m.Id, m.Request)
	case wirev1.OperationCancel:
		c.state.cancelRequest(m.Id)
	case wirev1.OperationYield:
		c.state.yieldRequest(m.Id)
	case wirev1.DelegateResponseMessage:
		c.completeCall(m.Id, m.Result)
	}
	return nil
}

// fail records the first fatal error and ends the connection.
func (c *conn) fail(err error) {
	c.state.recordFailure(err)
	c.host.log.Error("code-mode connection failed", "error", err)
	c.cancel()
}

// disconnect tears the connection down (docs/protocol/v1.md#disconnect): no new requests, every request cancelled,
// pending delegate calls failed with "code-mode client connection closed", every session shut
// down (at most ShutdownTimeout), then the transport closed.
func (c *conn) disconnect() {
	c.state.stopRequests()
	c.cancel()
	c.delegates.disconnect()
	c.tasks.Wait()
	c.shutdownSessions()
	c.cellTasks.Wait()
	c.link.Close(io.EOF)
	c.link.Wait()
}

func (c *conn) shutdownSessions() {
	sessions := c.state.takeSessions()
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.session.Shutdown(ctx); err != nil {
				c.host.log.Warn("shutting down a code-mode session after disconnect", "session", s.id, "error", err)
			}
		}()
	}
	wg.Wait()
}

// refusalBacklog is how many of the read loop's replies may wait for the writer before the read
// loop waits too: enough for a burst of requests refused at admission (a client that writes a
// thousand requests before it reads an answer is served), and a bound on what a client that
// writes without ever reading can make the host hold.
const refusalBacklog = 1024

// refuse sends the read loop's reply to request id, a refusal with text, without writing on the
// read loop: sendRefusals writes it. Past refusalBacklog waiting replies it waits for room —
// back-pressure on reading, never a failed connection (ADR 5).
func (c *conn) refuse(id wirev1.RequestId, text string) {
	c.startRefusing.Do(func() {
		c.refusals = make(chan wirev1.Message, refusalBacklog)
		c.tasks.Add(1)
		go c.sendRefusals()
	})
	select {
	case c.refusals <- wirev1.OperationResponse{Id: id, Result: wirev1.HostResponseError{Message: text}}:
	case <-c.ctx.Done():
	}
}

// sendRefusals writes the read loop's replies in order until the connection ends.
func (c *conn) sendRefusals() {
	defer c.tasks.Done()
	for {
		select {
		case m := <-c.refusals:
			if err := c.link.Send(c.ctx, m); err != nil {
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}
