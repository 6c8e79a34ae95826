package main_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1/code_modev1connect"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// unaryFloor is the transport's share of a gRPC tool round trip: a unary RPC that the host
// answers at once (GetProcessMetrics, which both hosts refuse as unimplemented), over gRPC on the
// child's stdio, with nothing else of either host involved. A tool round trip over gRPC is one
// such RPC (CompleteToolCall) plus one message on the subscription stream, so this row bounds
// what the host's own work can win there.
func unaryFloor(b *testing.B, h comparedHost) {
	client := rawGRPCStdio(b, h)
	ctx := context.Background()
	for b.Loop() {
		_, err := client.GetProcessMetrics(ctx, &pb.GetProcessMetricsRequest{})
		if ce := (*connect.Error)(nil); !errors.As(err, &ce) || ce.Code() != connect.CodeUnimplemented {
			b.Fatalf("GetProcessMetrics: %v", err)
		}
	}
}

// rawGRPCStdio spawns h speaking gRPC on its stdio and returns a bare generated client over it,
// the HTTP/2 connection made with prior knowledge, as a spawned host's client must make it
// (docs/protocol/grpc.md#spawned-hosts), so the floor is that of the path Codex's client takes.
func rawGRPCStdio(b *testing.B, h comparedHost) code_modev1connect.CodeModeHostClient {
	b.Helper()
	p := startProcess(b, h.path, h.env, append(append([]string(nil), h.args...), "--listen", grpcclient.GRPCStdioListen)...)
	b.Cleanup(func() { _ = p.stdin.Close() })
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: protocols, DialContext: func(context.Context, string, string) (net.Conn, error) {
		return &pipeConn{ReadCloser: p.rawStdout, WriteCloser: p.stdin}, nil
	}}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	return code_modev1connect.NewCodeModeHostClient(connect.NewClient(connecthttp.NewTransport(hc, "http://code-mode-host", connecthttp.WithGRPC())))
}
