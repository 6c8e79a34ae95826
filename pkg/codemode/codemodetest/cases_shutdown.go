package codemodetest

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// shutdownCases cover Session.Shutdown (docs/protocol/javascript.md#shutdown).
func shutdownCases() []testCase {
	return []testCase{
		{"shutdown_interrupts_cpu_bound_cells", testShutdownInterruptsCPUBoundCells},
		{"start_cell_rejects_new_cell_after_shutdown_begins", testExecuteAfterShutdown},
		{"shutdown_cancels_pending_tool_calls", testShutdownCancelsToolCalls},
		{"shutdown_cancels_notifications_while_natural_completion_is_draining", testShutdownCancelsDrainingNotifications},
	}
}

// pendingInitial reads a cell's initial response in the background.
type pendingInitial struct {
	done     chan struct{}
	response codemode.RuntimeResponse
	err      error
}

func startInitial(c *codemode.StartedCell) *pendingInitial {
	p := &pendingInitial{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		p.response, p.err = c.InitialResponse(ctx)
	}()
	return p
}

// checkEndedByShutdown fails the test unless the initial response returned, with an error or a
// terminal response (the contract does not pin which).
func (p *pendingInitial) checkEndedByShutdown(f *fixture, id codemode.CellID) {
	f.t.Helper()
	f.awaitClosed(p.done, "the return of the initial response of cell "+string(id)+" after Shutdown")
	if p.err == nil && (!p.response.IsTerminal() || p.response.CellID != id) {
		f.t.Fatalf("initial response of cell %q after Shutdown: %s, want an error or a terminal response", id, describe(p.response))
	}
}

func testShutdownInterruptsCPUBoundCells(t *testing.T, h *harness) {
	f := h.session()
	yielded := f.execute(`text("spin"); yield_control(); while (true) {}`)
	checkResponse(t, "initial response", f.initial(yielded), want{kind: codemode.Yielded, cell: yielded.CellID, items: texts("spin")})
	spinning := f.execute(`while (true) {}`)
	pending := startInitial(spinning)
	f.shutdown()
	pending.checkEndedByShutdown(f, spinning.CellID)
	f.awaitCellClosed(yielded.CellID)
	f.awaitCellClosed(spinning.CellID)
}

func testExecuteAfterShutdown(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "result before shutdown", f.run(`text("ok")`), "1", texts("ok")...)
	f.shutdown()
	_, err := f.tryExecute(`text("too late")`)
	checkErrorText(t, "Execute after Shutdown", err, "code mode session is shutting down")
}

func testShutdownCancelsToolCalls(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("block", BlocksUntilCancelled())
	c := f.execute(`await tools.block({}); text("never");`, withTools(functionTool("block")))
	pending := startInitial(c)
	call := f.awaitToolCall("block", 1)
	f.shutdown()
	f.awaitClosed(call.Cancelled(), "cancellation of the pending tool call by Shutdown")
	pending.checkEndedByShutdown(f, c.CellID)
	f.awaitCellClosed(c.CellID)
}

// A completed cell waits for its notifications before publishing the Result; Shutdown cuts that
// wait short by cancelling them.
func testShutdownCancelsDrainingNotifications(t *testing.T, h *harness) {
	f := h.session()
	f.rec.HandleNotify(NewGate().Notify())
	c := f.execute(`notify("draining"); text("done");`)
	pending := startInitial(c)
	ctx, cancel := bg()
	defer cancel()
	notes, err := f.rec.AwaitNotifications(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	f.shutdown()
	f.awaitClosed(notes[0].Cancelled(), "cancellation of the draining notification by Shutdown")
	pending.checkEndedByShutdown(f, c.CellID)
	f.awaitCellClosed(c.CellID)
}
