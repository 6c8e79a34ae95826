package grpcclient

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/codemode"
)

// Codex's code-mode/src/grpc_session/state_tests.rs, on the client's admission state.

func stateRequest(execution string) *pb.ExecuteRequest {
	return &pb.ExecuteRequest{SessionId: "session", ExecutionId: execution, ToolCallId: "call",
		EnabledTools: []*pb.ToolDefinition{{Name: "tool", ToolName: &pb.ToolName{Name: "tool"}, Kind: pb.ToolKind_TOOL_KIND_FUNCTION}}}
}

func invocationID(n uint64) string {
	var id uuid.UUID
	for i := range 8 {
		id[15-i] = byte(n >> (8 * i))
	}
	return id.String()
}

func stateToolCall(execution string, n uint64) *pb.ToolCall {
	id := invocationID(n)
	return &pb.ToolCall{SessionId: "session", ExecutionId: execution, CellId: "cell", InvocationId: id, RuntimeToolCallId: "runtime-" + id,
		ToolName: &pb.ToolName{Name: "tool"}, ToolKind: pb.ToolKind_TOOL_KIND_FUNCTION, Sequence: 1}
}

func stateNotification(execution string, n uint64) *pb.Notification {
	return &pb.Notification{NotificationId: invocationID(n), ExecutionId: execution, CellId: "cell", CallId: "call", Text: "hello"}
}

func closure(execution string, sequence uint64) *pb.CellClosed {
	return &pb.CellClosed{ExecutionId: execution, CellId: "cell", FinalToolCallSequence: sequence}
}

func newTestState(t *testing.T) *state {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return newState(ctx)
}

func must[T any](t *testing.T, label string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return v
	}
}

func mustOK(t *testing.T, label string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
}

func wantAdmission(t *testing.T, label string, cb callback, err error, want admission) callback {
	t.Helper()
	if err != nil || cb.admission != want {
		t.Fatalf("%s: admission %d, error %v; want admission %d", label, cb.admission, err, want)
	}
	return cb
}

func wantErr(t *testing.T, label string, err error, text string) {
	t.Helper()
	if err == nil || err.Error() != text {
		t.Fatalf("%s: error %v, want exactly %q", label, err, text)
	}
}

func cancelled(ctx context.Context) bool { return ctx.Err() != nil }

func TestCellClosureDrainsNotificationsAndCancelsToolCallbacks(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	first := wantAdmission(t, "early invocation", must[callback](t, "")(st.admitInvocation(stateToolCall("execution", 1))), nil, admitted)
	note := wantAdmission(t, "notification", must[callback](t, "")(st.admitNotification(stateNotification("execution", 1))), nil, admitted)
	if cell := must[codemode.CellID](t, "closure")(st.closeCell(closure("execution", 3))); cell != "" {
		t.Fatalf("closure before admission completed the cell %q", cell)
	}
	if !cancelled(first.ctx) || cancelled(note.ctx) {
		t.Fatal("the closure must cancel tool callbacks and let notifications drain")
	}
	mustOK(t, "admit", st.admitExecution("execution", "cell"))
	cb, err := st.admitInvocation(stateToolCall("execution", 2))
	wantAdmission(t, "invocation for a closed cell", cb, err, closedCell)
	if cell := must[codemode.CellID](t, "claim")(st.markReady("execution")); cell != "" {
		t.Fatalf("claim with a notification pending completed the cell %q", cell)
	}
	if cell := st.finishNotification("execution"); cell != "cell" {
		t.Fatalf("the last notification must complete the closure, got %q", cell)
	}
	if !cancelled(note.ctx) {
		t.Fatal("notifications are settled once the closure completed")
	}
}

func TestCellClosureWaitsUntilTheStartedCellIsClaimed(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	if cell := must[codemode.CellID](t, "closure")(st.closeCell(closure("execution", 0))); cell != "" {
		t.Fatalf("early closure completed %q", cell)
	}
	mustOK(t, "admit", st.admitExecution("execution", "cell"))
	if cell := must[codemode.CellID](t, "claim")(st.markReady("execution")); cell != "cell" {
		t.Fatalf("the claim must complete the closure, got %q", cell)
	}
}

