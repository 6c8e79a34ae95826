package v1client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// errConnectionClosed is the failure of a connection that was closed without another reason.
var errConnectionClosed = errors.New("code-mode host connection closed")

// connection is one negotiated connection to a host.
type connection struct {
	link   *v1transport.Link[wirev1.HostToClient]
	epoch  uint64 // the provider's reconnect epoch: its cell IDs' "g{N}:" (cellids.go)
	limits bool   // session-cell-execution-resource-limits was granted
	// boundedOutput and yieldObservation were granted: the host speaks generation
	// bounded-output (Codex 0.169), so outputTruncation, maxOutputTokens and operation/yield
	// may be sent.
	boundedOutput, yieldObservation bool
	opts                            *Options
	log                             *slog.Logger
	// stop, if set, ends what the connection owns besides its transport (a host process).
	stop func()
	// pid is the host process's ID, 0 for a host reached over the network.
	pid int

	ctx        context.Context // ends when the connection fails
	cancel     context.CancelFunc
	readerDone chan struct{}

	mu        sync.Mutex
	failure   error
	requests  requestTable
	sessions  map[wirev1.SessionId]*session
	delegates delegateTable
	tasks     sync.WaitGroup // delegate goroutines and fire-and-forget requests
}

// newConnection starts the read loop of a negotiated link.
func newConnection(link *v1transport.Link[wirev1.HostToClient], epoch uint64, n negotiated, opts *Options, stop func()) *connection {
	ctx, cancel := context.WithCancel(context.Background())
	c := &connection{
		link: link, epoch: epoch, limits: n.limits, boundedOutput: n.boundedOutput, yieldObservation: n.yieldObservation,
		opts: opts, log: opts.logger(), stop: stop,
		ctx: ctx, cancel: cancel, readerDone: make(chan struct{}),
		requests:  newRequestTable(),
		sessions:  map[wirev1.SessionId]*session{},
		delegates: newDelegateTable(),
	}
	go c.readLoop()
	return c
}

// alive reports whether the connection can take new work.
func (c *connection) alive() bool { return c.ctx.Err() == nil }

// err is the connection's failure, or errConnectionClosed.
func (c *connection) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failure != nil {
		return c.failure
	}
	return errConnectionClosed
}

// readLoop handles the host's messages until the connection fails.
func (c *connection) readLoop() {
	defer close(c.readerDone)
	var handleErr error
	err := c.link.Serve(c.ctx, func(msg wirev1.HostToClient) error {
		handleErr = c.handle(msg)
		return handleErr
	})
	switch {
	case handleErr != nil:
		c.fail(handleErr)
	case c.ctx.Err() == nil:
		c.fail(readFailure(err))
	}
}

func readFailure(err error) error {
	if errors.Is(err, io.EOF) {
		return errConnectionClosed
	}
	return fmt.Errorf("failed to read code-mode host message: %w", err)
}

// handle dispatches one message; an error is a protocol violation that fails the connection.
func (c *connection) handle(msg wirev1.HostToClient) error {
	switch m := msg.(type) {
	case wirev1.OperationResponse:
		return c.completeRequest(m.Id, m.Result)
	case wirev1.InitialResponse:
		return c.completeInitial(m.Id, m.Result)
	case wirev1.DelegateRequestMessage:
		return c.startDelegate(m)
	case wirev1.DelegateCancel:
		c.cancelDelegate(m.Id)
		return nil
	case wirev1.CellClosed:
		return c.closeCell(m.SessionId, m.CellId)
	case wirev1.HostHello, wirev1.HandshakeRejected:
		return errors.New("code-mode host sent a second handshake response")
	}
	return fmt.Errorf("unexpected code-mode host message %T", msg)
}

// fail ends the connection with err (the first reason wins): every pending request fails with
// it, every live cell is closed exactly once, every delegate call is cancelled.
func (c *connection) fail(err error) {
	c.mu.Lock()
	if c.failure != nil {
		c.mu.Unlock()
		return
	}
	c.failure = err
	c.cancel()
	pending := c.requests.drain()
	var closed []closedCell
	for _, s := range c.sessions {
		closed = append(closed, s.drainCells()...)
	}
	c.delegates.cancelAll()
	c.mu.Unlock()
	c.log.Debug("code-mode host connection failed", "error", err)
	for _, p := range pending {
		p.fail(err)
	}
	for _, cc := range closed {
		cc.notify()
	}
	c.link.Close(err)
	if c.stop != nil {
		c.stop()
	}
}

// close ends the connection and waits for its goroutines.
func (c *connection) close() {
	c.fail(errConnectionClosed)
	<-c.readerDone
	c.tasks.Wait()
	c.link.Wait()
}

// closedCell is a cell to report closed to its delegate, outside the connection's lock.
type closedCell struct {
	delegate codemode.Delegate
	id       codemode.CellID
}

// notify calls CellClosed, containing a panic or Goexit as the runtime does: it becomes the
// cell's task failure, reported to the delegate (codemode.CallCellClosed).
func (cc closedCell) notify() { codemode.CallCellClosed(cc.delegate, cc.id) }

// closeCell handles cell/closed: the cell's delegate calls are cancelled (their answers
// suppressed) and CellClosed is called at once, without waiting for them.
func (c *connection) closeCell(sid wirev1.SessionId, cell wirev1.WireCellId) error {
	c.mu.Lock()
	s := c.sessions[sid]
	if s == nil {
		c.mu.Unlock()
		return fmt.Errorf("code-mode host closed cell %s in unknown session %s", cell, sid)
	}
	public, ok := s.cells[cell]
	if !ok {
		c.mu.Unlock()
		return fmt.Errorf("code-mode host closed unknown cell in session %s", sid)
	}
	delete(s.cells, cell)
	c.delegates.cancelCell(sid, cell)
	s.cellsChanged()
	c.mu.Unlock()
	closedCell{delegate: s.delegate, id: public}.notify()
	return nil
}

// send queues a message to the host; a message too large for a frame is returned as an error.
func (c *connection) send(m wirev1.ClientToHost) error {
	err := c.link.Send(c.ctx, m)
	if err != nil && c.ctx.Err() != nil {
		return c.err()
	}
	return err
}

// runtimeResponse converts a received response with its public cell ID.
func (c *connection) runtimeResponse(w wirev1.WireRuntimeResponse) codemode.RuntimeResponse {
	return publicResponse(c.epoch, v1convert.RuntimeResponseFromWire(w))
}
