package v1client_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// Codex's code-mode-host tests/stdio.rs and tests/websocket.rs (docs/protocol/README.md#codex-test-suites) under Codex's names:
// the client against real host processes, over stdio and over dual websockets on 127.0.0.1.

func createSession(t *testing.T, p *v1client.Provider, d codemode.Delegate, limits codemode.SessionCellExecutionLimits) codemode.Session {
	t.Helper()
	s, err := p.CreateSession(bg(t), d, limits)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(t *testing.T, s codemode.Session, req codemode.ExecuteRequest) codemode.RuntimeResponse {
	t.Helper()
	c, err := s.Execute(bg(t), req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.InitialResponse(bg(t))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ms(v uint64) *uint64 { return &v }

// requireResponse compares r with want, ignoring the host's timings (its duration, and the
// buffered time of a Result, which the conformance suite checks).
func requireResponse(t *testing.T, r codemode.RuntimeResponse, want codemode.RuntimeResponse) {
	t.Helper()
	r.HostDuration, r.BufferedFor = nil, nil
	if len(r.ContentItems) == 0 {
		r.ContentItems = nil
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("response %+v, want %+v", r, want)
	}
}

func text(s string) []codemode.ContentItem {
	return []codemode.ContentItem{codemode.InputText{Text: s}}
}

func TestSessionExecutionLimitsAreIsolatedOnASharedProcessHost(t *testing.T) {
	p := newProcessProvider(t)
	limited := createSession(t, p, codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: ms(1)})
	pid := v1client.HostPID(p)
	rec := codemodetest.NewRecorder()
	gate := codemodetest.NewGate()
	rec.Handle("hold", gate.Tool(`"released"`))
	other := createSession(t, p, rec, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: forever()})
	if got := v1client.HostPID(p); got != pid {
		t.Fatalf("sessions on hosts %d and %d", pid, got)
	}

	// The 1 ms limit bounds the default execute yield (10 s) and an explicit one-hour wait.
	r := run(t, limited, codemode.ExecuteRequest{ToolCallID: "call-1", Source: `await new Promise(() => {});`})
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"})
	o, err := limited.Wait(bg(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 3_600_000})
	if err != nil || o.Missing {
		t.Fatalf("Wait = %+v, %v", o, err)
	}
	requireResponse(t, o.Response, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"})

	// The other session's cell is not bound by it: it waits for its held tool and completes.
	c, err := other.Execute(bg(t), codemode.ExecuteRequest{ToolCallID: "call-2", Source: `text(await tools.hold({}));`, EnabledTools: []codemode.ToolDefinition{functionTool("hold")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.AwaitToolCall(bg(t), "hold", 1); err != nil {
		t.Fatal(err)
	}
	gate.Release()
	r, err = c.InitialResponse(bg(t))
	if err != nil {
		t.Fatal(err)
	}
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1", ContentItems: text("released")})

	if _, err := limited.Terminate(bg(t), "1"); err != nil {
		t.Fatal(err)
	}
	if err := limited.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
	if err := other.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
}

func TestRemoteSessionPersistsValuesForwardsDelegatesAndControlsCells(t *testing.T) {
	p := newProcessProvider(t)
	rec := codemodetest.NewRecorder()
	rec.Handle("echo", codemodetest.Returns(`{"value":"output"}`))
	s := createSession(t, p, rec, codemode.SessionCellExecutionLimits{})

	r := run(t, s, codemode.ExecuteRequest{ToolCallID: "call-1", Source: `store("key", "persisted");`})
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1"})

	r = run(t, s, codemode.ExecuteRequest{ToolCallID: "call-2", EnabledTools: []codemode.ToolDefinition{{Name: "echo", ToolName: codemode.ToolName{Name: "echo"}, Kind: codemode.ToolKindFunction}}, Source: `
const result = await tools.echo({ value: String(load("key")) });
notify("notice");
text(result.value);
`})
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "2", ContentItems: text("output")})
	calls := rec.ToolCalls()
	if len(calls) != 1 {
		t.Fatalf("%d tool calls", len(calls))
	}
	call := calls[0].Call
	if call.CellID != "2" || call.RuntimeToolCallID != "tool-1" || call.ToolName.Name != "echo" || call.ToolName.Namespace != nil || call.ToolKind != codemode.ToolKindFunction || string(call.Input) != `{"value":"persisted"}` {
		t.Fatalf("tool call %+v (input %s)", call, call.Input)
	}
	notes := rec.Notifications()
	if len(notes) != 1 || notes[0].CallID != "call-2" || notes[0].CellID != "2" || notes[0].Text != "notice" {
		t.Fatalf("notifications %+v", notes)
	}

	r = run(t, s, codemode.ExecuteRequest{ToolCallID: "call-3", Source: `await new Promise(() => {});`, YieldTimeMs: ms(1)})
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "3"})
	o, err := s.Wait(bg(t), codemode.WaitRequest{CellID: "3", YieldTimeMs: 1})
	if err != nil || o.Missing {
		t.Fatalf("Wait = %+v, %v", o, err)
	}
	requireResponse(t, o.Response, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "3"})
	o, err = s.Terminate(bg(t), "3")
	if err != nil || o.Missing {
		t.Fatalf("Terminate = %+v, %v", o, err)
	}
	requireResponse(t, o.Response, codemode.RuntimeResponse{Kind: codemode.Terminated, CellID: "3"})

	if err := s.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
	if got := rec.ClosedCells(); !reflect.DeepEqual(got, []codemode.CellID{"1", "2", "3"}) {
		t.Fatalf("closed cells %v", got)
	}
}