func TestOversizedCellIdsAreRejectedBeforeAdmission(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	wantErr(t, "oversized cell", st.admitExecution("execution", strings.Repeat("x", 257)), "gRPC code-mode host returned cell ID exceeding 256 bytes")
	if cell := st.removeExecution("execution"); cell != "" {
		t.Fatalf("the refused cell was retained: %q", cell)
	}
}

func TestCallbacksCannotClaimAnotherExecutionsCell(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin first", st.beginExecution(stateRequest("first")))
	mustOK(t, "begin second", st.beginExecution(stateRequest("second")))
	if _, err := st.admitInvocation(stateToolCall("first", 1)); err != nil {
		t.Fatal(err)
	}
	const want = "code-mode host reused active cell ID cell"
	_, err := st.admitInvocation(stateToolCall("second", 2))
	wantErr(t, "invocation", err, want)
	_, err = st.admitNotification(stateNotification("second", 1))
	wantErr(t, "notification", err, want)
	_, err = st.closeCell(closure("second", 0))
	wantErr(t, "closure", err, want)
	wantErr(t, "admission", st.admitExecution("second", "cell"), want)
}

func TestAbandonmentBeforeStartIgnoresLaterCellClosure(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	if cell := st.removeExecution("execution"); cell != "" {
		t.Fatalf("an execution without a cell reported %q", cell)
	}
	if cell := must[codemode.CellID](t, "late closure")(st.closeCell(closure("execution", 0))); cell != "" {
		t.Fatalf("late closure reported %q", cell)
	}
	if cells := st.apply(leaseClosed, nil); len(cells) != 0 {
		t.Fatalf("close reported %v", cells)
	}
}

func TestAbandonmentRevokesCallbacksAndIgnoresLateEvents(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	cb := wantAdmission(t, "early invocation", must[callback](t, "")(st.admitInvocation(stateToolCall("execution", 1))), nil, admitted)
	if cell := st.removeExecution("execution"); cell != "cell" {
		t.Fatalf("abandonment must report the cell the callback named, got %q", cell)
	}
	if !cancelled(cb.ctx) {
		t.Fatal("abandonment must cancel the execution's callbacks")
	}
	late, err := st.admitInvocation(stateToolCall("execution", 2))
	wantAdmission(t, "delayed invocation", late, err, closedCell)
	if cell := must[codemode.CellID](t, "late closure")(st.closeCell(closure("execution", 1))); cell != "" {
		t.Fatalf("late closure reported %q", cell)
	}
	if cells := st.apply(leaseClosed, nil); len(cells) != 0 {
		t.Fatalf("close reported %v", cells)
	}
}

func TestInvocationCancellationRevokesDelegateAndLateCompletion(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	mustOK(t, "admit", st.admitExecution("execution", "cell"))
	must[codemode.CellID](t, "claim")(st.markReady("execution"))
	call := stateToolCall("execution", 1)
	cb := wantAdmission(t, "invocation", must[callback](t, "")(st.admitInvocation(call)), nil, admitted)
	mustOK(t, "cancel", st.cancelInvocation(call.InvocationId))
	if !cancelled(cb.ctx) {
		t.Fatal("ToolCallCancelled must cancel the delegate")
	}
	st.finishInvocation(call.InvocationId)
	if cell := must[codemode.CellID](t, "closure")(st.closeCell(closure("execution", 1))); cell != "cell" {
		t.Fatalf("closure reported %q", cell)
	}
}

func TestDuplicateInvocationIdsAreRejected(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	mustOK(t, "admit", st.admitExecution("execution", "cell"))
	call := stateToolCall("execution", 1)
	wantAdmission(t, "first", must[callback](t, "")(st.admitInvocation(call)), nil, admitted)
	st.finishInvocation(call.InvocationId)
	_, err := st.admitInvocation(call)
	wantErr(t, "reuse", err, "code-mode tool invocation ID was reused")
}

