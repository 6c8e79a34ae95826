package v1client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
)

// More of Codex's driver_tests.rs (docs/protocol/README.md#codex-test-suites) under Codex's names, against the scripted host of
// driver_test.go: how the client closes cells and sessions while delegate calls, waits and
// opens are still in flight.

// invokeFrame is the host's tool/invoke of tool "t" for cell as delegate request id.
func invokeFrame(id int, cell string) string {
	return fmt.Sprintf(`{"type":"delegate/request","id":%d,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":%q,"runtime_tool_call_id":"tool-1","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`, id, cell)
}

// heldTool is a delegate call whose cleanup outlasts its cell: it waits for its cancellation,
// then for release, and only then returns.
func heldTool(release <-chan struct{}) codemodetest.ToolFunc {
	return func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		<-ctx.Done()
		<-release
		return nil, errors.New("cancelled")
	}
}

// startHeldCall starts cell "1" (request 2) and a held call of it (delegate request 7).
func startHeldCall(t *testing.T, p *Provider, h *scriptedHost, release <-chan struct{}) (*codemodetest.Recorder, codemode.Session, *codemodetest.ToolCall) {
	t.Helper()
	rec := codemodetest.NewRecorder()
	rec.Handle("t", heldTool(release))
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	h.send(invokeFrame(7, "1"))
	call, err := rec.AwaitToolCall(bgTimeout(t), "t", 1)
	if err != nil {
		t.Fatal(err)
	}
	return rec, s, call
}

// requireRunning fails t if call has returned.
func requireRunning(t *testing.T, call *codemodetest.ToolCall) {
	t.Helper()
	select {
	case <-call.Returned():
		t.Fatal("the delegate call returned before it was released")
	default:
	}
}

func TestDroppedOpenWaiterShutsDownCommittedSession(t *testing.T) {
	p, h := newScripted(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan error, 1)
	go func() {
		_, err := p.CreateSession(ctx, codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
		opened <- err
	}()
	h.expect(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"session-1"}}`)
	cancel()
	if err := <-opened; err != context.Canceled {
		t.Fatalf("CreateSession whose caller left: %v", err)
	}
	// The host commits the open after the caller left: the client shuts the session down again.
	h.send(`{"type":"operation/response","id":1,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"session-1"}}}`)
	h.expect(`{"type":"operation/request","id":2,"request":{"method":"session/shutdown","sessionId":"session-1"}}`)
	h.send(`{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"session/closed","sessionId":"session-1"}}}`)
	// The connection goes on: the next session opens on it.
	done := make(chan error, 1)
	go func() {
		_, err := p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
		done <- err
	}()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/open","sessionId":"session-2"}}`)
	h.send(`{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"session-2"}}}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestTerminateClosesCellWithoutWaitingForDelegateCleanup(t *testing.T) {
	p, h := newScripted(t, Options{})
	release := make(chan struct{})
	rec, s, call := startHeldCall(t, p, h, release)
	outcome := make(chan codemode.WaitOutcome, 1)
	go func() {
		o, err := s.Terminate(bg(), "1")
		if err != nil {
			t.Error(err)
		}
		outcome <- o
	}()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"1"}}`)
	h.send(`{"type":"delegate/cancel","id":7}`)
	h.send(`{"type":"cell/closed","sessionId":"session-1","cellId":"1"}`)
	h.send(`{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"LiveCell":{"Terminated":{"cell_id":"1","content_items":[]}}}}}}`)

	// The call is cancelled, the cell closed and the terminate answered while the call's own
	// cleanup is still running.
	<-call.Cancelled()
	if err := rec.AwaitCellClosed(bgTimeout(t), "1"); err != nil {
		t.Fatal(err)
	}
	if o := <-outcome; o.Missing || o.Response.Kind != codemode.Terminated || o.Response.CellID != "1" || len(o.Response.ContentItems) != 0 {
		t.Fatalf("Terminate = %+v", o)
	}
	requireRunning(t, call)

	close(release)
	<-call.Returned()
	// The cancelled call sends no answer: the next frame is the next request.
	go func() { _, _ = s.Terminate(bg(), "2") }()
	h.expect(`{"type":"operation/request","id":4,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"2"}}`)
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
}

