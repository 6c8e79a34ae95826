package grpchost_test

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Codex's code-mode-host/src/grpc/robustness_tests.rs that need a client, over a real socket.

// TestRejectsOversizedIdentifiersAndSubscriptionFilters checks every validation of docs/protocol/grpc.md#identifiers-and-validation
// with its status code and text (docs/protocol/grpc.md#status-codes), and that none of them harms the session.
func TestRejectsOversizedIdentifiersAndSubscriptionFilters(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	ctx := context.Background()
	long := strings.Repeat("x", 257)
	unknown := uuid.NewString()
	invalid := connect.CodeInvalidArgument
	succeeded := &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: []byte("null")}}
	executeErr := func(req *pb.ExecuteRequest) error {
		stream, err := srv.client.Execute(ctx, req)
		if err != nil {
			return err
		}
		_, err = stream.Receive()
		return err
	}
	subscribeErr := func(req *pb.SubscribeToToolCallsRequest) error {
		stream, err := srv.client.SubscribeToToolCalls(ctx, req)
		if err != nil {
			return err
		}
		_, err = stream.Receive()
		return err
	}
	cases := []struct {
		label string
		err   error
		code  connect.Code
		text  string
	}{
		{"close: oversized session ID", second(srv.client.CloseSession(ctx, &pb.CloseSessionRequest{SessionId: long})), invalid, "code-mode session ID exceeds 256 bytes"},
		{"close: session ID not a UUID", second(srv.client.CloseSession(ctx, &pb.CloseSessionRequest{SessionId: "not-a-uuid"})), invalid, "code-mode session ID must be a UUID"},
		{"close: empty session ID", second(srv.client.CloseSession(ctx, &pb.CloseSessionRequest{})), invalid, "code-mode session ID must not be empty"},
		{"close: unknown session", second(srv.client.CloseSession(ctx, &pb.CloseSessionRequest{SessionId: unknown})), connect.CodeNotFound, "unknown code-mode session " + unknown},
		{"complete: invocation not a UUID", second(srv.client.CompleteToolCall(ctx, &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: "not-a-uuid", Outcome: succeeded})), invalid, "code-mode tool invocation ID must be a UUID"},
		{"complete: unknown invocation", second(srv.client.CompleteToolCall(ctx, &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: unknown, Outcome: succeeded})), connect.CodeNotFound, "unknown code-mode tool invocation " + unknown},
		{"complete: missing outcome", second(srv.client.CompleteToolCall(ctx, &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: unknown})), invalid, "tool completion is missing its outcome"},
		{"complete: invalid output", second(srv.client.CompleteToolCall(ctx, &pb.CompleteToolCallRequest{SessionId: l.id, InvocationId: unknown,
			Outcome: &pb.CompleteToolCallRequest_Succeeded{Succeeded: &pb.ToolCallSucceeded{OutputJson: []byte("{")}}})), invalid, "invalid code-mode tool output JSON: EOF while parsing an object at line 1 column 1"},
		{"ack: notification not a UUID", second(srv.client.AcknowledgeNotification(ctx, &pb.AcknowledgeNotificationRequest{SessionId: l.id, NotificationId: "not-a-uuid"})), invalid, "code-mode notification ID must be a UUID"},
		{"execute: oversized execution ID", executeErr(request(l.id, long, `text("hello")`)), invalid, "code-mode execution ID exceeds 256 bytes"},
		{"execute: empty execution ID", executeErr(request(l.id, "", `text("hello")`)), invalid, "code-mode execution ID must not be empty"},
		{"execute: oversized tool call ID", executeErr(&pb.ExecuteRequest{SessionId: l.id, ExecutionId: "e", ToolCallId: long}), invalid, "code-mode tool call ID exceeds 256 bytes"},
		{"execute: unknown session", executeErr(request(unknown, "e", "")), connect.CodeNotFound, "unknown code-mode session " + unknown},
		{"wait: empty cell ID", second(srv.client.Wait(ctx, &pb.WaitRequest{SessionId: l.id, WaitId: "w"})), invalid, "code-mode cell ID must not be empty"},
		{"wait: oversized wait ID", second(srv.client.Wait(ctx, &pb.WaitRequest{SessionId: l.id, CellId: "1", WaitId: long})), invalid, "code-mode wait ID exceeds 256 bytes"},
		{"cancel wait: empty wait ID", second(srv.client.CancelWait(ctx, &pb.CancelWaitRequest{SessionId: l.id})), invalid, "code-mode wait ID must not be empty"},
		{"terminate: oversized cell ID", second(srv.client.Terminate(ctx, &pb.TerminateRequest{SessionId: l.id, CellId: long})), invalid, "code-mode cell ID exceeds 256 bytes"},
		{"subscribe: oversized filter", subscribeErr(&pb.SubscribeToToolCallsRequest{SessionId: l.id, ToolNames: []*pb.ToolName{{Name: long}}}), invalid, "code-mode tool name exceeds 256 bytes"},
		{"subscribe: oversized namespace", subscribeErr(&pb.SubscribeToToolCallsRequest{SessionId: l.id, ToolNames: []*pb.ToolName{{Name: "echo", Namespace: &long}}}), invalid, "code-mode tool namespace exceeds 256 bytes"},
		{"subscribe: 65 filters", subscribeErr(&pb.SubscribeToToolCallsRequest{SessionId: l.id, ToolNames: repeatName(65)}), invalid, "code-mode tool subscription exceeds 64 filters"},
	}
	for _, c := range cases {
		wantStatus(t, c.label, c.err, c.code, c.text)
	}
	// The session is untouched: a cell still runs.
	e := srv.execute(t, request(l.id, "still-alive", `text("alive")`))
	if o := e.outcome(t); !reflect.DeepEqual(texts(o), []string{"alive"}) {
		t.Fatalf("after the refusals: %v", o)
	}
}

