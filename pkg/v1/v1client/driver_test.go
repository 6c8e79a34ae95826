package v1client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// Codex's remote_session driver_tests.rs (docs/protocol/README.md#codex-test-suites) under Codex's names: the client against a
// scripted host that the test plays frame by frame, with exact bytes both ways.

// It is minutes because under -race on 2 saturated cores a 72 MiB response alone took over
// 60 s: a guard that fires on a slow machine would be a timing assertion.
const testTimeout = 5 * time.Minute

// scriptedHost is the host end of a client connection.
type scriptedHost struct {
	t      *testing.T
	w      *io.PipeWriter
	frames chan string
}

func newScripted(t *testing.T, opts Options) (*Provider, *scriptedHost) {
	t.Helper()
	h := &scriptedHost{t: t, frames: make(chan string, 4096)}
	p := newProvider(func(ctx context.Context, epoch uint64, o *Options) (*connection, error) {
		toHostR, toHostW := io.Pipe()
		fromHostR, fromHostW := io.Pipe()
		h.w = fromHostW
		go func() {
			r := v1frame.NewReader(toHostR)
			if _, err := r.Read(); err != nil { // the hello
				close(h.frames)
				return
			}
			h.send(`{"type":"connection/ready","selectedVersion":1,"capabilities":["session-cell-execution-resource-limits"]}`)
			for {
				p, err := r.Read()
				if err != nil {
					close(h.frames)
					return
				}
				h.frames <- string(p)
			}
		}()
		conn := v1transport.NewStreamConn(fromHostR, toHostW, func() error {
			_ = toHostW.Close()
			return fromHostR.Close()
		})
		n, err := handshake(ctx, conn, false)
		if err != nil {
			return nil, err
		}
		return newConnection(v1transport.NewLink(conn, v1transport.SideHost, newTolerantDecoder().decode), epoch, n, o, nil), nil
	}, opts)
	t.Cleanup(func() { _ = p.Close() })
	return p, h
}

func (h *scriptedHost) send(payload string) {
	f, _ := v1frame.Append(nil, []byte(payload))
	_, _ = h.w.Write(f)
}

func (h *scriptedHost) recv() string {
	h.t.Helper()
	select {
	case f, ok := <-h.frames:
		if !ok {
			h.t.Fatal("the client closed the connection")
		}
		return f
	case <-time.After(testTimeout):
		h.t.Fatal("no frame from the client")
	}
	return ""
}

func (h *scriptedHost) expect(want string) {
	h.t.Helper()
	if got := h.recv(); got != want {
		h.t.Fatalf("frame:\n got %s\nwant %s", got, want)
	}
}

// expectClosed waits until the client ends the connection.
func (h *scriptedHost) expectClosed() {
	h.t.Helper()
	for {
		select {
		case _, ok := <-h.frames:
			if !ok {
				return
			}
		case <-time.After(testTimeout):
			h.t.Fatal("the client did not close the connection")
		}
	}
}

// bg is the context of the client's operations in these tests: the scripted host decides when
// they end, and a test that hangs is ended by go test's own timeout.
func bg() context.Context { return context.Background() }

// openSession opens "session-1" (request 1).
func openSession(t *testing.T, p *Provider, h *scriptedHost, d codemode.Delegate) codemode.Session {
	t.Helper()
	done := make(chan codemode.Session, 1)
	go func() {
		s, err := p.CreateSession(bg(), d, codemode.SessionCellExecutionLimits{})
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	h.expect(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"session-1"}}`)
	h.send(`{"type":"operation/response","id":1,"result":{"status":"ok","value":{"type":"session/ready","sessionId":"session-1"}}}`)
	return <-done
}

func tool(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name}, Description: name, Kind: codemode.ToolKindFunction}
}

// startCell executes on s and plays the host's admission of cell as request id.
func startCell(t *testing.T, s codemode.Session, h *scriptedHost, id int, cell string) *codemode.StartedCell {
	t.Helper()
	done := make(chan *codemode.StartedCell, 1)
	go func() {
		c, err := s.Execute(bg(), codemode.ExecuteRequest{ToolCallID: "call", Source: "src", EnabledTools: []codemode.ToolDefinition{tool("t")}})
		if err != nil {
			t.Error(err)
		}
		done <- c
	}()
	if got := h.recv(); !strings.Contains(got, fmt.Sprintf(`"id":%d,"request":{"method":"session/execute"`, id)) {
		t.Fatalf("execute frame: %s", got)
	}
	h.send(fmt.Sprintf(`{"type":"operation/response","id":%d,"result":{"status":"ok","value":{"type":"execution/started","cellId":%q}}}`, id, cell))
	return <-done
}

func TestOpenSessionIncludesNondefaultCellExecutionLimits(t *testing.T) {
	p, h := newScripted(t, Options{})
	go func() {
		limit := uint64(250)
		_, _ = p.CreateSession(bg(), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: &limit})
	}()
	h.expect(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"session-1","cellExecutionLimits":{"maxYieldTimeMs":250}}}`)
}

