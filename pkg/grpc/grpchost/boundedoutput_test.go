package grpchost_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/internal/zstd"
)

// Codex 0.169's additions to the gRPC host (docs/protocol/grpc.md#additions-of-codex-0169), with its exact statuses.

// openWith opens a session with req and returns the lease, or the status of the opening.
func (srv *server) openWith(t *testing.T, req *pb.OpenSessionRequest) (*lease, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stream, err := srv.client.OpenSession(ctx, req)
	if err != nil {
		return nil, err
	}
	first, err := stream.Receive()
	if err != nil {
		return nil, err
	}
	return &lease{id: first.GetOpened().GetSessionId(), stream: stream, cancel: cancel}, nil
}

func TestOpenSessionChecksCodexFields(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	for _, mode := range []pb.OutputTruncation{3, 9} {
		_, err := srv.openWith(t, &pb.OpenSessionRequest{OutputTruncation: mode})
		wantStatus(t, "output_truncation "+strconv.Itoa(int(mode)), err, connect.CodeInvalidArgument, "unknown code-mode output truncation mode")
	}
	zero := uint64(0)
	_, err := srv.openWith(t, &pb.OpenSessionRequest{MaxPendingDelegateCalls: &zero})
	wantStatus(t, "max_pending_delegate_calls 0", err, connect.CodeInvalidArgument, "callback capacity must be positive")
	for _, n := range []uint64{1, 1024, 4096, 4097, 1 << 20} {
		if _, err := srv.openWith(t, &pb.OpenSessionRequest{MaxPendingDelegateCalls: &n, OutputTruncation: pb.OutputTruncation_OUTPUT_TRUNCATION_SERVER}); err != nil {
			t.Errorf("max_pending_delegate_calls %d: %v", n, err)
		}
	}
}

// With max_pending_delegate_calls 2, five calls at once: two reach the client, three fail in the
// cell with Codex's per-session text. The two are answered only once the cell has made all five
// (it yields from a timer, a later turn than the one that started the calls; a notification would
// itself need a place): an answer before that frees a place for a later call, as it would in
// Codex, which on loaded cores (the race detector in CI) happened between two calls of one turn.
func TestPerSessionPendingDelegateLimit(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	two := uint64(2)
	l, err := srv.openWith(t, &pb.OpenSessionRequest{MaxPendingDelegateCalls: &two})
	if err != nil {
		t.Fatal(err)
	}
	sub := srv.subscribe(t, l)
	req := request(l.id, "e1", `const calls = Array.from({ length: 5 }, () => tools.t({}).then(() => "ok", (e) => String(e)));
		setTimeout(() => yield_control(), 0);
		text((await Promise.all(calls)).sort().join("|"));`)
	req.EnabledTools = []*pb.ToolDefinition{tool("t")}
	e := srv.execute(t, req)
	calls := make([]*pb.ToolCall, 2)
	for i := range calls {
		call, err := sub.Receive()
		if err != nil {
			t.Fatal(err)
		}
		calls[i] = call
	}
	if o := e.outcome(t); o.GetYielded() == nil {
		t.Fatalf("outcome before the answers: %v", o)
	}
	for _, call := range calls {
		srv.complete(t, l, call, `1`)
	}
	// A call past the bound that reached the client unanswered would keep the cell running: the
	// wait then yields after a minute with no output.
	resp, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: "w", YieldTimeMs: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	want := "code-mode session has too many pending delegate calls|code-mode session has too many pending delegate calls|code-mode session has too many pending delegate calls|ok|ok"
	if got := texts(resp.GetLiveCell()); len(got) != 1 || got[0] != want {
		t.Fatalf("outcome %q, want %q", got, want)
	}
}

