package grpcclient

import (
	"net/http"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// ErrSessionReset is the error of the operations of a session whose host was lost behind a
// proxy: a request came back with x-code-mode-route-lost (spec §6.1). The session's stored values
// and running cells are gone; its cells were reported closed, and its next operation opens a new
// lease, the next epoch ("g<N>:" cell IDs). The failed operation itself is not replayed.
var ErrSessionReset error = sessionReset{}

// sessionReset is ErrSessionReset's type: its text is the spec's, capitalized as Codex writes it.
type sessionReset struct{}

// Error returns grpcconv.SessionResetText.
func (sessionReset) Error() string { return grpcconv.SessionResetText }

// bindingKey carries, in the context of every request of a binding, the binding, whose route
// routeTripper puts on the request and whose loss it reports.
type bindingKey struct{}

// routeTripper is the RoundTripper of per-session routing: a request of a binding carries the
// binding's route (grpcconv.RouteHeader), and a response that says the route was lost
// (grpcconv.RouteLostHeader) fails the binding with ErrSessionReset before the request's caller
// sees its error.
type routeTripper struct{ next http.RoundTripper }

// RoundTrip adds the route, sends the request and checks the response for a lost route.
func (t routeTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := r.Context().Value(bindingKey{}).(*binding)
	if b != nil {
		if route, _ := b.route.Load().(string); route != "" {
			r = r.Clone(r.Context())
			r.Header.Set(grpcconv.RouteHeader, route)
		}
	}
	resp, err := t.next.RoundTrip(r)
	if b != nil && resp != nil && resp.Header.Get(grpcconv.RouteLostHeader) == "true" {
		b.lostRoute()
	}
	return resp, err
}

// lostRoute fails the binding with ErrSessionReset: every live cell is reported closed, the
// lease dropped, and the session's next operation opens the next epoch.
func (b *binding) lostRoute() {
	b.reset.Store(true)
	b.fail(ErrSessionReset)
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
	route, _ := b.route.Load().(string)
	return route, true
}
