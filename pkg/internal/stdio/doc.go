// Package stdio serves a connection on a process's standard streams, as a host that its client
// spawned does (V1 frames, or HTTP/2 for gRPC): stdin read through Go's poller (Pollable), and
// both streams as one net.Conn (NewConn).
package stdio
