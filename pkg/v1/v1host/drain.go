package v1host

import (
	"context"
	"fmt"
	"sync"
)

// Drain ends every connection of the host on purpose, as a host process does when it is told
// to stop: each connection refuses new sessions ("code-mode host is shutting down"), shuts its
// open sessions down (their running cells are terminated, their pending delegate calls
// cancelled), sends every cell's initial response and cell/closed, writes out what it queued,
// and then closes. Connections that complete their handshake later are closed at once.
//
// Drain returns nil once every connection has ended, or ctx's error if one had not by then; the
// caller should then cut what is left by ending the serving context (ServeStdio's or
// ServeWebSocket's ctx). Calling Drain again waits again.
func (h *Host) Drain(ctx context.Context) error {
	h.mu.Lock()
	h.draining = true
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.drain(ctx) })
	}
	wg.Wait()
	for _, c := range conns {
		select {
		case <-c.ended:
		case <-ctx.Done():
			return fmt.Errorf("draining the code-mode host: %d connection(s) still open: %w", h.open(), ctx.Err())
		}
	}
	return nil
}

// track registers a connection being served; it reports false when the host drains.
func (h *Host) track(c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.draining {
		return false
	}
	h.conns[c] = struct{}{}
	return true
}

// untrack forgets a connection that has been torn down.
func (h *Host) untrack(c *conn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
	close(c.ended)
}

// open counts the connections still served.
func (h *Host) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// drain shuts the connection's sessions down, waits (at most until ctx ends) until every cell
// sent its cell/closed and the frames were written, then ends the connection.
func (c *conn) drain(ctx context.Context) {
	sessions := c.state.takeSessions()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			if err := s.session.Shutdown(ctx); err != nil {
				c.host.log.Warn("shutting down a code-mode session while draining", "session", s.id, "error", err)
			}
			c.routes.awaitSession(ctx, s.id)
		})
	}
	wg.Wait()
	if err := c.link.Flush(ctx); err != nil {
		c.host.log.Warn("code-mode connection not flushed while draining", "error", err)
	}
	c.cancel()
}
