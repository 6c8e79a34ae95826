// Package v1transport carries V1 frames between a host and a client: over a byte stream (a host
// process's stdin and stdout), over one WebSocket, or over two WebSockets of one dual connection
// (control and bulk lanes, docs/protocol/v1.md#websocket-and-lanes). Both drivers use it: v1host serves a Conn, v1client dials
// one.
//
// A Conn moves frames. A Link runs a Conn for a driver: one goroutine per lane reads and decodes
// (so a half-received 64 MiB bulk frame never holds up a control message, and decoding it happens
// off the driver's path), control messages are handed out before bulk ones, every message of a
// dual connection is checked against the generated lane table, and one writer goroutine per lane
// drains a bounded queue.
package v1transport
