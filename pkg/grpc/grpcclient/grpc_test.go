package grpcclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Codex's code-mode-host/tests/grpc.rs: the Go client against the host on real sockets.

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestTcpSessionPersistsValuesAndForwardsToolsNotificationsAndClosure(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	rec.Handle("echo", codemodetest.Returns(`{"value":"output"}`))
	if r := run(t, s, execReq(`store("key", "persisted");`, toEnd)); r.Kind != codemode.Result || r.CellID != "1" || len(r.ContentItems) != 0 {
		t.Fatalf("first cell %+v", r)
	}
	req := execReq(`const result = await tools.echo({ value: String(load("key")) }); notify("notice"); text(result.value);`, toEnd, fnTool("echo"))
	req.ToolCallID = "call-2"
	if r := run(t, s, req); r.Kind != codemode.Result || r.CellID != "2" || texts(r) != "{output};" {
		t.Fatalf("second cell %+v", r)
	}
	calls := rec.ToolCalls()
	if len(calls) != 1 || calls[0].Call.CellID != "2" || calls[0].Call.RuntimeToolCallID != "tool-1" || string(calls[0].Call.Input) != `{"value":"persisted"}` {
		t.Fatalf("tool calls %+v", calls)
	}
	notes := rec.Notifications()
	if len(notes) != 1 || notes[0].CallID != "call-2" || notes[0].CellID != "2" || notes[0].Text != "notice" {
		t.Fatalf("notifications %+v", notes)
	}
	if err := s.Shutdown(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if closed := rec.ClosedCells(); fmt.Sprint(closed) != "[1 2]" {
		t.Fatalf("closed cells %v, want [1 2]", closed)
	}
}

func TestShutdownImmediatelyRejectsNewOperations(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, _ := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	shutdown := make(chan error, 1)
	go func() { shutdown <- s.Shutdown(context.Background()) }()
	const want = "code mode session is shutting down"
	for {
		// Shutdown has begun once a new operation is refused; until then, nothing was sent.
		_, err := s.Terminate(ctxT(t), "missing")
		if err != nil && err.Error() == want {
			break
		}
	}
	_, err := s.Execute(ctxT(t), execReq(`text("too late")`, 1))
	wantText(t, "execute", err, want)
	_, err = s.Wait(ctxT(t), codemode.WaitRequest{CellID: "missing", YieldTimeMs: 1})
	wantText(t, "wait", err, want)
	if err := <-shutdown; err != nil {
		t.Fatal(err)
	}
}

func wantText(t *testing.T, label string, err error, text string) {
	t.Helper()
	if err == nil || err.Error() != text {
		t.Fatalf("%s: %v, want exactly %q", label, err, text)
	}
}

func TestCancellingExecutionBeforeAdmissionKeepsTheSessionUsable(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Execute(ctx, execReq(`await new Promise(() => {});`, 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute with a cancelled ctx: %v", err)
	}
	if err := rec.AwaitCellClosed(ctxT(t), "1"); err != nil {
		t.Fatalf("the cell admitted after its caller left was not closed: %v", err)
	}
	o, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 1})
	if err != nil || !o.Missing {
		t.Fatalf("the abandoned cell is not gone: %+v, %v", o, err)
	}
	if r := run(t, s, execReq(`text("still alive")`, toEnd)); r.CellID != "2" || texts(r) != "{still alive};" {
		t.Fatalf("next cell %+v", r)
	}
}

func TestDroppingAnInitialResponseTerminatesItsPendingRemoteExecution(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	c, err := s.Execute(ctxT(t), execReq(`await new Promise(() => {});`, 60_000))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.InitialResponse(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("InitialResponse: %v", err)
	}
	if err := rec.AwaitCellClosed(ctxT(t), c.CellID); err != nil {
		t.Fatal(err)
	}
	if o, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: 1}); err != nil || !o.Missing {
		t.Fatalf("the dropped cell still runs: %+v, %v", o, err)
	}
	if r := run(t, s, execReq(`text("still alive")`, toEnd)); r.CellID != "2" {
		t.Fatalf("next cell %+v", r)
	}
}

