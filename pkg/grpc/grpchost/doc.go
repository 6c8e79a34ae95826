// Package grpchost serves Codex's gRPC protocol, codex.code_mode.v1.CodeModeHost, on any
// codemode.SessionProvider, with connect-go: one handler answers gRPC (HTTP/2, h2c without TLS),
// gRPC-Web and Connect, so Codex, browsers and TypeScript clients reach the same service.
//
// A Host is a thin adapter. OpenSession creates a session of the provider and streams its lease
// (the first event is opened; dropping the stream closes the session and terminates its cells).
// The runtime's callbacks become protocol traffic: a nested tool call is dispatched as a ToolCall
// to one matching SubscribeToToolCalls stream (round robin; filters alias the default namespace)
// and waits for its CompleteToolCall; a notification becomes a Notification on the lease; a
// closed cell a CellClosed (with its execution's last tool-call sequence). Execute sends started
// at once and then one outcome; Wait, CancelWait and Terminate observe and stop cells.
//
// The host validates every request and answers with the status codes and texts a client matches on
// (docs/protocol/grpc.md#identifiers-and-validation, docs/protocol/grpc.md#status-codes):
// identifiers non-empty and at most 256 bytes, host-generated ones UUIDs;
// reused execution and wait IDs refused among the last 4,096; per-host limits on in-flight
// requests, active cells, control requests and pending callbacks, answered RESOURCE_EXHAUSTED
// without waiting; 64 MiB messages. Texts are part of the contract, and tests pin them.
//
// Handler, NewHTTPServer, Listen and Serve put the host on the network: h2c and HTTP/1.1 on one
// port, TCP_NODELAY, GET /healthz over both HTTP versions, 505 for gRPC over HTTP/1 (neither
// the health check nor Connect or gRPC-Web), and 404 for unknown paths.
//
// For proxies (docs/protocol/grpc.md#routing, docs/scale-out.md), a Host has a route (Options.Route) returned as
// x-code-mode-route on OpenSession; a request for a session it does not hold that carries another
// route is answered NOT_FOUND with x-code-mode-route-lost: true. Limits.MaxSessions makes a full
// host refuse OpenSession with RESOURCE_EXHAUSTED.
package grpchost
