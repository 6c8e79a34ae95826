package grpchost_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Fault cases: each leaves the host serving other sessions, and every cell closed exactly once.

// alive fails the test unless a fresh session of srv still runs a cell.
func alive(t *testing.T, srv *server) {
	t.Helper()
	l := srv.openSession(t, nil)
	if o := srv.execute(t, request(l.id, "alive-"+uuid.NewString(), `text("alive")`)).outcome(t); !reflect.DeepEqual(texts(o), []string{"alive"}) {
		t.Fatalf("another session after the fault: %v", o)
	}
}

func TestLeaseDroppedMidToolCallClosesItsSessionAndCells(t *testing.T) {
	provider := newCountingProvider(newJSProvider(t))
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	sub := srv.subscribe(t, l)
	req := request(l.id, "mid-call", `await tools.echo({}); text("never");`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, req)
	if _, err := sub.Receive(); err != nil {
		t.Fatal(err)
	}
	l.cancel()
	if ev, err := e.stream.Receive(); err == nil {
		t.Fatalf("the execution outlived its lease: %v", ev)
	}
	waitClosures(t, provider, 0, map[string]int{"1": 1})
	alive(t, srv)
}

func TestCompleteToolCallForUnknownOrCancelledInvocations(t *testing.T) {
	provider := newCountingProvider(newJSProvider(t))
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	sub := srv.subscribe(t, l)
	req := request(l.id, "cancelled-call", `await tools.echo({});`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, req)
	call, err := sub.Receive()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.client.Terminate(context.Background(), &pb.TerminateRequest{SessionId: l.id, CellId: e.cell})
	if err != nil || resp.GetLiveCell().GetTerminated() == nil {
		t.Fatalf("terminate: %v, %v", resp, err)
	}
	if cancelled := l.next(t).GetToolCallCancelled(); cancelled.GetInvocationId() != call.GetInvocationId() {
		t.Fatalf("lease event %v, want the call's cancellation", cancelled)
	}
	srv.complete(t, l, call, `"too late"`) // seen but cancelled: accepted and ignored
	unknown := uuid.NewString()
	_, err = srv.client.CompleteToolCall(context.Background(), &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: unknown,
		Outcome: &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{Message: "x"}}})
	wantStatus(t, "unknown invocation", err, connect.CodeNotFound, "unknown code-mode tool invocation "+unknown)
	waitClosures(t, provider, 0, map[string]int{"1": 1})
	if o := srv.execute(t, request(l.id, "after", `text("alive")`)).outcome(t); !reflect.DeepEqual(texts(o), []string{"alive"}) {
		t.Fatalf("the session after the completions: %v", o)
	}
}

func TestMessagesOverTheLimitAreRefusedWithoutHarmingTheHost(t *testing.T) {
	provider := newCountingProvider(newJSProvider(t))
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	sub := srv.subscribe(t, l)
	req := request(l.id, "big-result", `text(String((await tools.echo({})).length));`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, req)
	call, err := sub.Receive()
	if err != nil {
		t.Fatal(err)
	}
	huge := `"` + strings.Repeat("x", 65<<20) + `"`
	_, err = srv.client.CompleteToolCall(context.Background(), &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: call.GetInvocationId(),
		Outcome: &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: []byte(huge)}}})
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("a 65 MiB completion: %v, want resource_exhausted", err)
	}
	big := request(l.id, "big-source", strings.Repeat(" ", 65<<20)+`text("never")`)
	stream, err := srv.client.Execute(context.Background(), big)
	if err == nil {
		_, err = stream.Receive()
	}
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("a 65 MiB execute: %v, want resource_exhausted", err)
	}
	srv.complete(t, l, call, `"small"`) // the call is still pending and completes normally
	if o := e.outcome(t); !reflect.DeepEqual(texts(o), []string{"5"}) {
		t.Fatalf("outcome %v", o)
	}
	waitClosures(t, provider, 0, map[string]int{"1": 1})
	alive(t, srv)
}

