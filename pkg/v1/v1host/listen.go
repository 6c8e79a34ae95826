package v1host

import (
	"fmt"
	"net/netip"
	"strings"
)

// ListenURL is a parsed --listen value: stdio, or a WebSocket address.
type ListenURL struct {
	// WebSocket is the address to listen on; invalid (zero) for stdio.
	WebSocket netip.AddrPort
}

// Stdio reports whether the host serves its standard streams.
func (u ListenURL) Stdio() bool { return !u.WebSocket.IsValid() }

// ParseListenURL parses "stdio", "stdio://" or "ws://IP:PORT" (an IP, not a host name: the
// listener binds exactly the address given).
func ParseListenURL(s string) (ListenURL, error) {
	switch {
	case s == "stdio" || s == "stdio://":
		return ListenURL{}, nil
	case strings.HasPrefix(s, "ws://"):
		ap, err := netip.ParseAddrPort(strings.TrimPrefix(s, "ws://"))
		if err != nil {
			return ListenURL{}, fmt.Errorf("invalid WebSocket --listen URL `%s`; expected `ws://IP:PORT`", s)
		}
		return ListenURL{WebSocket: ap}, nil
	}
	return ListenURL{}, fmt.Errorf("unsupported --listen URL `%s`; expected `ws://IP:PORT`, `stdio`, or `stdio://`", s)
}
