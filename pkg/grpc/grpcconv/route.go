package grpcconv

// Per-session routing (docs/protocol/grpc.md#routing): a host names itself in the OpenSession response
// header RouteHeader, and the client sends that value on every later request of the session, so an
// L7 proxy can keep the session's requests on the host that holds it (HAProxy: stick store-response
// on the response header, stick match on the request header). A request that reaches a host which
// does not hold its session, while carrying another host's route, fails with RouteLostHeader set to
// "true": the client then resets the session (a new lease, the next generation), because the
// stored values and running cells lived on the lost host.
const (
	// RouteHeader carries the route of the host that holds a session.
	RouteHeader = "X-Code-Mode-Route"
	// RouteLostHeader is "true" on a failure for a session whose route names another host.
	RouteLostHeader = "X-Code-Mode-Route-Lost"
	// SessionResetText is Codex's text for what a reset session lost (docs/protocol/grpc.md#routing).
	SessionResetText = "Stored values and running cells were lost"
)

// MaxOpenAttempts bounds the OpenSession attempts of one session opening: a refusal with
// UNAVAILABLE or RESOURCE_EXHAUSTED is tried again (a proxy may send the next attempt to another
// host), at most this many times in all; other codes, and every later request, are never retried.
const MaxOpenAttempts = 5