// TestDroppingLongWaitReleasesObserverBeforeNextWait: a one-hour wait is observing the cell on
// the host when its caller leaves; the next wait is sent only after the host retired the first,
// so it finds the cell free instead of "already has an active observer". (Codex lets the first
// wait reach the host by sleeping 100 ms; here probes with a zero yield ask the host until it
// reports the first wait as the cell's observer.)
func TestDroppingLongWaitReleasesObserverBeforeNextWait(t *testing.T) {
	p := newProcessProvider(t)
	s := createSession(t, p, codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	r := run(t, s, codemode.ExecuteRequest{ToolCallID: "call-1", Source: `await new Promise(() => {});`, YieldTimeMs: ms(1)})
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"})

	const busy = "exec cell 1 already has an active observer"
	var cancel context.CancelFunc
	var first chan error
	for observing := false; !observing; {
		if first == nil {
			var ctx context.Context
			ctx, cancel = context.WithCancel(bg(t))
			first = make(chan error, 1)
			go func() {
				_, err := s.Wait(ctx, codemode.WaitRequest{CellID: "1", YieldTimeMs: 3_600_000})
				first <- err
			}()
		}
		_, err := s.Wait(bg(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 0})
		select {
		case err := <-first: // the probe held the cell when the first wait arrived: start it again
			if err == nil || err.Error() != busy {
				t.Fatalf("first wait: %v", err)
			}
			cancel()
			first = nil
			continue
		default:
		}
		switch {
		case err != nil && err.Error() == busy:
			observing = true
		case err != nil:
			t.Fatalf("probe: %v", err)
		}
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("dropped wait: %v", err)
	}
	o, err := s.Wait(bg(t), codemode.WaitRequest{CellID: "1", YieldTimeMs: 1})
	if err != nil || o.Missing {
		t.Fatalf("wait after the dropped one: %+v, %v", o, err)
	}
	requireResponse(t, o.Response, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: "1"})
	if _, err := s.Terminate(bg(t), "1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
}

func TestUnawaitedSlowToolIsCancelledAfterParallelToolsComplete(t *testing.T) {
	p := newProcessProvider(t)
	rec := codemodetest.NewRecorder()
	fast := codemodetest.NewGate()
	slowStarted := make(chan struct{})
	var once sync.Once
	rec.Handle("tool_call_a", fast.Tool(`{"tool":"tool_call_a"}`))
	rec.Handle("tool_call_b", fast.Tool(`{"tool":"tool_call_b"}`))
	rec.Handle("tool_call_slow", func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		once.Do(func() { close(slowStarted) })
		<-ctx.Done()
		return nil, errors.New("slow tool cancelled")
	})
	rec.Handle("tool_call_barrier", func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		select {
		case <-slowStarted:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return json.RawMessage(`{"tool":"tool_call_barrier"}`), nil
	})
	s := createSession(t, p, rec, codemode.SessionCellExecutionLimits{})
	var tools []codemode.ToolDefinition
	for _, name := range []string{"tool_call_a", "tool_call_b", "tool_call_slow", "tool_call_barrier"} {
		tools = append(tools, functionTool(name))
	}
	c, err := s.Execute(bg(t), codemode.ExecuteRequest{ToolCallID: "call-1", EnabledTools: tools, Source: `
await (async () => {
text("hello world");
yield_control();
await Promise.all([
    tools.tool_call_a({}),
    tools.tool_call_b({}),
]);
text("hello");
tools.tool_call_slow({});
await tools.tool_call_barrier({});
return;
})();
`})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.InitialResponse(bg(t))
	if err != nil {
		t.Fatal(err)
	}
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Yielded, CellID: c.CellID, ContentItems: text("hello world")})
	type waited struct {
		o   codemode.WaitOutcome
		err error
	}
	done := make(chan waited, 1)
	go func() {
		// A yield time that never elapses: the cell's end answers, not a deadline (ADR 0070).
		o, err := s.Wait(bg(t), codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: *forever()})
		done <- waited{o, err}
	}()
	for _, name := range []string{"tool_call_a", "tool_call_b"} {
		if _, err := rec.AwaitToolCall(bg(t), name, 1); err != nil {
			t.Fatal(err)
		}
	}
	fast.Release()
	slow, err := rec.AwaitToolCall(bg(t), "tool_call_slow", 1)
	if err != nil {
		t.Fatal(err)
	}
	<-slow.Cancelled()
	if err := rec.AwaitCellClosed(bg(t), c.CellID); err != nil {
		t.Fatal(err)
	}
	w := <-done
	if w.err != nil || w.o.Missing {
		t.Fatalf("Wait = %+v, %v", w.o, w.err)
	}
	requireResponse(t, w.o.Response, codemode.RuntimeResponse{Kind: codemode.Result, CellID: c.CellID, ContentItems: text("hello")})
	if err := s.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
}