func TestYieldObservationEndsAnExecuteAndAWait(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	ctx := context.Background()
	_, err := srv.client.YieldObservation(ctx, &pb.YieldObservationRequest{SessionId: l.id})
	wantStatus(t, "no observation", err, connect.CodeInvalidArgument, "missing code-mode observation ID")
	_, err = srv.client.YieldObservation(ctx, &pb.YieldObservationRequest{SessionId: "not-a-uuid", Observation: &pb.YieldObservationRequest_WaitId{WaitId: "w"}})
	wantStatus(t, "bad session ID", err, connect.CodeInvalidArgument, "code-mode session ID must be a UUID")
	unknown := "00000000-0000-4000-8000-000000000000"
	_, err = srv.client.YieldObservation(ctx, &pb.YieldObservationRequest{SessionId: unknown, Observation: &pb.YieldObservationRequest_WaitId{WaitId: "w"}})
	wantStatus(t, "unknown session", err, connect.CodeNotFound, "unknown code-mode session "+unknown)
	for _, obs := range []*pb.YieldObservationRequest{
		{SessionId: l.id, Observation: &pb.YieldObservationRequest_ExecutionId{ExecutionId: "not-a-uuid"}},
		{SessionId: l.id, Observation: &pb.YieldObservationRequest_WaitId{WaitId: "never-seen"}},
	} {
		if _, err := srv.client.YieldObservation(ctx, obs); err != nil {
			t.Errorf("unknown observation %v: %v", obs, err)
		}
	}

	sub := srv.subscribe(t, l)
	req := request(l.id, "e1", `text("a"); await tools.t({}); text("b"); await tools.t({}); text("c");`)
	req.EnabledTools = []*pb.ToolDefinition{tool("t")}
	forever := uint64(3_600_000)
	req.YieldTimeMs = &forever
	e := srv.execute(t, req)
	first, err := sub.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.client.YieldObservation(ctx, &pb.YieldObservationRequest{SessionId: l.id, Observation: &pb.YieldObservationRequest_ExecutionId{ExecutionId: "e1"}}); err != nil {
		t.Fatal(err)
	}
	if o := e.outcome(t); o.GetYielded() == nil || strings.Join(texts(o), ",") != "a" {
		t.Fatalf("yielded execute: %v", o)
	}
	waited := make(chan *pb.WaitResponse, 1)
	go func() {
		resp, err := srv.client.Wait(ctx, &pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: "w1", YieldTimeMs: forever})
		if err != nil {
			t.Error(err)
		}
		waited <- resp
	}()
	srv.complete(t, l, first, `1`)
	if _, err := sub.Receive(); err != nil { // the second call: the cell printed "b"
		t.Fatal(err)
	}
	if _, err := srv.client.YieldObservation(ctx, &pb.YieldObservationRequest{SessionId: l.id, Observation: &pb.YieldObservationRequest_WaitId{WaitId: "w1"}}); err != nil {
		t.Fatal(err)
	}
	resp := <-waited
	if o := resp.GetLiveCell(); o.GetYielded() == nil || strings.Join(texts(o), ",") != "b" {
		t.Fatalf("yielded wait: %v", resp)
	}
}

func TestGetProcessMetricsIsUnsupported(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	_, err := srv.client.GetProcessMetrics(context.Background(), &pb.GetProcessMetricsRequest{})
	wantStatus(t, "GetProcessMetrics", err, connect.CodeUnimplemented, "process metrics are unsupported")
}

// A Wait that returns a finished cell's Result carries its buffered time in a header; one that
// returns a Yielded does not.
func TestWaitReportsTheResultsBufferedTime(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	e := srv.execute(t, request(l.id, "e1", `text("a"); yield_control(); text("b");`))
	if o := e.outcome(t); o.GetYielded() == nil {
		t.Fatalf("initial outcome %v", o)
	}
	wait := func(id string, yield uint64) (*pb.WaitResponse, string) {
		ctx, info := connect.NewClientContext(context.Background())
		resp, err := srv.client.Wait(ctx, &pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: id, YieldTimeMs: yield})
		if err != nil {
			t.Fatal(err)
		}
		return resp, info.ResponseHeader().Get(grpcconv.BufferedForHeader)
	}
	resp, header := wait("w1", 3_600_000)
	if resp.GetLiveCell().GetCompleted() == nil {
		t.Fatalf("wait %v, want the Result", resp)
	}
	if _, err := strconv.ParseUint(header, 10, 64); err != nil {
		t.Fatalf("%s = %q, want the nanoseconds the Result waited", grpcconv.BufferedForHeader, header)
	}
	e2 := srv.execute(t, request(l.id, "e2", `yield_control(); await new Promise(() => {});`))
	e2.outcome(t)
	e = e2
	if _, header := wait("w2", 0); header != "" {
		t.Errorf("a Yielded wait carries %s %q", grpcconv.BufferedForHeader, header)
	}
}