// 256 requests in flight (128 executes holding every active-cell permit, 128 waits): the 129th
// cell and the 257th request are refused at once with Codex's texts, control requests still get
// through, and once the requests end everything works again.
func TestRequestAndCellLimitsRefuseAtOnce(t *testing.T) {
	provider := &blockingProvider{waiting: make(chan struct{}, grpchost.DefaultMaxInFlightRequests)}
	// One session may take every slot here: the host's own limit is under test.
	srv := startServer(t, provider, grpchost.Options{Limits: grpchost.Limits{MaxActiveCellsPerSession: grpchost.DefaultMaxActiveCells}})
	l := srv.openSession(t, nil)
	for i := range grpchost.DefaultMaxActiveCells {
		srv.execute(t, request(l.id, fmt.Sprint("held-", i), ""))
	}
	stream, err := srv.client.Execute(context.Background(), request(l.id, "cell-129", ""))
	if err == nil {
		_, err = stream.Receive()
	}
	wantStatus(t, "the 129th cell", err, connect.CodeResourceExhausted, "code-mode host has too many active cells")
	waitCtx, cancelWaits := context.WithCancel(context.Background())
	defer cancelWaits()
	waits := make(chan error, grpchost.DefaultMaxInFlightRequests)
	for i := range grpchost.DefaultMaxInFlightRequests - grpchost.DefaultMaxActiveCells {
		go func() {
			_, err := srv.client.Wait(waitCtx, &pb.WaitRequest{SessionId: l.id, CellId: "1", WaitId: fmt.Sprint("wait-", i), YieldTimeMs: 1})
			waits <- err
		}()
		<-provider.waiting
	}
	_, err = srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: "1", WaitId: "request-257", YieldTimeMs: 1})
	wantStatus(t, "the 257th request", err, connect.CodeResourceExhausted, "code-mode host has too many in-flight requests")
	_, err = srv.client.CompleteToolCall(context.Background(), &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: uuid.NewString(),
		Outcome: &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{}}})
	if connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("a control request on a saturated host: %v, want it answered (not_found)", err)
	}
	cancelWaits()
	for range grpchost.DefaultMaxInFlightRequests - grpchost.DefaultMaxActiveCells {
		<-waits
	}
	if _, err := srv.client.CloseSession(context.Background(), &pb.CloseSessionRequest{SessionId: l.id}); err != nil {
		t.Fatal(err)
	}
	closed := map[string]int{}
	for {
		e, err := l.stream.Receive()
		if err != nil {
			break
		}
		closed[e.GetCellClosed().GetCellId()]++
	}
	if len(closed) != grpchost.DefaultMaxActiveCells {
		t.Fatalf("%d cells reported closed, want %d", len(closed), grpchost.DefaultMaxActiveCells)
	}
	for cell, n := range closed {
		if n != 1 {
			t.Fatalf("cell %s closed %d times", cell, n)
		}
	}
	other := srv.openSession(t, nil)
	srv.execute(t, request(other.id, "after-the-storm", ""))
}

// 1,024 tool calls hold every pending-callback permit of the host; the 1,025th fails in its cell
// with Codex's text and the session goes on.
func TestPendingDelegateCallLimitRefusesThe1025thToolCall(t *testing.T) {
	provider := newCountingProvider(newJSProvider(t))
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	sub := srv.subscribe(t, l)
	storm := request(l.id, "storm", `const rs = await Promise.all(Array.from({length: 1024}, (_, i) => tools.echo(i))); text(String(rs.length));`)
	storm.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, storm)
	var calls []*pb.ToolCall
	for range grpchost.DefaultMaxPendingDelegateCalls {
		call, err := sub.Receive()
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	extra := request(l.id, "extra", `try { await tools.echo(0); } catch (e) { text(String(e)); }`)
	extra.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	if o := srv.execute(t, extra).outcome(t); !reflect.DeepEqual(texts(o), []string{"code-mode host has too many pending delegate calls"}) {
		t.Fatalf("the 1,025th call: %v", o)
	}
	for _, call := range calls {
		srv.complete(t, l, call, "0")
	}
	if o := e.outcome(t); !reflect.DeepEqual(texts(o), []string{"1024"}) {
		t.Fatalf("the storm: %v", o)
	}
	waitClosures(t, provider, 0, map[string]int{"1": 1, "2": 1})
	alive(t, srv)
}

// A client that never reads its lease holds up its own notifications, and only them: the host
// serves other sessions, and dropping the lease cleans everything up.
func TestClientThatNeverReadsItsStreamsHoldsUpOnlyItsOwnSession(t *testing.T) {
	provider := newCountingProvider(newJSProvider(t))
	srv := startServer(t, provider, grpchost.Options{})
	stuck := srv.openSession(t, nil)
	// Far more notification bytes than the lease's flow-control window and event queue hold.
	e := srv.execute(t, request(stuck.id, "flood", `for (let i = 0; i < 4096; i++) notify("n".repeat(4096) + i); text("done");`))
	alive(t, srv)
	stuck.cancel()
	// The cell never got to complete: its notifications waited for a reader until the lease
	// went, and its outcome stream ends with the session.
	if ev, err := e.stream.Receive(); err == nil {
		t.Fatalf("the flooding cell answered %v although nobody read its notifications", ev)
	}
	waitClosures(t, provider, 0, map[string]int{"1": 1})
	alive(t, srv)
}

// TestASessionTakesOnlyItsShareOfCells: a session whose cells never end holds at most its share
// of the host's cell slots (MaxActiveCellsPerSession); past it its Executes are refused with
// RESOURCE_EXHAUSTED "code-mode session has too many active cells", while another session still
// runs cells. Before, one session could take all 128 slots and refuse everyone else.
func TestASessionTakesOnlyItsShareOfCells(t *testing.T) {
	provider := &blockingProvider{waiting: make(chan struct{}, grpchost.DefaultMaxInFlightRequests)}
	srv := startServer(t, provider, grpchost.Options{Limits: grpchost.Limits{MaxActiveCellsPerSession: 4}})
	greedy := srv.openSession(t, nil)
	for i := range 4 {
		srv.execute(t, request(greedy.id, fmt.Sprint("held-", i), ""))
	}
	stream, err := srv.client.Execute(context.Background(), request(greedy.id, "one-too-many", ""))
	if err == nil {
		_, err = stream.Receive()
	}
	wantStatus(t, "the session's fifth cell", err, connect.CodeResourceExhausted, "code-mode session has too many active cells")
	other := srv.openSession(t, nil)
	srv.execute(t, request(other.id, "other-1", ""))
}
