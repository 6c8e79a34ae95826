package v1host

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/coder/websocket"

	"github.com/codemodehq/codemode/pkg/internal/httpguard"
	"github.com/codemodehq/codemode/pkg/internal/nodelay"

	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// WebSocketHandler returns the routes of a V1 WebSocket listener (docs/protocol/v1.md#websocket-and-lanes): "/" accepts a
// control (or single) connection, "/bulk/{token}" pairs the bulk socket of a dual connection
// (an unknown or used token is 404), and "GET /readyz" answers 200. Any request with an Origin
// header is refused with 403: the host is for programs, never for a browser page that could be
// steered into it. A program without a token wraps it in httpguard's Host check as well
// (hostprogram does). Connections are served until ctx ends.
func (h *Host) WebSocketHandler(ctx context.Context) http.Handler {
	return httpguard.ProgramsOnly(httpguard.Policy{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			h.serveControl(ctx, w, r)
		case strings.HasPrefix(r.URL.Path, "/bulk/"):
			h.serveBulk(w, r, strings.TrimPrefix(r.URL.Path, "/bulk/"))
		default:
			http.NotFound(w, r)
		}
	}))
}

var acceptOptions = &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled}

// serveControl accepts a connection and serves it; dual websockets are offered while a
// pairing slot is free.
func (h *Host) serveControl(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, acceptOptions)
	if err != nil {
		h.log.Warn("code-mode websocket upgrade failed", "error", err)
		return
	}
	upgrade := func(ctx context.Context, p *pairing) (v1transport.Conn, error) {
		bulk, err := p.await(ctx)
		if err != nil {
			return nil, err
		}
		return v1transport.NewDualWebSocketConn(ws, bulk), nil
	}
	if err := h.serve(ctx, v1transport.NewWebSocketConn(ws), h.pairings.reserve, upgrade); err != nil {
		h.log.Warn("code-mode websocket connection ended", "error", err)
	}
}

// serveBulk pairs a bulk socket with the control connection its token was issued to.
func (h *Host) serveBulk(w http.ResponseWriter, r *http.Request, token string) {
	p := h.pairings.claim(token)
	if p == nil {
		http.NotFound(w, r)
		return
	}
	ws, err := websocket.Accept(w, r, acceptOptions)
	if err != nil {
		p.release()
		h.log.Warn("code-mode bulk websocket upgrade failed", "error", err)
		return
	}
	p.deliver(ws)
}

// ServeWebSocket serves the listener routes on ln until ctx ends, then closes ln and every
// connection. Accepted TCP connections have Nagle's algorithm disabled (TCP_NODELAY): V1 is
// request/response traffic of small frames.
func (h *Host) ServeWebSocket(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: h.WebSocketHandler(ctx)}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	err := srv.Serve(nodelay.Listener(ln))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// NoDelayListener sets TCP_NODELAY on every TCP connection ln accepts (the module's one
// listener wrapper, pkg/internal/nodelay).
func NoDelayListener(ln net.Listener) net.Listener { return nodelay.Listener(ln) }