// Go's counterpart of dropping_a_started_cell_off_runtime_terminates_its_buffered_remote_execution:
// a StartedCell whose yielded initial response nobody reads is abandoned.
func TestDroppingAStartedCellTerminatesItsBufferedRemoteExecution(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	c, err := s.Execute(ctxT(t), execReq(`await new Promise(() => {});`, 1))
	if err != nil {
		t.Fatal(err)
	}
	c.Abandon()
	if err := rec.AwaitCellClosed(ctxT(t), c.CellID); err != nil {
		t.Fatal(err)
	}
	if o, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: 1}); err != nil || !o.Missing {
		t.Fatalf("the abandoned cell still runs: %+v, %v", o, err)
	}
}

// panicking is a delegate whose every callback panics.
type panicking struct{ codemode.BlockingNoop }

func (panicking) InvokeTool(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
	panic("synchronous tool delegate panic")
}

func (panicking) Notify(context.Context, string, codemode.CellID, string) error {
	panic("synchronous notification delegate panic")
}

func TestSynchronousDelegatePanicsDoNotOrphanCallbacksOrCloseTheSession(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, err := newProvider(t, h.url(), grpcclient.ProtocolGRPC).CreateSession(ctxT(t), codemode.FromBlocking(panicking{}), codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctxT(t))
	r := run(t, s, execReq(`try { await tools.echo({}); text("unexpected"); } catch (e) { text("tool recovered: " + e); }`, toEnd, fnTool("echo")))
	if texts(r) != "{tool recovered: code mode tool task panicked};" {
		t.Fatalf("tool panic: %+v", r)
	}
	if r := run(t, s, execReq(`notify("panic"); text("notification recovered");`, toEnd)); texts(r) != "{notification recovered};" {
		t.Fatalf("notification panic: %+v", r)
	}
	if r := run(t, s, execReq(`text("still alive");`, toEnd)); r.CellID != "3" || texts(r) != "{still alive};" {
		t.Fatalf("after the panics: %+v", r)
	}
}

// Go's counterpart of tool_delegate_self_cancellation_returns_an_error_without_hanging: a Go
// delegate cannot cancel the context it was given, but it can fail as if it had.
func TestToolDelegateSelfCancellationReturnsAnErrorWithoutHanging(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	rec.Handle("echo", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return nil, context.Canceled
	})
	if r := run(t, s, execReq(`try { await tools.echo({}); } catch (_) { text("tool recovered"); }`, toEnd, fnTool("echo"))); texts(r) != "{tool recovered};" {
		t.Fatalf("%+v", r)
	}
	if r := run(t, s, execReq(`text("still alive");`, toEnd)); r.CellID != "2" {
		t.Fatalf("%+v", r)
	}
}

func TestConcurrentWaitRejectsWithoutDisplacingTheActiveObserver(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, _ := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	if r := run(t, s, execReq(`await new Promise(() => {});`, 1)); r.Kind != codemode.Yielded || r.CellID != "1" {
		t.Fatalf("%+v", r)
	}
	first := startActiveWait(t, s, "1", 60_000)
	_, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 60_000})
	wantText(t, "second observer", err, "exec cell 1 already has an active observer")
	o, err := s.Terminate(ctxT(t), "1")
	if err != nil || o.Missing || o.Response.Kind != codemode.Terminated {
		t.Fatalf("terminate: %+v, %v", o, err)
	}
	if end := <-first; end.err != nil {
		t.Fatalf("the first observer was displaced: %v", end.err)
	}
}

func TestDroppingAWaitRetiresItsObserverBeforeTheNextWait(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, _ := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	if r := run(t, s, execReq(`await new Promise(() => {});`, 1)); r.Kind != codemode.Yielded {
		t.Fatalf("%+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	dropped := make(chan error, 1)
	go func() {
		_, err := s.Wait(ctx, codemode.WaitRequest{CellID: "1", YieldTimeMs: 60_000})
		dropped <- err
	}()
	cancel()
	if err := <-dropped; !errors.Is(err, context.Canceled) {
		t.Fatalf("dropped wait: %v", err)
	}
	o, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 1})
	if err != nil || o.Missing || o.Response.Kind != codemode.Yielded {
		t.Fatalf("the next wait met the dropped observer: %+v, %v", o, err)
	}
	if o, err := s.Terminate(ctxT(t), "1"); err != nil || o.Response.Kind != codemode.Terminated {
		t.Fatalf("terminate: %+v, %v", o, err)
	}
}

