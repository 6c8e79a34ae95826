package grpchost_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"connectrpc.com/connect/v2"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Codex's code-mode-host/src/grpc/service_tests.rs, over a real socket with a raw client.

func TestExecuteStreamStartsImmediatelyAndWaitPreservesMissingCells(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	e := srv.execute(t, request(l.id, "execution-1", `text("before"); yield_control(); text("after");`))
	yielded := e.outcome(t)
	if yielded.GetYielded() == nil || yielded.GetCellId() != e.cell || !reflect.DeepEqual(texts(yielded), []string{"before"}) {
		t.Fatalf("initial outcome %v, want Yielded [before]", yielded)
	}
	if yielded.GetCodeModeHostDurationNs() == 0 {
		t.Fatal("the host did not time the execution (code_mode_host_duration_ns)")
	}
	completed, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: "wait-1", YieldTimeMs: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	live := completed.GetLiveCell()
	if live.GetCompleted() == nil || live.GetCompleted().ErrorText != nil || !reflect.DeepEqual(texts(live), []string{"after"}) {
		t.Fatalf("wait %v, want a completed live cell [after]", completed)
	}
	if live.GetCodeModeHostDurationNs() == 0 {
		t.Fatal("the host did not time the wait (code_mode_host_duration_ns)")
	}
	if closed := l.next(t).GetCellClosed(); closed.GetExecutionId() != "execution-1" || closed.GetCellId() != e.cell || closed.GetFinalToolCallSequence() != 0 {
		t.Fatalf("lease event %v, want CellClosed of execution-1 with sequence 0", closed)
	}
	missing, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: "missing-cell", WaitId: "wait-missing", YieldTimeMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m := missing.GetMissingCell(); m.GetCellId() != "missing-cell" || m.GetCompleted().GetErrorText() != "exec cell missing-cell not found" {
		t.Fatalf("wait on a missing cell %v, want missing_cell", missing)
	}
}

// Missing, empty and explicit default namespaces identify the same subscribed tool.
func TestFilteredSubscriptionsMatchDefaultNamespaceAliases(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	empty, functions := "", "functions"
	aliases := []struct{ tool, filter *string }{{nil, &functions}, {&empty, nil}, {&functions, &empty}}
	for i, alias := range aliases {
		l := srv.openSession(t, nil)
		sub := srv.subscribe(t, l, &pb.ToolName{Name: "echo", Namespace: alias.filter})
		req := request(l.id, "default-namespace", `text(await tools.echo({}));`)
		def := tool("echo")
		def.ToolName.Namespace = alias.tool
		req.EnabledTools = []*pb.ToolDefinition{def}
		e := srv.execute(t, req)
		call, err := sub.Receive()
		if err != nil {
			t.Fatalf("alias %d: %v", i, err)
		}
		if call.GetToolName().GetName() != "echo" || !reflect.DeepEqual(call.GetToolName().Namespace, alias.tool) {
			t.Fatalf("alias %d: tool name %v, want the definition's", i, call.GetToolName())
		}
		srv.complete(t, l, call, `"done"`)
		if o := e.outcome(t); o.GetCompleted() == nil || !reflect.DeepEqual(texts(o), []string{"done"}) {
			t.Fatalf("alias %d: outcome %v", i, o)
		}
	}
}