func second[T any](_ T, err error) error { return err }

func repeatName(n int) []*pb.ToolName {
	names := make([]*pb.ToolName, n)
	for i := range names {
		names[i] = &pb.ToolName{Name: "echo"}
	}
	return names
}

func TestDroppingAnUnreadBufferedExecutionOutcomeRetiresItsCell(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	e := srv.execute(t, request(l.id, "execution-abandoned", `await new Promise(() => {});`))
	e.cancel()
	closed := l.next(t).GetCellClosed()
	if closed.GetExecutionId() != "execution-abandoned" || closed.GetCellId() != "1" || closed.GetFinalToolCallSequence() != 0 {
		t.Fatalf("lease event %v, want the abandoned cell closed", closed)
	}
}

func TestClosingASessionReleasesBufferedCellPermits(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{Limits: grpchost.Limits{MaxActiveCells: 1}})
	first, other := srv.openSession(t, nil), srv.openSession(t, nil)
	srv.execute(t, request(first.id, "holds-the-cell", ""))
	stream, err := srv.client.Execute(context.Background(), request(other.id, "refused", ""))
	if err == nil {
		_, err = stream.Receive()
	}
	wantStatus(t, "a second active cell", err, connect.CodeResourceExhausted, "code-mode host has too many active cells")
	if _, err := srv.client.CloseSession(context.Background(), &pb.CloseSessionRequest{SessionId: first.id}); err != nil {
		t.Fatal(err)
	}
	srv.execute(t, request(other.id, "admitted", ""))
}

// Codex's dropping_a_lease_after_its_host_shuts_down_closes_the_session: the host goes away
// under an open lease; the session ends and its stream with it.
func TestDroppingALeaseAfterItsHostShutsDownClosesTheSession(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	if err := srv.host.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.stream.Receive(); !errors.Is(err, io.EOF) {
		t.Fatalf("the lease of a closed host ended with %v, want its clean end", err)
	}
	_, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: "1", WaitId: "w", YieldTimeMs: 1})
	wantStatus(t, "request to a session of a closed host", err, connect.CodeNotFound, "unknown code-mode session "+l.id)
	stream, err := srv.client.OpenSession(context.Background(), &pb.OpenSessionRequest{})
	if err == nil {
		_, err = stream.Receive()
	}
	wantStatus(t, "OpenSession on a closed host", err, connect.CodeUnavailable, "code-mode host is shutting down")
}