// largeTool answers its first call with an 8 MiB value once released.
func largeTool(started chan<- struct{}, release <-chan struct{}) codemodetest.ToolFunc {
	return func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return json.RawMessage(`{"value":"` + strings.Repeat("x", 8<<20) + `"}`), nil
	}
}

func TestLargeUnaryToolCompletionDoesNotBlockAnIndependentSession(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	p := newProvider(t, h.url(), grpcclient.ProtocolGRPC)
	slow, rec := session(t, p, codemode.SessionCellExecutionLimits{})
	fast, _ := session(t, p, codemode.SessionCellExecutionLimits{})
	started, release := make(chan struct{}, 1), make(chan struct{})
	rec.Handle("large", largeTool(started, release))
	c, err := slow.Execute(ctxT(t), execReq(`const r = await tools.large({ value: "request" }); text(String(r.value.length));`, 20_000, fnTool("large")))
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if r := run(t, fast, execReq(`text("fast-before")`, toEnd)); texts(r) != "{fast-before};" {
		t.Fatalf("%+v", r)
	}
	close(release)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if r := run(t, fast, execReq(`text("fast-during")`, toEnd)); texts(r) != "{fast-during};" {
			t.Errorf("%+v", r)
		}
	}()
	r, err := c.InitialResponse(ctxT(t))
	wg.Wait()
	if err != nil || texts(r) != "{8388608};" {
		t.Fatalf("large result: %+v, %v", r, err)
	}
}

func TestSingleSubscriptionProcessesSlowAndFastToolsConcurrently(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	s, rec := session(t, newProvider(t, h.url(), grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
	started, release := make(chan struct{}, 1), make(chan struct{})
	rec.Handle("large", largeTool(started, release))
	rec.Handle("fast", codemodetest.Returns(`{"value":"isolated"}`))
	c, err := s.Execute(ctxT(t), execReq(`const r = await tools.large({}); text(String(r.value.length));`, 20_000, fnTool("large")))
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if r := run(t, s, execReq(`const r = await tools.fast({}); text(r.value);`, toEnd, fnTool("fast"))); r.CellID != "2" || texts(r) != "{isolated};" {
		t.Fatalf("%+v", r)
	}
	close(release)
	if r, err := c.InitialResponse(ctxT(t)); err != nil || texts(r) != "{8388608};" {
		t.Fatalf("%+v, %v", r, err)
	}
}

func TestSessionsEnforceIndependentYieldLimits(t *testing.T) {
	h := startHost(t, "127.0.0.1:0")
	p := newProvider(t, h.url(), grpcclient.ProtocolGRPC)
	one, heap, thousand := uint64(1), uint64(16<<20), uint64(1_000)
	limited, _ := session(t, p, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: &one, MaxHeapSizeBytes: &heap})
	other, _ := session(t, p, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: &thousand})
	if r := run(t, limited, execReq(`await new Promise(() => {});`, 60_000)); r.Kind != codemode.Yielded || r.CellID != "1" {
		t.Fatalf("%+v", r)
	}
	if o, err := limited.Wait(ctxT(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 60_000}); err != nil || o.Response.Kind != codemode.Yielded {
		t.Fatalf("the session limit did not bound an explicit wait: %+v, %v", o, err)
	}
	if r := run(t, other, execReq(`await new Promise((resolve) => setTimeout(resolve, 25)); text("isolated");`, toEnd)); r.Kind != codemode.Result || texts(r) != "{isolated};" {
		t.Fatalf("%+v", r)
	}
	if o, err := limited.Terminate(ctxT(t), "1"); err != nil || o.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v, %v", o, err)
	}
}

