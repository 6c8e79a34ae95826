// Package nodelay is what the module's TCP listeners share: connections accepted with Nagle's
// algorithm off. Code Mode's protocols (V1 over WebSocket, gRPC) are request/response traffic of
// small messages in both directions, and waiting to coalesce them would add latency to every
// round trip (docs/adr/0069-one-of-each-mechanism.md).
package nodelay

import (
	"fmt"
	"net"
)

// Listener returns ln with TCP_NODELAY set on every TCP connection it accepts. Go enables it by
// default; it is set explicitly because the protocols depend on it. A connection whose option
// cannot be set is closed and its Accept fails.
func Listener(ln net.Listener) net.Listener { return noDelayListener{ln} }

type noDelayListener struct{ net.Listener }

// Accept returns the next connection with TCP_NODELAY set.
func (l noDelayListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		if err := tc.SetNoDelay(true); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("set TCP_NODELAY: %w", err)
		}
	}
	return c, nil
}
