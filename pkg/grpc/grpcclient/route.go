package grpcclient

import (
	"context"
	"sync/atomic"

	"connectrpc.com/connect/v2"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// ErrSessionReset is the error of the operations of a session whose host was lost behind a
// proxy: a request came back with x-code-mode-route-lost (docs/protocol/grpc.md#routing). The session's stored values
// and running cells are gone; its cells were reported closed, and its next operation opens a new
// lease, the next epoch ("g<N>:" cell IDs). The failed operation itself is not replayed.
var ErrSessionReset error = sessionReset{}

// sessionReset is ErrSessionReset's type: its text is the pinned one (docs/protocol/grpc.md#routing),
// capital S included, since callers and models match on it.
type sessionReset struct{}

// Error returns grpcconv.SessionResetText.
func (sessionReset) Error() string { return grpcconv.SessionResetText }

// routing is a binding's per-session routing: the route its host returned on OpenSession,
// which every later request of the binding carries (grpcconv.RouteHeader), and what to do when a
// response says the route was lost (grpcconv.RouteLostHeader). Each binding has its own client
// whose interceptor is bound to its routing, so no request has to find its binding through its
// context (docs/adr/0068-grpcclient-lifecycle.md).
type routing struct {
	route atomic.Pointer[string]
	// lost stops the binding with ErrSessionReset; it is called before the request that saw the
	// loss returns, so its caller finds the binding reset.
	lost func()
}

// newRouting returns a routing without a route yet, calling lost on a lost route.
func newRouting(lost func()) *routing {
	r := &routing{lost: lost}
	r.set("")
	return r
}

// current is the route, "" when the host sent none (or before OpenSession answered).
func (r *routing) current() string { return *r.route.Load() }

// set records the route of the OpenSession response.
func (r *routing) set(route string) { r.route.Store(&route) }

// observe calls lost when a response's headers say the route was lost.
func (r *routing) observe(header interface{ Get(string) string }) {
	if header.Get(grpcconv.RouteLostHeader) == "true" {
		r.lost()
	}
}

// interceptor puts the route on every request and observes each response's headers once they
// have arrived: after the first Receive, which is where a unary call's or a stream's failure
// surfaces.
func (r *routing) interceptor(next connect.ClientFunc) connect.ClientFunc {
	return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
		// A Client call always carries its CallInfo (connect.CallInfoForClientContext).
		info, _ := connect.CallInfoForClientContext(ctx)
		if route := r.current(); route != "" {
			info.RequestHeader().Set(grpcconv.RouteHeader, route)
		}
		stream, err := next(ctx, spec)
		if err != nil {
			return nil, err
		}
		return &routedStream{ClientStream: stream, info: info, routing: r}, nil
	}
}

// routedStream is a stream of a binding's client: its first Receive reports the response's
// headers to the routing.
type routedStream struct {
	connect.ClientStream
	info     *connect.CallInfo
	routing  *routing
	observed bool
}

// Receive receives a message; the first time, it checks the response headers for a lost route
// before returning.
func (s *routedStream) Receive(msg any) error {
	err := s.ClientStream.Receive(msg)
	if !s.observed {
		s.observed = true
		s.routing.observe(s.info.ResponseHeader())
	}
	return err
}

// Route returns the route identity of the host that holds the current lease of s, a session of
// a Provider: the x-code-mode-route its OpenSession returned, "" when the host sent none. It
// reports false when s is not such a session or holds no lease. Logs and tests use it to tell
// which host behind a proxy serves a session.
func Route(s codemode.Session) (string, bool) {
	rs, ok := s.(*session)
	if !ok {
		return "", false
	}
	rs.mu.Lock()
	b := rs.current
	rs.mu.Unlock()
	if b == nil {
		return "", false
	}
	return b.routing.current(), true
}
