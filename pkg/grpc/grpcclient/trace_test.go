package grpcclient_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// The caller's trace parent travels with Execute to the host, which puts it on every ToolCall of
// the cell (ToolCall.traceparent, newer Codex); the delegate finds it in its context.
func TestTraceparentPropagatesFromExecuteToToolCalls(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	seen := make(chan string, 2)
	rec.Handle("echo", func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		seen <- grpcclient.Traceparent(ctx)
		return json.RawMessage(`"ok"`), nil
	})
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := grpcclient.WithTraceparent(ctxT(t), tp)
	c, err := s.Execute(ctx, execReq(`await tools.echo({}); await tools.echo({});`, 5_000, fnTool("echo")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InitialResponse(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := <-seen; got != tp {
			t.Fatalf("the delegate saw trace parent %q, want %q", got, tp)
		}
	}
	run(t, s, execReq(`await tools.echo({});`, 5_000, fnTool("echo")))
	if got := <-seen; got != "" {
		t.Fatalf("a cell executed without a trace context passed on %q", got)
	}
}