func TestToolCallbacksMustMatchTheExecutionsEnabledTools(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	disabled := stateToolCall("execution", 1)
	disabled.ToolName = &pb.ToolName{Name: "hidden"}
	cb, err := st.admitInvocation(disabled)
	if wantAdmission(t, "disabled", cb, err, rejected); cb.reason != "code-mode tool hidden is not enabled for this execution" {
		t.Fatalf("reason %q", cb.reason)
	}
	ns := "private"
	wrongNamespace := stateToolCall("execution", 2)
	wrongNamespace.ToolName = &pb.ToolName{Name: "tool", Namespace: &ns}
	cb, err = st.admitInvocation(wrongNamespace)
	if wantAdmission(t, "wrong namespace", cb, err, rejected); cb.reason != "code-mode tool privatetool is not enabled for this execution" {
		t.Fatalf("reason %q", cb.reason)
	}
	wrongKind := stateToolCall("execution", 3)
	wrongKind.ToolKind = pb.ToolKind_TOOL_KIND_FREEFORM
	cb, err = st.admitInvocation(wrongKind)
	wantAdmission(t, "wrong kind", cb, err, rejected)
	functions := "functions"
	explicitDefault := stateToolCall("execution", 4)
	explicitDefault.ToolName = &pb.ToolName{Name: "tool", Namespace: &functions}
	cb, err = st.admitInvocation(explicitDefault)
	wantAdmission(t, "explicit default namespace", cb, err, admitted)
	mustOK(t, "still open", st.requireOpen())
}

func TestExecutionCallIdsMustBeBounded(t *testing.T) {
	st := newTestState(t)
	oversized := stateRequest("execution")
	oversized.ToolCallId = strings.Repeat("x", 257)
	wantErr(t, "begin", st.beginExecution(oversized), "gRPC code-mode host returned tool call ID exceeding 256 bytes")
	if cell := st.removeExecution("execution"); cell != "" {
		t.Fatalf("retained %q", cell)
	}
}

func TestNotificationCallIdsMustMatchTheirExecution(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	oversized := stateNotification("execution", 1)
	oversized.CallId = strings.Repeat("x", 257)
	_, err := st.admitNotification(oversized)
	wantErr(t, "oversized", err, "gRPC code-mode host returned notification call ID exceeding 256 bytes")
	mismatched := stateNotification("execution", 2)
	mismatched.CallId = "other-call"
	_, err = st.admitNotification(mismatched)
	wantErr(t, "mismatch", err, "code-mode notification call ID does not match its execution")
	cb, err := st.admitNotification(stateNotification("execution", 3))
	wantAdmission(t, "matching", cb, err, admitted)
}

func TestMalformedCallbackIdsAreRejectedBeforeRetention(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	invalid := stateToolCall("execution", 1)
	invalid.InvocationId = "not-a-uuid"
	_, err := st.admitInvocation(invalid)
	wantErr(t, "invocation", err, "code-mode tool invocation ID must be a UUID")
	wantErr(t, "cancellation", st.cancelInvocation("not-a-uuid"), "code-mode tool invocation ID must be a UUID")
	wantErr(t, "oversized cancellation", st.cancelInvocation(strings.Repeat("x", 257)), "code-mode tool invocation ID must be a UUID")
	bad := stateNotification("execution", 1)
	bad.NotificationId = "not-a-uuid"
	_, err = st.admitNotification(bad)
	wantErr(t, "notification", err, "code-mode notification ID must be a UUID")
	call := stateToolCall("execution", 2)
	mustOK(t, "pre-cancel", st.cancelInvocation(call.InvocationId))
	cb, err := st.admitInvocation(call)
	wantAdmission(t, "pre-cancelled", cb, err, preCancelled)
}