func TestMismatchedInitialResponseFailsConnectionAndClosesCellOnce(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	c := startCell(t, s, h, 2, "1")
	h.send(`{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Result":{"cell_id":"2","content_items":[],"error_text":null}}}}`)
	if _, err := c.InitialResponse(bg()); err == nil || err.Error() != "code-mode host returned initial response for cell 2 instead of 1" {
		t.Fatalf("err = %v", err)
	}
	if err := rec.AwaitCellClosed(bg(), "1"); err != nil {
		t.Fatal(err)
	}
	h.expectClosed()
	if n := rec.CellClosedCount("1"); n != 1 {
		t.Fatalf("CellClosed %d times", n)
	}
}

func TestMismatchedWaitResponseFailsConnection(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	errs := make(chan error, 1)
	go func() {
		_, err := s.Wait(bg(), codemode.WaitRequest{CellID: "1", YieldTimeMs: 5})
		errs <- err
	}()
	h.expect(`{"type":"operation/request","id":2,"request":{"method":"session/wait","sessionId":"session-1","request":{"cell_id":"1","yield_time_ms":5}}}`)
	h.send(`{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"LiveCell":{"Yielded":{"cell_id":"7","content_items":[]}}}}}}`)
	if err := <-errs; err == nil || err.Error() != "code-mode host returned cell 7 for request targeting 1" {
		t.Fatalf("err = %v", err)
	}
	h.expectClosed()
	if _, err := s.Wait(bg(), codemode.WaitRequest{CellID: "1"}); err == nil || err.Error() != "code-mode host returned cell 7 for request targeting 1" {
		t.Fatalf("after the failure: %v", err)
	}
}

func TestMismatchedTerminateResponseFailsConnection(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	errs := make(chan error, 1)
	go func() {
		_, err := s.Terminate(bg(), "1")
		errs <- err
	}()
	h.expect(`{"type":"operation/request","id":2,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"1"}}`)
	h.send(`{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"MissingCell":{"Result":{"cell_id":"3","content_items":[],"error_text":"x"}}}}}}`)
	if err := <-errs; err == nil || err.Error() != "code-mode host returned cell 3 for request targeting 1" {
		t.Fatalf("err = %v", err)
	}
	h.expectClosed()
}

func TestDelegateForUnknownCellReturnsErrorWithoutInvocation(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	openSession(t, p, h, rec)
	h.send(`{"type":"delegate/request","id":1,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"9","runtime_tool_call_id":"tool-1","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`)
	h.expect(`{"type":"delegate/response","id":1,"result":{"status":"error","message":"code-mode host delegated for unknown cell 9 in session session-1"}}`)
	if calls := rec.ToolCalls(); len(calls) != 0 {
		t.Fatalf("the delegate was invoked: %v", calls)
	}
}

func TestCompletedDelegateRequestIDCannotBeReused(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	rec.Handle("t", codemodetest.Returns(`1`))
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	invoke := `{"type":"delegate/request","id":1,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-1","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`
	h.send(invoke)
	h.expect(`{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`)
	h.send(invoke)
	h.expectClosed()
	if _, err := s.Wait(bg(), codemode.WaitRequest{CellID: "1"}); err == nil || err.Error() != "duplicate code-mode delegate request ID DelegateRequestId(1)" {
		t.Fatalf("after the reuse: %v", err)
	}
}