func TestCachedSessionRecoversAfterARemoteHostRestarts(t *testing.T) {
	original := startHost(t, "127.0.0.1:0")
	p := newProvider(t, original.url(), grpcclient.ProtocolGRPC)
	s, rec := session(t, p, codemode.SessionCellExecutionLimits{})
	rec.Handle("echo", codemodetest.Returns(`{"value":"output"}`))
	c, err := s.Execute(ctxT(t), execReq(`await tools.echo({epoch: 1}); await new Promise(() => {});`, 1, fnTool("echo")))
	if err != nil || c.CellID != "1" {
		t.Fatalf("first cell %v, %v", c, err)
	}
	if r, err := c.InitialResponse(ctxT(t)); err != nil || r.Kind != codemode.Yielded {
		t.Fatalf("%+v, %v", r, err)
	}
	if _, err := rec.AwaitToolCall(ctxT(t), "echo", 1); err != nil {
		t.Fatal(err)
	}
	interrupted := startActiveWait(t, s, "1", 60_000)
	original.stop()
	// The host stops gracefully here, so the pending wait ends either with the lost connection's
	// error or, when the host's drain answered it first, with the cell terminated; it must not
	// go on waiting, nor end with anything else.
	select {
	case end := <-interrupted:
		if end.err == nil && (end.outcome.Missing || end.outcome.Response.Kind != codemode.Terminated) {
			t.Fatalf("losing the host ended the pending wait with %+v, want an error or the cell terminated", end.outcome)
		}
	case <-time.After(testTimeout):
		t.Fatal("losing the host did not interrupt the pending wait")
	}
	if err := rec.AwaitCellClosed(ctxT(t), "1"); err != nil {
		t.Fatalf("losing the host did not retire the first epoch's cell: %v", err)
	}

	startHost(t, original.addr)
	callback := execReq(`const r = await tools.echo({epoch: 2}); notify("reconnected"); text(r.value);`, toEnd, fnTool("echo"))
	callback.ToolCallID = "reconnected-call"
	responses := make(chan codemode.RuntimeResponse, 2)
	var wg sync.WaitGroup
	for _, req := range []codemode.ExecuteRequest{callback, execReq(`text("concurrent")`, toEnd)} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			responses <- run(t, s, req)
		}()
	}
	wg.Wait()
	close(responses)
	byText := map[string]codemode.CellID{}
	for r := range responses {
		byText[texts(r)] = r.CellID
	}
	ids := []string{string(byText["{output};"]), string(byText["{concurrent};"])}
	if !(ids[0] == "g2:1" && ids[1] == "g2:2" || ids[0] == "g2:2" && ids[1] == "g2:1") {
		t.Fatalf("cells after the restart %v, want g2:1 and g2:2", byText)
	}
	calls := rec.ToolCalls()
	if len(calls) != 2 || calls[0].Call.CellID != "1" || string(calls[0].Call.Input) != `{"epoch":1}` ||
		calls[1].Call.CellID != byText["{output};"] || string(calls[1].Call.Input) != `{"epoch":2}` {
		t.Fatalf("tool calls %+v", calls)
	}
	notes := rec.Notifications()
	if len(notes) != 1 || notes[0].CallID != "reconnected-call" || notes[0].CellID != byText["{output};"] || notes[0].Text != "reconnected" {
		t.Fatalf("notifications %+v", notes)
	}

	pending, err := s.Execute(ctxT(t), execReq(`await new Promise(() => {});`, 1))
	if err != nil || pending.CellID != "g2:3" {
		t.Fatalf("third cell %v, %v; want g2:3", pending, err)
	}
	if r, err := pending.InitialResponse(ctxT(t)); err != nil || r.Kind != codemode.Yielded || r.CellID != "g2:3" {
		t.Fatalf("%+v, %v", r, err)
	}
	if o, err := s.Wait(ctxT(t), codemode.WaitRequest{CellID: "g2:3", YieldTimeMs: 1}); err != nil || o.Response.CellID != "g2:3" || o.Response.Kind != codemode.Yielded {
		t.Fatalf("%+v, %v", o, err)
	}
	if o, err := s.Terminate(ctxT(t), "g2:3"); err != nil || o.Response.CellID != "g2:3" || o.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v, %v", o, err)
	}
	_, err = s.Wait(ctxT(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 1})
	wantText(t, "stale wait", err, "cell belongs to a stale code-mode host generation")
	_, err = s.Terminate(ctxT(t), "1")
	wantText(t, "stale terminate", err, "cell belongs to a stale code-mode host generation")
}

func TestUnixSocketEndpointsExecuteCodeModeCells(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "grpc.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	startHostOn(t, ln, grpchost.Options{})
	for _, endpoint := range []string{"unix://" + socket, "unix:" + socket} {
		s, _ := session(t, newProvider(t, endpoint, grpcclient.ProtocolGRPC), codemode.SessionCellExecutionLimits{})
		if r := run(t, s, execReq(`text("unix socket")`, toEnd)); r.CellID != "1" || texts(r) != "{unix socket};" {
			t.Fatalf("%s: %+v", endpoint, r)
		}
		if err := s.Shutdown(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
}
