package v1host

import (
	"context"
	"math"

	"golang.org/x/sync/semaphore"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/modeltool"
	"github.com/codemodehq/codemode/pkg/v1/v1convert"
)

// hostSession is one open session of a connection.
type hostSession struct {
	id      wirev1.SessionId
	session codemode.Session
	// serverTruncation is set when session/open asked for outputTruncation "server": every
	// runtime response is truncated to its request's token budget on the host.
	serverTruncation bool
	// cells is the session's share of the host's active cells; nil under a memory budget, where
	// a WebSocket connection has the share instead (conn.cells).
	cells *semaphore.Weighted
}

// budget is how a response of s goes out: whole (nil, the client truncates), or truncated to the
// request's budget in the form the model reads (modeltool.HostTruncatedOutput), since a client that
// asked for server truncation passes it on as it is (docs/protocol/v1.md#output-truncation).
func (s *hostSession) budget(requested *int) *outputBudget {
	if !s.serverTruncation {
		return nil
	}
	return &outputBudget{tokens: requested}
}

// outputBudget is the host-side truncation of one response; tokens nil: no budget.
type outputBudget struct{ tokens *int }

// truncated applies the host-side truncation, if any, to r's output.
func truncated(r codemode.RuntimeResponse, b *outputBudget) codemode.RuntimeResponse {
	if b != nil {
		r.ContentItems = modeltool.HostTruncatedOutput(r, b.tokens)
	}
	return r
}

// tokenBudget converts a wire budget (usize) to the runtime's; a value beyond int saturates.
func tokenBudget(b *wirev1.OutputTokenBudget) *int {
	if b == nil {
		return nil
	}
	n := math.MaxInt
	if uint64(*b) < uint64(math.MaxInt) {
		n = int(*b)
	}
	return &n
}

// openSession creates a session on the provider. A session ID may not be open twice, nor reused
// within the last RecentIDs opened on this connection (also after shutdown); other connections
// may use the same IDs.
func (c *conn) openSession(ctx context.Context, r wirev1.OpenSession) result {
	if err := c.state.reserveSession(r.SessionId); err != nil {
		return failure(err)
	}
	delegate := &remoteDelegate{conn: c, session: r.SessionId}
	sess, err := c.host.provider.CreateSession(ctx, delegate, v1convert.SessionLimitsFromWire(r.CellExecutionLimits))
	if err != nil {
		return failure(err)
	}
	server := r.OutputTruncation != nil && *r.OutputTruncation == wirev1.WireOutputTruncationServer
	hs := &hostSession{id: r.SessionId, session: sess, serverTruncation: server}
	if c.host.budget == nil {
		hs.cells = semaphore.NewWeighted(int64(c.host.cellsPerSession)) // under a budget the connection has the share
	}
	if !c.state.addSession(hs) {
		_ = sess.Shutdown(context.Background())
		return failed(errHostClosing)
	}
	return ok(wirev1.SessionReady{SessionId: r.SessionId})
}

// shutdownSession shuts a session down and answers once every cell of it has sent cell/closed.
func (c *conn) shutdownSession(ctx context.Context, r wirev1.ShutdownSession) result {
	s, found := c.state.removeSession(r.SessionId)
	if !found {
		return failed("unknown code-mode session %s", r.SessionId)
	}
	if err := s.session.Shutdown(ctx); err != nil {
		return failure(err)
	}
	c.routes.awaitSession(ctx, r.SessionId)
	return ok(wirev1.SessionClosed(r))
}

// takeCell takes one of the host's cells, then a slot of the connection's share and of the
// session's (either may have none), and charges the host's memory budget for the cell; it
// returns the function that undoes it all, or nil and the refusal's text (the host's, Codex's,
// when the host is full whatever else is).
func (c *conn) takeCell(s *hostSession) (func(), string) {
	slots := []struct {
		sem     *semaphore.Weighted
		refusal string
	}{{c.host.cells, errTooManyCells}, {c.cells, errTooManyConnectionCells}, {s.cells, errTooManySessionCells}}
	var taken []func()
	undo := func() {
		for _, release := range taken {
			release()
		}
	}
	for _, slot := range slots {
		release := tryAcquire(slot.sem)
		if release == nil {
			undo()
			return nil, slot.refusal
		}
		taken = append(taken, release)
	}
	if b := c.host.budget; b != nil {
		b.Charge(CellMemoryBytes)
		taken = append(taken, func() { b.Give(CellMemoryBytes) })
	}
	return undo, ""
}