func TestDelegateCancelIsBestEffortAndSendsNoLateResponse(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	rec.Handle("t", codemodetest.BlocksUntilCancelled())
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	h.send(`{"type":"delegate/request","id":1,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-1","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`)
	call, err := rec.AwaitToolCall(bg(), "t", 1)
	if err != nil {
		t.Fatal(err)
	}
	h.send(`{"type":"delegate/cancel","id":1}`)
	<-call.Returned()
	// Nothing answers the cancelled call: the next frame is the next request.
	go func() { _, _ = s.Terminate(bg(), "1") }()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"1"}}`)
}

func TestDelegateTaskPanicBecomesToolErrorWithoutKillingConnection(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	rec.Handle("t", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { panic("probe") })
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	h.send(`{"type":"delegate/request","id":1,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-1","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`)
	h.expect(`{"type":"delegate/response","id":1,"result":{"status":"error","message":"code mode tool task panicked"}}`)
	if got, err := rec.AwaitFailures(bg(), 1); err != nil || got[0] != "code mode tool task panicked" {
		t.Fatalf("failures %v, %v", got, err)
	}
	go func() { _, _ = s.Terminate(bg(), "1") }()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"1"}}`)
}

func TestCancelledWaitIsRetiredBeforeNextWaitIsSent(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx, codemode.WaitRequest{CellID: "1", YieldTimeMs: 1000})
		first <- err
	}()
	h.expect(`{"type":"operation/request","id":2,"request":{"method":"session/wait","sessionId":"session-1","request":{"cell_id":"1","yield_time_ms":1000}}}`)
	cancel()
	if err := <-first; err != context.Canceled {
		t.Fatalf("cancelled wait: %v", err)
	}
	h.expect(`{"type":"operation/cancel","id":2}`)
	second := make(chan error, 1)
	go func() {
		_, err := s.Wait(bg(), codemode.WaitRequest{CellID: "1", YieldTimeMs: 7})
		second <- err
	}()
	// A terminate of another cell goes out while the second wait is held back.
	go func() { _, _ = s.Terminate(bg(), "2") }()
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"2"}}`)
	h.send(`{"type":"operation/response","id":2,"result":{"status":"error","message":"code-mode request cancelled"}}`)
	h.expect(`{"type":"operation/request","id":4,"request":{"method":"session/wait","sessionId":"session-1","request":{"cell_id":"1","yield_time_ms":7}}}`)
}

func TestQueuedRemoteWaitTimesOutAndInvalidatesTheConnection(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	// The host never answers; a tiny transport allowance makes the deadline come soon (the
	// outcome does not depend on speed: nothing can answer in time).
	p.opts.TransportTimeout = time.Millisecond
	_, err := s.Wait(bg(), codemode.WaitRequest{CellID: "1", YieldTimeMs: 0})
	if err == nil || err.Error() != "code-mode host timed out waiting for wait response" {
		t.Fatalf("err = %v", err)
	}
	h.recv() // the wait
	h.expectClosed()
}

func TestQueuedRemoteTerminationTimesOutAndInvalidatesTheConnection(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	// The host never answers; a tiny transport allowance makes the deadline come soon (the
	// outcome does not depend on speed: nothing can answer in time).
	p.opts.TransportTimeout = time.Millisecond
	if _, err := s.Terminate(bg(), "1"); err == nil || err.Error() != "code-mode host timed out waiting for terminate response" {
		t.Fatalf("err = %v", err)
	}
	h.recv()
	h.expectClosed()
}

func TestRemoteWaitAcceptsDurationsLongerThanFiveMinutes(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	go func() { _, _ = s.Wait(bg(), codemode.WaitRequest{CellID: "1", YieldTimeMs: 600_000}) }()
	h.expect(`{"type":"operation/request","id":2,"request":{"method":"session/wait","sessionId":"session-1","request":{"cell_id":"1","yield_time_ms":600000}}}`)
}

func TestDeferredDelegatesFollowCellReadinessAndCancellation(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	rec.Handle("t", codemodetest.Returns(`"ok"`))
	s := openSession(t, p, h, rec)
	done := make(chan *codemode.StartedCell, 1)
	go func() {
		c, _ := s.Execute(bg(), codemode.ExecuteRequest{ToolCallID: "call", Source: "src"})
		done <- c
	}()
	h.recv() // the execute
	invoke := `{"type":"delegate/request","id":%d,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-%d","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`
	// Two calls arrive before the started response (as on a dual connection); one of them is
	// cancelled while deferred.
	h.send(fmt.Sprintf(invoke, 1, 1))
	h.send(fmt.Sprintf(invoke, 2, 2))
	h.send(`{"type":"delegate/cancel","id":1}`)
	h.send(`{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"execution/started","cellId":"1"}}}`)
	<-done
	h.expect(`{"type":"delegate/response","id":2,"result":{"status":"ok","value":{"type":"tool/result","result":"ok"}}}`)
	if calls := rec.ToolCalls(); len(calls) != 1 || calls[0].Call.RuntimeToolCallID != "tool-2" || calls[0].Call.CellID != "1" {
		t.Fatalf("invoked %v", calls)
	}
}

func TestDelegateLimitReturnsAnErrorWithoutDisconnecting(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	gate := codemodetest.NewGate()
	rec.Handle("t", gate.Tool(`1`))
	s := openSession(t, p, h, rec)
	startCell(t, s, h, 2, "1")
	invoke := `{"type":"delegate/request","id":%d,"sessionId":"session-1","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-%d","tool_name":{"name":"t","namespace":null},"tool_kind":"function","input":null}}}`
	for i := 1; i <= MaxPendingDelegateCalls; i++ {
		h.send(fmt.Sprintf(invoke, i, i))
	}
	if _, err := rec.AwaitToolCall(bg(), "t", MaxPendingDelegateCalls); err != nil {
		t.Fatal(err)
	}
	h.send(fmt.Sprintf(invoke, 1025, 1025))
	h.expect(`{"type":"delegate/response","id":1025,"result":{"status":"error","message":"code-mode host exceeded the limit of 1024 pending delegate calls"}}`)
	gate.Release()
	for range MaxPendingDelegateCalls {
		if got := h.recv(); !strings.Contains(got, `"tool/result","result":1`) {
			t.Fatalf("after release: %s", got)
		}
	}
}

func TestConnectionFailureClosesEveryLiveCellOnce(t *testing.T) {
	p, h := newScripted(t, Options{})
	rec := codemodetest.NewRecorder()
	s := openSession(t, p, h, rec)
	a := startCell(t, s, h, 2, "1")
	startCell(t, s, h, 3, "2")
	_ = h.w.CloseWithError(io.ErrUnexpectedEOF)
	if _, err := a.InitialResponse(bg()); err == nil {
		t.Fatal("initial response after the connection failed")
	}
	for _, id := range []codemode.CellID{"1", "2"} {
		if err := rec.AwaitCellClosed(bg(), id); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Shutdown(bg()); err != nil {
		t.Fatalf("Shutdown after the failure: %v", err)
	}
	for _, id := range []codemode.CellID{"1", "2"} {
		if n := rec.CellClosedCount(id); n != 1 {
			t.Fatalf("CellClosed(%s) %d times", id, n)
		}
	}
}

func TestAbandonedExecuteIsTrackedAndTerminatedAfterAdmission(t *testing.T) {
	p, h := newScripted(t, Options{})
	s := openSession(t, p, h, codemode.NoopDelegate{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call", Source: "src"})
		done <- err
	}()
	h.recv() // the execute
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Execute: %v", err)
	}
	h.expect(`{"type":"operation/cancel","id":2}`)
	h.send(`{"type":"operation/response","id":2,"result":{"status":"ok","value":{"type":"execution/started","cellId":"1"}}}`)
	h.expect(`{"type":"operation/request","id":3,"request":{"method":"session/terminate","sessionId":"session-1","cellId":"1"}}`)
}