func TestFilteredSubscriptionsReceiveOrderedCallsAndUnaryCompletions(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	matching := srv.subscribe(t, l, &pb.ToolName{Name: "echo"})
	unrelated := srv.subscribe(t, l, &pb.ToolName{Name: "other"})
	other := make(chan *pb.ToolCall, 1)
	go func() {
		if call, err := unrelated.Receive(); err == nil {
			other <- call
		}
	}()
	req := request(l.id, "execution-tools", `text(await tools.echo({value: 1})); text(await tools.echo({value: 2}));`)
	req.EnabledTools = []*pb.ToolDefinition{tool("echo")}
	e := srv.execute(t, req)
	for sequence := uint64(1); sequence <= 2; sequence++ {
		call, err := matching.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if call.GetSessionId() != l.id || call.GetExecutionId() != "execution-tools" || call.GetCellId() != e.cell ||
			call.GetSequence() != sequence || string(call.GetInputJson()) != fmt.Sprintf(`{"value":%d}`, sequence) {
			t.Fatalf("call %d: %v", sequence, call)
		}
		srv.complete(t, l, call, fmt.Sprintf(`"result-%d"`, sequence))
	}
	if o := e.outcome(t); o.GetCompleted() == nil || !reflect.DeepEqual(texts(o), []string{"result-1", "result-2"}) {
		t.Fatalf("outcome %v", o)
	}
	if closed := l.next(t).GetCellClosed(); closed.GetExecutionId() != "execution-tools" || closed.GetFinalToolCallSequence() != 2 {
		t.Fatalf("lease event %v, want CellClosed with final sequence 2", closed)
	}
	select {
	case call := <-other:
		t.Fatalf("the unrelated subscription received %v", call)
	default:
	}
}

func TestCancellationBeforeWaitAdmissionIsPreserved(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	req := request(l.id, "execution-wait", `await new Promise(() => {});`)
	one := uint64(1)
	req.YieldTimeMs = &one
	e := srv.execute(t, req)
	e.outcome(t)
	if _, err := srv.client.CancelWait(context.Background(), &pb.CancelWaitRequest{SessionId: l.id, WaitId: "pre-cancelled"}); err != nil {
		t.Fatal(err)
	}
	_, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: "pre-cancelled", YieldTimeMs: 60_000})
	wantStatus(t, "pre-cancelled wait", err, connect.CodeCanceled, "code-mode wait was cancelled")
	_, err = srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: e.cell, WaitId: "pre-cancelled", YieldTimeMs: 1})
	wantStatus(t, "reused wait ID", err, connect.CodeAlreadyExists, "code-mode wait ID `pre-cancelled` was reused")
	if _, err := srv.client.Terminate(context.Background(), &pb.TerminateRequest{SessionId: l.id, CellId: e.cell}); err != nil {
		t.Fatal(err)
	}
}

func TestNotificationsDoNotDelayCellCompletion(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{})
	l := srv.openSession(t, nil)
	e := srv.execute(t, request(l.id, "execution-notify", `notify("pending"); text("done");`))
	n := l.next(t).GetNotification()
	if n.GetExecutionId() != "execution-notify" || n.GetCellId() != e.cell || n.GetCallId() != "outer-call" || n.GetText() != "pending" {
		t.Fatalf("notification %v", n)
	}
	if o := e.outcome(t); o.GetCompleted() == nil {
		t.Fatalf("outcome %v, want completed without an acknowledgement", o)
	}
	if closed := l.next(t).GetCellClosed(); closed.GetExecutionId() != "execution-notify" {
		t.Fatalf("lease event %v", closed)
	}
	if _, err := srv.client.AcknowledgeNotification(context.Background(), &pb.AcknowledgeNotificationRequest{SessionId: l.id, NotificationId: n.GetNotificationId()}); err != nil {
		t.Fatalf("a late acknowledgement must be accepted: %v", err)
	}
}

// CancelWait returns only once the cancelled Wait has left the runtime, so the client's next Wait
// of the cell cannot meet the old observer.
func TestCancelWaitReturnsAfterTheWaitRetired(t *testing.T) {
	provider := &blockingProvider{waiting: make(chan struct{}, 1), waited: make(chan struct{}, 1)}
	srv := startServer(t, provider, grpchost.Options{})
	l := srv.openSession(t, nil)
	waited := make(chan error, 1)
	go func() {
		_, err := srv.client.Wait(context.Background(), &pb.WaitRequest{SessionId: l.id, CellId: "1", WaitId: "active", YieldTimeMs: 60_000})
		waited <- err
	}()
	<-provider.waiting
	if _, err := srv.client.CancelWait(context.Background(), &pb.CancelWaitRequest{SessionId: l.id, WaitId: "active"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-provider.waited:
	default:
		t.Fatal("CancelWait returned before the cancelled Wait left the runtime")
	}
	wantStatus(t, "the cancelled wait", <-waited, connect.CodeCanceled, "code-mode wait was cancelled")
}