func TestSessionClosureCancelsPendingTermination(t *testing.T) {
	provider := &blockingProvider{terminating: make(chan struct{}, 1)}
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	e := srv.execute(t, request(l.id, "execution-termination", ""))
	terminated := make(chan error, 1)
	go func() {
		_, err := srv.client.Terminate(context.Background(), &pb.TerminateRequest{SessionId: l.id, CellId: e.cell})
		terminated <- err
	}()
	<-provider.terminating
	if _, err := srv.client.CloseSession(context.Background(), &pb.CloseSessionRequest{SessionId: l.id}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "pending termination", <-terminated, connect.CodeCanceled, "code-mode session is closed")
}

func TestUnmatchedToolSubscriptionFailsWithoutClosingItsSession(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	srv.subscribe(t, l, &pb.ToolName{Name: "other"})
	req := request(l.id, "execution-unmatched", `try { await tools.echo({}); } catch (e) { text(String(e)); }`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	if o := srv.execute(t, req).outcome(t); !reflect.DeepEqual(texts(o), []string{"no code-mode tool subscription matches the requested tool"}) {
		t.Fatalf("unmatched call: %v", o)
	}
	matching := srv.subscribe(t, l, &pb.ToolName{Name: "echo"})
	req = request(l.id, "execution-matched", `text(await tools.echo({}));`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, req)
	call, err := matching.Receive()
	if err != nil || call.GetSequence() != 1 {
		t.Fatalf("matched call %v, %v; want sequence 1", call, err)
	}
	srv.complete(t, l, call, `"matched"`)
	if o := e.outcome(t); !reflect.DeepEqual(texts(o), []string{"matched"}) {
		t.Fatalf("matched call: %v", o)
	}
}

func TestDroppingSubscriptionsOnlyRetiresSessionsWithUnreadCalls(t *testing.T) {
	provider := newCountingProvider(newJSProvider(t))
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	idleCtx, dropIdle := context.WithCancel(context.Background())
	idle, err := srv.client.SubscribeToToolCalls(idleCtx, &pb.SubscribeToToolCallsRequest{SessionId: l.id})
	if err != nil {
		t.Fatal(err)
	}
	dropIdle()
	_, _ = idle.Receive()
	// The session survives the idle subscription: a cell still runs.
	if o := srv.execute(t, request(l.id, "after-idle", `text("alive")`)).outcome(t); !reflect.DeepEqual(texts(o), []string{"alive"}) {
		t.Fatalf("after dropping an idle subscription: %v", o)
	}

	first := srv.subscribe(t, l)
	second := srv.subscribe(t, l)
	req := request(l.id, "execution-subscription-drop", `await tools.echo({attempt: 1});`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, req)
	if _, err := first.Receive(); err != nil {
		t.Fatalf("the first subscription takes the first call (round robin): %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Receive(); !errors.Is(err, io.EOF) {
		t.Fatalf("the other subscription ended with %v, want its clean end with the session", err)
	}
	if ev, err := e.stream.Receive(); err == nil {
		t.Fatalf("the execution outlived its session: %v", ev)
	}
	wantStatus(t, "the retired session", waitRetired(t, srv, l.id), connect.CodeNotFound, "unknown code-mode session "+l.id)
	waitClosures(t, provider, 0, map[string]int{"1": 1, "2": 1})
}

// waitRetired waits on a session being retired and returns the first answer that is not the one of
// a session still closing: the execution's stream and the subscriptions end while the session
// closes, and a Wait that arrives before its removal from the registry is told "code-mode session
// is closed" (canceled); the event waited for is the removal, not a time.
func waitRetired(t *testing.T, srv *server, id string) error {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		_, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: id, CellId: "1", WaitId: "w", YieldTimeMs: 1})
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeCanceled || ce.Message() != "code-mode session is closed" || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

// waitClosures waits until the index-th session's runtime reported exactly want (cell → count),
// and fails as soon as a cell is closed more than once.
func waitClosures(t *testing.T, p *countingProvider, index int, want map[string]int) {
	t.Helper()
	timeout := time.After(testTimeout)
	for {
		got, changed := p.closures(index)
		match := len(got) == len(want)
		for cell, n := range got {
			if n > 1 {
				t.Fatalf("cell %s was closed %d times", cell, n)
			}
			match = match && want[string(cell)] == n
		}
		if match {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("closures %v, want %v", got, want)
		}
	}
}