func TestShutdownClosesCellWithoutWaitingForDelegateCleanup(t *testing.T) {
	p, h := newScripted(t, Options{})
	release := make(chan struct{})
	rec, s, call := startHeldCall(t, p, h, release)
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(bg()) }()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/shutdown","sessionId":"session-1"}}`)
	h.send(`{"type":"delegate/cancel","id":7}`)
	h.send(`{"type":"cell/closed","sessionId":"session-1","cellId":"1"}`)
	h.send(`{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"session/closed","sessionId":"session-1"}}}`)

	<-call.Cancelled()
	if err := rec.AwaitCellClosed(bgTimeout(t), "1"); err != nil {
		t.Fatal(err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	requireRunning(t, call)

	close(release)
	<-call.Returned()
	// No late answer, and the connection goes on: the next frame is the next session's open.
	go func() { _, _ = p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{}) }()
	h.expect(`{"type":"operation/request","id":4,"request":{"method":"session/open","sessionId":"session-2"}}`)
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
}

func TestDelegateAfterCellCloseReturnsErrorWithoutInvocation(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	h.send(`{"type":"cell/closed","sessionId":"session-1","cellId":"1"}`)
	h.send(`{"type":"delegate/request","id":7,"sessionId":"session-1","request":{"type":"notification/send","callId":"notify-1","cellId":"1","text":"late"}}`)
	h.expect(`{"type":"delegate/response","id":7,"result":{"status":"error","message":"code-mode host delegated for unknown cell 1 in session session-1"}}`)
	h.send(invokeFrame(8, "1"))
	h.expect(`{"type":"delegate/response","id":8,"result":{"status":"error","message":"code-mode host delegated for unknown cell 1 in session session-1"}}`)
	if n, c := len(rec.Notifications()), len(rec.ToolCalls()); n != 0 || c != 0 {
		t.Fatalf("the delegate was called: %d notifications, %d tool calls", n, c)
	}
	// The refusals left the connection up.
	startCell(t, s, h, 3, "2")
}

// TestDeliveredButUnclaimedExecuteIsTerminatedWhenTheCallerIsCancelled: in Codex the driver
// hands the started cell to the caller, which then claims it; a caller cancelled in between
// leaves the cell to the driver, which terminates it. In Go, Execute returns the StartedCell and
// the caller claims the cell by taking its initial response: a caller whose context ends before
// it did (InitialResponse returns the context's error) abandons the cell, and the client
// terminates it on the host. The host's answers then close the cell exactly once.
func TestDeliveredButUnclaimedExecuteIsTerminatedWhenTheCallerIsCancelled(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	c := startCell(t, s, h, 2, "1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.InitialResponse(ctx); err != context.Canceled {
		t.Fatalf("InitialResponse of a cancelled caller: %v", err)
	}
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"1"}}`)
	h.send(`{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Terminated":{"cell_id":"1","content_items":[]}}}}`)
	h.send(`{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"LiveCell":{"Terminated":{"cell_id":"1","content_items":[]}}}}}}`)
	h.send(`{"type":"cell/closed","sessionId":"session-1","cellId":"1"}`)
	if r, err := c.InitialResponse(bg()); err != nil || r.Kind != codemode.Terminated || r.CellID != "1" {
		t.Fatalf("initial response after the termination: %+v, %v", r, err)
	}
	if err := rec.AwaitCellClosed(bgTimeout(t), "1"); err != nil {
		t.Fatal(err)
	}
	startCell(t, s, h, 4, "2")
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
}

func TestSessionAcceptsMoreThan4096CellsWithoutGrowingATombstoneSet(t *testing.T) {
	const cells = 4097
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	for n := 1; n <= cells; n++ {
		cell := strconv.Itoa(n)
		c := startCell(t, s, h, n+1, cell)
		h.send(fmt.Sprintf(`{"type":"execute/initialResponse","id":%d,"result":{"status":"ok","value":{"Yielded":{"cell_id":%q,"content_items":[]}}}}`, n+1, cell))
		if r, err := c.InitialResponse(bg()); err != nil || r.CellID != codemode.CellID(cell) {
			t.Fatalf("cell %s: %+v, %v", cell, r, err)
		}
		h.send(fmt.Sprintf(`{"type":"cell/closed","sessionId":"session-1","cellId":%q}`, cell))
	}
	if err := rec.AwaitCellClosed(bgTimeout(t), codemode.CellID(strconv.Itoa(cells))); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.ClosedCells()); n != cells {
		t.Fatalf("%d cells closed, want %d", n, cells)
	}
	// Nothing is remembered of the closed cells: the session's and connection's tables are empty.
	conn := s.(*session).conn
	conn.mu.Lock()
	live, pending, initials := len(s.(*session).cells), len(conn.requests.pending), len(conn.requests.initials)
	conn.mu.Unlock()
	if live != 0 || pending != 0 || initials != 0 {
		t.Fatalf("after %d closed cells: %d cells, %d requests, %d initial responses remembered", cells, live, pending, initials)
	}
	startCell(t, s, h, cells+2, strconv.Itoa(cells+1))
}