// Host-side truncation on a session opened with OUTPUT_TRUNCATION_SERVER: the Execute's budget
// (field 7) and the Terminate's (field 3), in Codex's format.
func TestServerTruncationOverGRPC(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l, err := srv.openWith(t, &pb.OpenSessionRequest{OutputTruncation: pb.OutputTruncation_OUTPUT_TRUNCATION_SERVER})
	if err != nil {
		t.Fatal(err)
	}
	req := request(l.id, "e1", `text("x".repeat(4000) + "END")`)
	ten := uint64(10)
	req.MaxOutputTokens = &ten
	want := "Warning: truncated output (original token count: 1001)\nTotal output lines: 1\n\n" + strings.Repeat("x", 20) + "…991 tokens truncated…" + strings.Repeat("x", 17) + "END"
	if got := texts(srv.execute(t, req).outcome(t)); len(got) != 1 || got[0] != want {
		t.Fatalf("execute outcome %q", got)
	}
	// The cell's tool call is the event that proves its text is written: terminating
	// any earlier could end the cell before its first statement.
	sub := srv.subscribe(t, l)
	pending := request(l.id, "e2", `text("q".repeat(800)); await tools.t({});`)
	pending.EnabledTools = []*pb.ToolDefinition{tool("t")}
	run := srv.execute(t, pending)
	if _, err := sub.Receive(); err != nil {
		t.Fatal(err)
	}
	three := uint64(3)
	resp, err := srv.client.Terminate(context.Background(), &pb.TerminateRequest{SessionId: l.id, CellId: run.cell, MaxOutputTokens: &three})
	if err != nil {
		t.Fatal(err)
	}
	want = "Warning: truncated output (original token count: 200)\nTotal output lines: 1\n\nqqqqqq…197 tokens truncated…qqqqqq"
	if got := texts(resp.GetLiveCell()); len(got) != 1 || got[0] != want {
		t.Fatalf("terminate outcome %q, want %q", got, want)
	}
}

// Codex 0.169's client offers zstd: the host accepts zstd-compressed requests, advertises zstd
// first, and refuses a compressed message that inflates past the message limit.
func TestZstdRequestsAreAccepted(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	zstdClient := rawClient(t, srv.url, connecthttp.WithGRPC(), connecthttp.WithCompressors(zstd.New()), connecthttp.WithSendCompression(zstd.Name))
	ctx, info := connect.NewClientContext(context.Background())
	stream, err := zstdClient.OpenSession(ctx, &pb.OpenSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := stream.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if got := info.ResponseHeader().Get("Grpc-Accept-Encoding"); !strings.HasPrefix(got, "zstd") {
		t.Errorf("grpc-accept-encoding %q, want zstd first", got)
	}
	id := opened.GetOpened().GetSessionId()
	e, err := zstdClient.Execute(context.Background(), request(id, "e1", `text("zstd "+"z".repeat(1000))`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err := e.Receive()
		if err != nil {
			break
		}
		if o := ev.GetOutcome(); o != nil {
			got = texts(o)
		}
	}
	if len(got) != 1 || got[0] != "zstd "+strings.Repeat("z", 1000) {
		t.Fatalf("outcome %.80q", got)
	}
	// 64 MiB of spaces compress to a few KiB; inflated, the message is past the host's limit.
	bomb, err := zstdClient.Execute(context.Background(), request(id, "e2", strings.Repeat(" ", grpcconv.MaxMessageBytes+1)))
	if err == nil {
		_, err = bomb.Receive()
	}
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("a request inflating past %d bytes: %v, want RESOURCE_EXHAUSTED", grpcconv.MaxMessageBytes, err)
	}
}