// TestProductionWebsocketClientRunsNestedToolsWhileOtherSessionsProgress: the WebSocket provider
// on a dual connection to a host process. While one session's tool call is held, and while its
// 8 MiB result travels, another session's cells run to completion. (Codex also requires the
// unrelated cell to finish before the large result; that is an ordering of two independent
// transfers, which this test does not assert.)
func TestProductionWebsocketClientRunsNestedToolsWhileOtherSessionsProgress(t *testing.T) {
	url := startWebSocketHost(t)
	p := v1client.NewWebSocketProvider(url, true, v1client.Options{})
	t.Cleanup(func() { _ = p.Close() })
	rec := codemodetest.NewRecorder()
	gate := codemodetest.NewGate()
	large, _ := json.Marshal(map[string]string{"value": strings.Repeat("x", 8<<20)})
	rec.Handle("large", gate.Tool(string(large)))
	slowSession := createSession(t, p, rec, codemode.SessionCellExecutionLimits{})
	fastSession := createSession(t, p, codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{MaxYieldTimeMs: forever()})

	slow, err := slowSession.Execute(bg(t), codemode.ExecuteRequest{ToolCallID: "large-tool", EnabledTools: []codemode.ToolDefinition{functionTool("large")}, YieldTimeMs: forever(),
		Source: `const result = await tools.large({ value: "request" }); text(String(result.value.length));`})
	if err != nil {
		t.Fatal(err)
	}
	call, err := rec.AwaitToolCall(bg(t), "large", 1)
	if err != nil {
		t.Fatal(err)
	}
	if string(call.Call.Input) != `{"value":"request"}` {
		t.Fatalf("tool input %s", call.Call.Input)
	}
	r := run(t, fastSession, codemode.ExecuteRequest{ToolCallID: "fast-before-transfer", Source: `text("fast-before");`, YieldTimeMs: forever()})
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1", ContentItems: text("fast-before")})

	gate.Release()
	during := make(chan codemode.RuntimeResponse, 1)
	go func() {
		c, err := fastSession.Execute(bg(t), codemode.ExecuteRequest{ToolCallID: "fast-during-transfer", Source: `text("fast-during");`, YieldTimeMs: forever()})
		if err != nil {
			t.Error(err)
			close(during)
			return
		}
		r, err := c.InitialResponse(bg(t))
		if err != nil {
			t.Error(err)
		}
		during <- r
	}()
	r, err = slow.InitialResponse(bg(t))
	if err != nil {
		t.Fatal(err)
	}
	requireResponse(t, r, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "1", ContentItems: text("8388608")})
	requireResponse(t, <-during, codemode.RuntimeResponse{Kind: codemode.Result, CellID: "2", ContentItems: text("fast-during")})
	if err := slowSession.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
	if err := fastSession.Shutdown(bg(t)); err != nil {
		t.Fatal(err)
	}
}
