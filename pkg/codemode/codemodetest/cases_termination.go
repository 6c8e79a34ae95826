package codemodetest

import (
	"context"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// terminationCases cover terminate, missing cells, abandoned cells and CellClosed (spec §1.4).
func terminationCases() []testCase {
	return []testCase{
		{"terminate_returns_the_buffered_output", testTerminateBufferedOutput},
		{"termination_cancels_pending_callbacks_before_responding", testTerminationCancelsCallbacks},
		{"observed_natural_completion_wins_over_termination", testCompletionWinsOverTermination},
		{"wait_reports_missing_cell_separately_from_runtime_results", testWaitMissingCell},
		{"terminate_reports_missing_cell", testTerminateMissingCell},
		{"closed_cell_is_missing", testClosedCellIsMissing},
		{"abandoned_initial_response_terminates_the_cell", testAbandonedInitialResponse},
		{"cell_closed_follows_the_terminal_response", testCellClosedFollowsTerminalResponse},
	}
}

func testTerminateBufferedOutput(t *testing.T, h *harness) {
	f := h.session()
	tools, _ := f.gateTools("gate")
	c := f.execute(`text("a"); yield_control(); text("b"); await tools.gate(); text("never");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	call := f.awaitToolCall("gate", 1)
	o := f.terminate(c.CellID)
	checkResponse(t, "terminate", checkLive(t, "terminate", o), want{kind: codemode.Terminated, cell: c.CellID, items: texts("b")})
	f.awaitClosed(call.Cancelled(), "cancellation of the gate call of the terminated cell")
	f.awaitCellClosed(c.CellID)
	checkMissing(t, "wait after terminate", f.wait(c.CellID, 0), c.CellID)
	checkMissing(t, "terminate after terminate", f.terminate(c.CellID), c.CellID)
}

// Terminate cancels the cell's pending tool calls and notifications.
func testTerminationCancelsCallbacks(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("block", BlocksUntilCancelled())
	f.rec.HandleNotify(NewGate().Notify())
	c := f.execute(`notify("pending"); const p = tools.block({}); yield_control(); await p;`,
		withTools(functionTool("block")))
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	call := f.awaitToolCall("block", 1)
	ctx, cancel := bg()
	defer cancel()
	notes, err := f.rec.AwaitNotifications(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)), want{kind: codemode.Terminated, cell: c.CellID})
	f.awaitClosed(call.Cancelled(), "cancellation of the pending tool call")
	f.awaitClosed(notes[0].Cancelled(), "cancellation of the pending notification")
	f.awaitCellClosed(c.CellID)
}

// A cell that completed while nobody observed it still reports its Result to a terminate. The
// suite cannot see completion through the contract, so it lets the cell settle after its last
// tool call returned and retries with longer settling if termination won, failing only if
// termination wins every time.
func testCompletionWinsOverTermination(t *testing.T, h *harness) {
	f := h.session()
	var last codemode.RuntimeResponse
	for attempt, settle := range []time.Duration{200 * time.Millisecond, time.Second, 3 * time.Second} {
		tools, gates := f.gateTools("gate")
		c := f.execute(`text("a"); yield_control(); await tools.gate(); text("b");`, tools)
		checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
		call := f.awaitToolCall("gate", attempt+1)
		gates[0].Release()
		f.awaitClosed(call.Returned(), "the gate call's return")
		time.Sleep(settle)
		last = checkLive(t, "terminate", f.terminate(c.CellID))
		if last.Kind == codemode.Result {
			checkResult(t, "terminate after unobserved completion", last, c.CellID, texts("b")...)
			f.awaitCellClosed(c.CellID)
			return
		}
		checkResponse(t, "terminate that won", last, want{kind: codemode.Terminated, cell: c.CellID, items: texts("b")})
	}
	t.Fatalf("terminate of a completed but unobserved cell returned %s, want its Result", describe(last))
}

func testWaitMissingCell(t *testing.T, h *harness) {
	f := h.session()
	checkMissing(t, "wait on a never-admitted cell", f.wait("missing", 0), "missing")
	checkMissing(t, "wait on a never-admitted numeric cell", f.wait("7", foreverMs), "7")

	// Cells belong to their session: a live cell of another session is missing here.
	tools, gates := f.gateTools("gate")
	c := f.execute(`await tools.gate(); text("mine");`, tools)
	other := h.session()
	checkMissing(t, "wait on another session's cell", other.wait(c.CellID, 0), c.CellID)
	checkMissing(t, "terminate of another session's cell", other.terminate(c.CellID), c.CellID)
	gates[0].Release()
	checkResult(t, "the cell itself", f.initial(c), c.CellID, texts("mine")...)
}

func testTerminateMissingCell(t *testing.T, h *harness) {
	f := h.session()
	checkMissing(t, "terminate of a never-admitted cell", f.terminate("missing"), "missing")
}

// Once the Result was delivered and the owner told, the cell is gone.
func testClosedCellIsMissing(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "result", f.run(`text("done")`), "1", texts("done")...)
	f.awaitCellClosed("1")
	checkMissing(t, "wait on a closed cell", f.wait("1", 0), "1")
	checkMissing(t, "terminate of a closed cell", f.terminate("1"), "1")
}

// A caller that stops waiting for the initial response must not leave the cell running.
func testAbandonedInitialResponse(t *testing.T, h *harness) {
	f := h.session()
	tools, _ := f.gateTools("gate")
	c := f.execute(`await tools.gate(); text("never");`, tools)
	call := f.awaitToolCall("gate", 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := c.InitialResponse(ctx); err == nil {
		t.Fatalf("InitialResponse with a cancelled ctx returned %s, want an error", describe(r))
	}
	f.awaitClosed(call.Cancelled(), "cancellation of the abandoned cell's tool call")
	f.awaitCellClosed(c.CellID)
	checkMissing(t, "wait on the abandoned cell", f.wait(c.CellID, 0), c.CellID)
}

// CellClosed is not called while the cell's completion is unobserved; it is called once the
// Result was delivered. The negative half can only catch an early CellClosed that happens within
// the settle time; a correct session never fails it.
func testCellClosedFollowsTerminalResponse(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`text("a"); yield_control(); await tools.gate(); text("b");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	call := f.awaitToolCall("gate", 1)
	gates[0].Release()
	f.awaitClosed(call.Returned(), "the gate call's return")
	time.Sleep(300 * time.Millisecond)
	if n := f.rec.CellClosedCount(c.CellID); n != 0 {
		t.Fatalf("CellClosed(%q) was called %d times before the completion was observed", c.CellID, n)
	}
	checkResult(t, "wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("b")...)
	f.awaitCellClosed(c.CellID)
}
