package v1client_test

import (
	"context"
	"encoding/json"
	"github.com/codemodehq/codemode/pkg/testenv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// Codex's remote_session_tests and the client side of the fault suite (docs/protocol/README.md#codex-test-suites), against
// real host processes.

// It is minutes because under -race on 2 saturated cores a 72 MiB response alone took over
// 60 s: a guard that fires on a slow machine would be a timing assertion.
const testTimeout = 5 * time.Minute

func bg(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newProcessProvider(t *testing.T) *v1client.Provider {
	path, args, env := hostCommand("stdio")
	p := v1client.NewProcessProvider(v1client.Command{Path: path, Args: args, Env: env}, v1client.Options{})
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func functionTool(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name}, Description: name, Kind: codemode.ToolKindFunction}
}

func forever() *uint64 {
	v := uint64(3_600_000)
	return &v
}

func TestProviderReusesItsLiveProcessHost(t *testing.T) {
	p := newProcessProvider(t)
	a, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	pid := v1client.HostPID(p)
	b, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v1client.HostPID(p); got != pid || pid == 0 {
		t.Fatalf("second session on host %d, first on %d", got, pid)
	}
	_ = a.Shutdown(bg(t))
	_ = b.Shutdown(bg(t))
}

func TestShutdownBeforeOpenDoesNotSpawnTheHost(t *testing.T) {
	p := newProcessProvider(t)
	if err := p.Availability(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if pid := v1client.HostPID(p); pid != 0 {
		t.Fatalf("a host (pid %d) was spawned", pid)
	}
}

func TestProviderReturnsMissingHostError(t *testing.T) {
	p := v1client.NewProcessProvider(v1client.Command{Path: "/nonexistent/codemode-host"}, v1client.Options{})
	defer p.Close()
	_, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err == nil || err.Error() != "failed to spawn code-mode host /nonexistent/codemode-host: fork/exec /nonexistent/codemode-host: no such file or directory" {
		t.Fatalf("err = %v", err)
	}
}

func TestMissingHostErrorLimitsTheDisplayedPathTo512Bytes(t *testing.T) {
	path := strings.Repeat("missing-directory/", 64) + "codex-code-mode-host-does-not-exist"
	want := "..." + path[len(path)-(512-3):]
	if got := v1client.DisplayPath(path); got != want || len(got) != 512 {
		t.Fatalf("displayed %d bytes: %q", len(got), got)
	}
}

func TestMissingHostErrorPreservesUTF8BoundariesWhenTruncatingThePath(t *testing.T) {
	path := strings.Repeat("🦀", 256) + "codex-code-mode-host-does-not-exist"
	got := v1client.DisplayPath(path)
	if !strings.HasPrefix(got, "...🦀") || len(got) > 512 || !strings.HasSuffix(path, strings.TrimPrefix(got, "...")) {
		t.Fatalf("displayed %q", got)
	}
}

func TestWebsocketProviderFailsWhenANegotiatedBulkConnectionIsUnavailable(t *testing.T) {
	// A control URL whose bulk route does not exist: the host grants dual websockets, the
	// pairing dial fails, and so does the session.
	url := startWebSocketHost(t)
	p := v1client.NewWebSocketProvider(url+"prefix/", true, v1client.Options{})
	defer p.Close()
	_, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err == nil {
		t.Fatal("session created without its bulk websocket")
	}
}

// TestChildProcessLossCleansUpAndRebuildsTheSharedHost is the fault "host process killed mid
// cell": the cell's initial response fails, its CellClosed comes exactly once, and the next
// session runs on a new host whose cell IDs carry epoch 2.
func TestChildProcessLossCleansUpAndRebuildsTheSharedHost(t *testing.T) {
	p := newProcessProvider(t)
	rec := codemodetest.NewRecorder()
	sess, err := p.CreateSession(bg(t), rec, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	rec.Handle("block", codemodetest.BlocksUntilCancelled())
	cell, err := sess.Execute(bg(t), codemode.ExecuteRequest{ToolCallID: "c", Source: `await tools.block({});`, EnabledTools: []codemode.ToolDefinition{functionTool("block")}, YieldTimeMs: forever()})
	if err != nil {
		t.Fatal(err)
	}
	call, err := rec.AwaitToolCall(bg(t), "block", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(v1client.HostPID(p), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := cell.InitialResponse(bg(t)); err == nil || !strings.Contains(err.Error(), "code-mode host exited") && !strings.Contains(err.Error(), "code-mode host connection closed") {
		t.Fatalf("initial response of a cell whose host died: %v", err)
	}
	<-call.Cancelled()
	if err := rec.AwaitCellClosed(bg(t), cell.CellID); err != nil {
		t.Fatal(err)
	}
	if n := rec.CellClosedCount(cell.CellID); n != 1 {
		t.Fatalf("CellClosed called %d times", n)
	}
	if _, err := sess.Execute(bg(t), codemode.ExecuteRequest{Source: `text("x")`}); err == nil {
		t.Fatal("a session of the dead host still executes")
	}
	if err := sess.Shutdown(bg(t)); err != nil {
		t.Fatalf("Shutdown of a session whose host died: %v", err)
	}

	next, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []codemode.CellID{"g2:1", "g2:2", "g2:3"} {
		c, err := next.Execute(bg(t), codemode.ExecuteRequest{Source: `text("again")`, YieldTimeMs: forever()})
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.InitialResponse(bg(t))
		if err != nil || c.CellID != want || r.CellID != want {
			t.Fatalf("cell %q, response %+v, %v; want %q", c.CellID, r, err, want)
		}
	}
	for _, stale := range []codemode.CellID{"1", "g1:1", "g3:1"} {
		_, err := next.Wait(bg(t), codemode.WaitRequest{CellID: stale})
		if err == nil || err.Error() != "cell "+string(stale)+" belongs to a stale code-mode host generation" {
			t.Errorf("Wait(%q): %v", stale, err)
		}
	}
	if o, err := next.Wait(bg(t), codemode.WaitRequest{CellID: "g2:1"}); err != nil || !o.Missing || o.Response.CellID != "g2:1" {
		t.Fatalf("Wait(g2:1) of a closed cell: %+v, %v", o, err)
	}
	_ = next.Shutdown(bg(t))
}

func TestOversizedExecuteRequestDoesNotCloseTheSharedHost(t *testing.T) {
	p := newProcessProvider(t)
	sess, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Shutdown(bg(t))
	_, err = sess.Execute(bg(t), codemode.ExecuteRequest{Source: strings.Repeat("x", 64<<20)})
	if err == nil || !strings.HasPrefix(err.Error(), "code-mode execute request exceeds the IPC frame limit: code-mode IPC frame length ") {
		t.Fatalf("err = %v", err)
	}
	c, err := sess.Execute(bg(t), codemode.ExecuteRequest{Source: `text("fine")`, YieldTimeMs: forever()})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.InitialResponse(bg(t)); err != nil || r.Kind != codemode.Result {
		t.Fatalf("after the oversized request: %+v, %v", r, err)
	}
}

func TestOversizedDelegatePayloadsFailOnlyTheToolCall(t *testing.T) {
	p := newProcessProvider(t)
	rec := codemodetest.NewRecorder()
	rec.Handle("big", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return json.RawMessage(`"` + strings.Repeat("x", 64<<20) + `"`), nil
	})
	sess, err := p.CreateSession(bg(t), rec, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Shutdown(bg(t))
	c, err := sess.Execute(bg(t), codemode.ExecuteRequest{Source: `try { await tools.big({}); } catch (e) { text(String(e)); }`, EnabledTools: []codemode.ToolDefinition{functionTool("big")}, YieldTimeMs: forever()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.InitialResponse(bg(t))
	if err != nil || len(r.ContentItems) != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
	text := r.ContentItems[0].(codemode.InputText).Text
	if !strings.HasPrefix(text, "code-mode delegate response exceeds the IPC frame limit: code-mode IPC frame length ") {
		t.Fatalf("the script saw %q", text)
	}
}

func TestOversizedInitialResponseDoesNotCloseTheSharedHost(t *testing.T) {
	testenv.Long(t, "moves a response past the frame limit")
	p := newProcessProvider(t)
	sess, err := p.CreateSession(bg(t), codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Shutdown(bg(t))
	c, err := sess.Execute(bg(t), codemode.ExecuteRequest{Source: `text("\u0001".repeat(12 << 20));` /* 12 MiB of text, 72 MiB as JSON */, YieldTimeMs: forever()})
	if err != nil {
		t.Fatal(err)
	}
	// The host keeps what fits a frame and says what it dropped (v1host/fit.go); the shared
	// host process then serves the next cell.
	r, err := c.InitialResponse(bg(t))
	if err != nil || len(r.ContentItems) != 1 || !strings.HasPrefix(r.ContentItems[0].(codemode.InputText).Text, "[codemode dropped 1 of 1 output items") {
		t.Fatalf("initial response %+v, %v", r.ContentItems, err)
	}
	c2, err := sess.Execute(bg(t), codemode.ExecuteRequest{Source: `text("fine")`, YieldTimeMs: forever()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.InitialResponse(bg(t)); err != nil {
		t.Fatal(err)
	}
}
