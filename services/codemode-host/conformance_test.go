package main_test

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// The conformance suite through the real binary with the Go clients: V1 over stdio (the client
// spawns codemode-host itself, with network listeners too, so a byte on stdout other than a frame
// would fail the run), V1 over single and dual WebSocket, and gRPC, gRPC-Web and Connect, on one
// process started with every listener.

func TestConformanceOverStdio(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		p := v1client.NewProcessProvider(v1client.Command{
			Path: bin,
			Args: []string{"--listen", "stdio", "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0", "--log-level", "warn"},
		}, v1client.Options{})
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}

// TestConformanceOverGRPCStdio: gRPC on the host's standard streams, the transport Codex 0.169
// spawns its host on (docs/protocol/grpc.md#spawned-hosts; the client appends --listen
// grpc+stdio://; the network listeners beside it must not write to stdout either).
func TestConformanceOverGRPCStdio(t *testing.T) {
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		p := grpcclient.NewProcess(grpcclient.Command{
			Path: bin,
			Args: []string{"--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0", "--log-level", "warn"},
		}, grpcclient.Options{})
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}

func TestConformanceOverNetworkListeners(t *testing.T) {
	h := startHost(t, nil, "--listen", "ws://127.0.0.1:0", "--listen", "grpc://127.0.0.1:0")
	addrs := h.addresses(2)
	ws, grpcURL := addrs[0], addrs[1]
	if !strings.HasPrefix(ws, "ws://127.0.0.1:") || !strings.HasPrefix(grpcURL, "http://127.0.0.1:") {
		t.Fatalf("printed addresses %q, want ws://127.0.0.1:PORT then http://127.0.0.1:PORT", addrs)
	}
	for _, dual := range []bool{false, true} {
		name := map[bool]string{false: "WebSocket", true: "DualWebSocket"}[dual]
		t.Run(name, func(t *testing.T) {
			codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
				p := v1client.NewWebSocketProvider(ws, dual, v1client.Options{})
				t.Cleanup(func() { _ = p.Close() })
				return p
			})
		})
	}
	for _, protocol := range []grpcclient.Protocol{grpcclient.ProtocolGRPC, grpcclient.ProtocolGRPCWeb, grpcclient.ProtocolConnect} {
		t.Run(protocol.String(), func(t *testing.T) {
			codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
				p, err := grpcclient.New(grpcURL, grpcclient.Options{Protocol: protocol})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = p.Close() })
				return p
			})
		})
	}
}
