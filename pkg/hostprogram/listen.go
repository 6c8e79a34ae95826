package hostprogram

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

// Transport is what a listener serves.
type Transport int

// The transports of --listen.
const (
	// Stdio serves Protocol V1 on the process's standard streams (Codex spawns the host).
	Stdio Transport = iota + 1
	// WebSocket serves Protocol V1 on a WebSocket listener (single or dual connections).
	WebSocket
	// GRPC serves codex.code_mode.v1.CodeModeHost over gRPC (h2c), gRPC-Web and Connect.
	GRPC
	// GRPCStdio serves codex.code_mode.v1.CodeModeHost as HTTP/2 with prior knowledge on the
	// process's standard streams (Codex 0.169 spawns its host so, by default).
	GRPCStdio
)

// grpcStdioURL is the --listen value of GRPCStdio.
const grpcStdioURL = "grpc+stdio://"

// Listen is one --listen value.
type Listen struct {
	Transport Transport
	// Addr is the address to bind; invalid for Stdio.
	Addr netip.AddrPort
}

// ParseListen parses a --listen value in the forms Codex's host takes, since Codex spawns this
// program in its host's place with them (docs/protocol/grpc.md#spawned-hosts): "stdio", "stdio://",
// "grpc+stdio://", "ws://IP:PORT" or "grpc://IP:PORT", with an IP address (not a host name: the
// listener binds exactly the address given) and a port (0 picks a free one).
func ParseListen(s string) (Listen, error) {
	switch {
	case s == grpcStdioURL:
		return Listen{Transport: GRPCStdio}, nil
	case strings.HasPrefix(s, "grpc://"):
		ap, err := netip.ParseAddrPort(strings.TrimPrefix(s, "grpc://"))
		if err != nil {
			return Listen{}, fmt.Errorf("invalid gRPC --listen URL `%s`; expected `grpc://IP:PORT`", s)
		}
		return Listen{Transport: GRPC, Addr: ap}, nil
	case s == "stdio" || s == "stdio://" || strings.HasPrefix(s, "ws://"):
		u, err := v1host.ParseListenURL(s)
		if err != nil {
			return Listen{}, err
		}
		if u.Stdio() {
			return Listen{Transport: Stdio}, nil
		}
		return Listen{Transport: WebSocket, Addr: u.WebSocket}, nil
	}
	return Listen{}, fmt.Errorf("unsupported --listen URL `%s`; expected `grpc://IP:PORT`, `grpc+stdio://`, `stdio`, `stdio://` or `ws://IP:PORT`", s)
}

// String returns the value as --listen takes it.
func (l Listen) String() string {
	switch l.Transport {
	case WebSocket:
		return "ws://" + l.Addr.String()
	case GRPC:
		return "grpc://" + l.Addr.String()
	case GRPCStdio:
		return grpcStdioURL
	}
	return "stdio"
}

// network reports whether the listener accepts connections from a network.
func (l Listen) network() bool { return !l.stdio() }

// stdio reports whether the listener serves the process's standard streams.
func (l Listen) stdio() bool { return l.Transport == Stdio || l.Transport == GRPCStdio }

// loopback reports whether the listener's address is a loopback address (127.0.0.0/8, ::1).
func (l Listen) loopback() bool { return l.Addr.Addr().Unmap().IsLoopback() }

// listenFlag collects repeated --listen values.
type listenFlag struct{ listens *[]Listen }

// String implements flag.Value.
func (f listenFlag) String() string {
	if f.listens == nil {
		return ""
	}
	parts := make([]string, len(*f.listens))
	for i, l := range *f.listens {
		parts[i] = l.String()
	}
	return strings.Join(parts, ",")
}

// Set implements flag.Value: each --listen adds a listener.
func (f listenFlag) Set(s string) error {
	l, err := ParseListen(s)
	if err != nil {
		return err
	}
	*f.listens = append(*f.listens, l)
	return nil
}