func TestNotificationsAndToolsShareThePendingDelegateLimit(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	for i := range uint64(maxPendingCallbacks) {
		cb, err := st.admitNotification(stateNotification("execution", i+1))
		wantAdmission(t, fmt.Sprintf("notification %d", i+1), cb, err, admitted)
	}
	cb, err := st.admitNotification(stateNotification("execution", 2_000))
	if wantAdmission(t, "notification past the limit", cb, err, rejected); cb.reason != "code-mode host exceeded its pending delegate callback limit" {
		t.Fatalf("reason %q", cb.reason)
	}
	cb, err = st.admitInvocation(stateToolCall("execution", 1))
	if wantAdmission(t, "invocation past the limit", cb, err, rejected); cb.reason != "code-mode host exceeded its pending delegate callback limit" {
		t.Fatalf("reason %q", cb.reason)
	}
	mustOK(t, "still open", st.requireOpen())
	if cell := st.finishNotification("execution"); cell != "" {
		t.Fatalf("finishing a notification completed %q", cell)
	}
	cb, err = st.admitInvocation(stateToolCall("execution", 2))
	wantAdmission(t, "invocation below the limit", cb, err, admitted)
}

func TestTerminatedCellsCancelPendingNotifications(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	cb := wantAdmission(t, "notification", must[callback](t, "")(st.admitNotification(stateNotification("execution", 1))), nil, admitted)
	if settled := st.settle(codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: "cell"}, false); settled != nil {
		t.Fatal("a Terminated waits for nothing")
	}
	if !cancelled(cb.ctx) {
		t.Fatal("a termination must cancel the cell's notifications")
	}
	if cell := st.finishNotification("execution"); cell != "" {
		t.Fatalf("finishing completed %q", cell)
	}
}

func TestDisconnectRevokesCallbacksAndReturnsEachLiveCellOnce(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	mustOK(t, "admit", st.admitExecution("execution", "cell"))
	invocation := wantAdmission(t, "invocation", must[callback](t, "")(st.admitInvocation(stateToolCall("execution", 1))), nil, admitted)
	note := wantAdmission(t, "notification", must[callback](t, "")(st.admitNotification(stateNotification("execution", 1))), nil, admitted)
	if cells := st.apply(leaseFailed, errLeaseClosed); len(cells) != 1 || cells[0] != "cell" {
		t.Fatalf("close returned %v, want [cell]", cells)
	}
	if !cancelled(invocation.ctx) || !cancelled(note.ctx) {
		t.Fatal("a disconnect must cancel every callback")
	}
	if cells := st.apply(leaseClosed, nil); len(cells) != 0 {
		t.Fatalf("a second close returned %v", cells)
	}
	wantErr(t, "closed state", st.requireOpen(), "lease closed")
}

var errLeaseClosed = fmt.Errorf("lease closed")

// A Result waits for its cell's notifications, unless the host waited for their
// acknowledgements before sending it; a cell without an execution has nothing to wait for.
func TestResultsWaitForNotificationsUnlessTheHostAcknowledged(t *testing.T) {
	st := newTestState(t)
	mustOK(t, "begin", st.beginExecution(stateRequest("execution")))
	mustOK(t, "admit", st.admitExecution("execution", "cell"))
	result := codemode.RuntimeResponse{Kind: codemode.Result, CellID: "cell"}
	if st.settle(result, true) != nil {
		t.Fatal("an acknowledged Result waits for its notifications")
	}
	settled := st.settle(result, false)
	if settled == nil {
		t.Fatal("a Result does not wait for its notifications")
	}
	if st.settle(codemode.RuntimeResponse{Kind: codemode.Result, CellID: "other"}, false) != nil {
		t.Fatal("a Result of an unknown cell waits")
	}
	if _, err := st.closeCell(closure("execution", 0)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-settled:
	default:
		t.Fatal("the closure of a cell without notifications did not settle them")
	}
}
