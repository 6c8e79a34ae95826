// Package execrpc is Codex's JSON-RPC "lite" dialect as its exec-server speaks it (docs/protocol/exec-server.md#envelope,
// docs/protocol/exec-server.md#decoding): the four message kinds of gen/go/execserverwire told apart
// in Codex's precedence, the bounded decoder (MaxValueNodes JSON values, counted before anything
// is allocated; duplicate keys refused with Codex's text; numbers kept as written), the standard
// error codes, newline-delimited (stdio) and WebSocket transports, and a Peer that serves
// requests and makes calls over one connection, in either role.
//
// Output never carries a "jsonrpc" member; input may (it is ignored, like every unknown member).
package execrpc