func TestSessionCleanupDoesNotWaitForDelegateCompletion(t *testing.T) {
	p, h := newScripted(t, Options{})
	release := make(chan struct{})
	rec, s, call := startHeldCall(t, p, h, release)
	_ = h.w.CloseWithError(io.ErrUnexpectedEOF) // the host crashed
	<-call.Cancelled()
	if err := rec.AwaitCellClosed(bgTimeout(t), "1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(bg()); err != nil {
		t.Fatalf("Shutdown after the connection failed: %v", err)
	}
	requireRunning(t, call)
	close(release)
	<-call.Returned()
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
}

// TestAbortingDriverMarksConnectionDeadAndClosesCells: Codex aborts the driver's task. A Go
// goroutine cannot be aborted from outside; the owner ends the driver by closing the provider,
// which is the counterpart: the connection is dead (the host sees it end), the pending wait
// fails, the live cell is closed exactly once, and nothing new can start.
func TestAbortingDriverMarksConnectionDeadAndClosesCells(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	waited := make(chan error, 1)
	go func() {
		_, err := s.Wait(bg(), codemode.WaitRequest{CellID: "1", YieldTimeMs: 60_000})
		waited <- err
	}()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/wait","sessionId":"session-1","request":{"cell_id":"1","yield_time_ms":60000}}}`)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err == nil || err.Error() != "code-mode host connection closed" {
		t.Fatalf("pending wait: %v", err)
	}
	h.expectClosed()
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
	if _, err := s.Execute(bg(), codemode.ExecuteRequest{Source: "src"}); err == nil {
		t.Fatal("Execute on a dead connection")
	}
	if _, err := p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{}); err == nil || err.Error() != "code-mode session provider is closed" {
		t.Fatalf("CreateSession after Close: %v", err)
	}
}

// TestDroppedShutdownWaiterDoesNotAbortRemoteCleanup: a Shutdown whose caller leaves after the
// request went out still completes. When the host's session/closed arrives the session is
// closed locally too: a later Shutdown returns at once and Execute fails locally, neither
// sending anything. (Codex's driver answers that Execute with "unknown code-mode session
// session-1" because it asks its session registry; a Go session knows its own state and
// answers codemode.ErrShuttingDown, as it does after any Shutdown.)
func TestDroppedShutdownWaiterDoesNotAbortRemoteCleanup(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	ctx, cancel := context.WithCancel(context.Background())
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(ctx) }()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/shutdown","sessionId":"session-1"}}`)
	cancel()
	if err := <-shut; err != context.Canceled {
		t.Fatalf("Shutdown whose caller left: %v", err)
	}
	h.send(`{"type":"cell/closed","sessionId":"session-1","cellId":"1"}`)
	h.send(`{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"session/closed","sessionId":"session-1"}}}`)
	if err := rec.AwaitCellClosed(bgTimeout(t), "1"); err != nil {
		t.Fatal(err)
	}
	again := make(chan error, 1)
	go func() { again <- s.Shutdown(bg()) }()
	select {
	case err := <-again:
		if err != nil {
			t.Fatalf("Shutdown after the host closed the session: %v", err)
		}
	case f := <-h.frames:
		t.Fatalf("Shutdown of a closed session sent %s", f)
	}
	executed := make(chan error, 1)
	go func() {
		_, err := s.Execute(bg(), codemode.ExecuteRequest{ToolCallID: "call-2", Source: "text('unreachable')"})
		executed <- err
	}()
	select {
	case err := <-executed:
		if !errors.Is(err, codemode.ErrShuttingDown) {
			t.Fatalf("Execute on the closed session: %v", err)
		}
	case f := <-h.frames:
		t.Fatalf("Execute on a closed session sent %s", f)
	}
	// Nothing went out for either: the next frame is the next session's open.
	go func() { _, _ = p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{}) }()
	h.expect(`{"type":"operation/request","id":4,"request":{"method":"session/open","sessionId":"session-2"}}`)
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
}
