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
package v1host
