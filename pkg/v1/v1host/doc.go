// Package v1host serves any codemode.SessionProvider to Codex over Protocol V1 (docs/protocol/v1.md): the
// handshake, concurrent operations on sessions and cells, delegate calls back to the client,
// and the host's limits, over a host process's stdio or a WebSocket listener (single or dual
// WebSocket connections).
//
// A Host holds the limits shared by all its connections (256 in-flight requests, 128 active
// cells) and serves each connection with ServeConn; ServeStdio and WebSocketHandler are the two
// transports. Every refusal is Codex's text, sent as an error response while the connection
// stays up; protocol violations (a second hello, a reused request ID, a message on the wrong
// lane, an undecodable frame) end the connection, whose sessions are then shut down.
//
// Files: host.go (Host, options, limits), handshake.go, conn.go (one connection: read loop and
// teardown), requests.go (request IDs and cancellation), handlers.go (the five operations),
// sessions.go, cells.go (per-cell ordering: started, delegate requests, initial response,
// cell/closed), delegate.go (calls from the runtime to the client), respond.go (responses and
// their size fallback), stdio.go, websocket.go and pairing.go (the WebSocket listener).
//
// # Glossary
//
//   - connection: one client's hello, ready and everything after, over stdio, one WebSocket, or
//     a dual pair (a control socket and the bulk socket paired to it by a token, pairing.go).
//   - capability: a feature the client offered and the host granted in connection/ready
//     (yield-observation, bounded-output-v1, dual-websocket-v1, …).
//   - generation: a version of the V1 wire, the shapes one range of Codex releases speaks
//     (wirev1.Generation: baseline, host-duration, bounded-output; G1, G2, G3 in
//     docs/protocol/v1.md); WithGeneration picks the one served. Not a reconnect counter.
//   - request: a client message with a request ID, answered once; in flight until answered.
//   - active cell: an admitted cell not yet closed; the Host's limit counts them.
//   - delegate request: a tool call or notification the runtime starts, sent to the client with
//     its own ID and cancelled with delegate/cancel.
//   - initial response: the first response of an execute, after its started response.
//   - route: a cell's ordered messages to the client (delegate requests, their cancellations,
//     the initial response, wait and terminate answers) and the one sender that writes them,
//     until cell/closed (cells.go), except a request, the initial response or cell/closed written
//     directly where it is next and can go out without waiting (sendDirect, sendInitialDirect,
//     closeCell).
package v1host
