package codemodetest

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// terminationCases cover terminate, missing cells, abandoned cells and CellClosed (docs/protocol/javascript.md#termination).
func terminationCases() []testCase {
	return []testCase{
		{"terminate_returns_the_buffered_output", testTerminateBufferedOutput},
		{"termination_cancels_pending_callbacks_before_responding", testTerminationCancelsCallbacks},
		{"observed_natural_completion_wins_over_termination", testCompletionWinsOverTermination},
		{"only_the_first_termination_claims_a_buffered_completion", testOnlyFirstTerminationClaimsCompletion},
		{"queued_termination_preempts_unobserved_runtime_completion", testQueuedTerminationPreemptsCompletion},
		{"termination_rejects_a_waiting_store_commit_before_the_next_cell_can_load_it", testTerminationRejectsWaitingCommit},
		{"terminate_execution_stops_cpu_bound_module", testTerminateStopsCPUBoundModule},
		{"terminate_stops_a_module_computing_after_an_awaited_call", testTerminateStopsComputeAfterAwait},
		{"failed_completion_delivery_rebuffers_the_event", testCompletionNotLostToGoneObserver},
		{"yield_timer_preempts_buffered_runtime_output", testZeroYieldPreemptsOutput},
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

// completesUnobserved is a cell that yields to its initial observer, then completes with "done"
// while nobody observes it; its last stored value tells when it has (awaitCommitted).
const completesUnobserved = `yield_control(); store("finished", true); text("done");`

// startCompletedUnobserved runs completesUnobserved until it has completed, unobserved.
func (f *fixture) startCompletedUnobserved() codemode.CellID {
	f.t.Helper()
	c := f.execute(completesUnobserved)
	checkResponse(f.t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitCommitted("finished")
	return c.CellID
}

// A cell that completed while nobody observed it still reports its Result to a terminate.
func testCompletionWinsOverTermination(t *testing.T, h *harness) {
	f := h.session()
	id := f.startCompletedUnobserved()
	checkResult(t, "terminate after unobserved completion", checkLive(t, "terminate", f.terminate(id)), id, texts("done")...)
	f.awaitCellClosed(id)
}

// Of terminates racing for a completed, unobserved cell exactly one gets its Result; the others
// find the cell gone (or, while the first still holds its claim, already terminating).
func testOnlyFirstTerminationClaimsCompletion(t *testing.T, h *harness) {
	f := h.session()
	id := f.startCompletedUnobserved()
	ctx, cancel := bg()
	defer cancel()
	racers := make([]*pendingTerminate, 4)
	for i := range racers {
		racers[i] = startTerminate(ctx, f.sess, id)
	}
	results := 0
	for _, r := range racers {
		f.awaitClosed(r.done, "a racing terminate's return")
		switch {
		case r.err != nil:
			checkErrorText(t, "racing terminate", r.err, "exec cell "+string(id)+" is already terminating")
		case r.outcome.Missing:
			checkMissing(t, "racing terminate", r.outcome, id)
		default:
			checkResult(t, "racing terminate", r.outcome.Response, id, texts("done")...)
			results++
		}
	}
	if results != 1 {
		t.Fatalf("%d terminates received the completion, want exactly 1", results)
	}
	f.awaitCellClosed(id)
}

// holdsCompletion is a cell whose script has finished but whose completion waits for its
// notification to be delivered, which the delegate holds: the completion is queued, not
// published. Its output and stored value are what a published completion would carry.
const holdsCompletion = `store("candidate", "lost"); text("uncommitted output"); notify("hold");`

// startHeldCompletion runs holdsCompletion until its completion is queued behind the held
// notification.
func (f *fixture) startHeldCompletion() *codemode.StartedCell {
	f.t.Helper()
	f.rec.HandleNotify(NewGate().Notify())
	c := f.execute(holdsCompletion)
	ctx, cancel := bg()
	defer cancel()
	if _, err := f.rec.AwaitNotifications(ctx, 1); err != nil {
		f.t.Fatal(err)
	}
	f.h.settle()
	return c
}

// A terminate that arrives while the completion is queued wins over it: the terminate and the
// waiting initial response both get Terminated, never the Result.
func testQueuedTerminationPreemptsCompletion(t *testing.T, h *harness) {
	f := h.session()
	c := f.startHeldCompletion()
	initial := startInitial(c)
	checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)),
		want{kind: codemode.Terminated, cell: c.CellID, items: texts("uncommitted output")})
	f.awaitClosed(initial.done, "the initial response")
	if initial.err != nil {
		t.Fatalf("initial response: %v", initial.err)
	}
	checkResponse(t, "initial response", initial.response, want{kind: codemode.Terminated, cell: c.CellID})
	f.awaitCellClosed(c.CellID)
}

// The stored value of a completion that a terminate preempted is never committed: the next cell
// cannot load it.
func testTerminationRejectsWaitingCommit(t *testing.T, h *harness) {
	f := h.session()
	c := f.startHeldCompletion()
	checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)),
		want{kind: codemode.Terminated, cell: c.CellID, items: texts("uncommitted output")})
	f.awaitCellClosed(c.CellID)
	reader := f.execute(`text(String(load("candidate")));`)
	checkResult(t, "next cell", f.initial(reader), reader.CellID, texts("undefined")...)
}

// Terminate stops a script that never yields, also inside a getter a helper called, whose error
// handling must not swallow the stop. The notification tells that the script is running.
func testTerminateStopsCPUBoundModule(t *testing.T, h *harness) {
	f := h.session()
	sources := []string{
		`notify("started"); while (true) {}`,
		`let reads = 0;
const value = { get image_url() { if (++reads === 1) throw new Error("enter fallback"); notify("started"); while (true) {} } };
try { image(value); } catch {}
try { image(value); } catch {}
text("continued after cancellation");`,
	}
	for i, src := range sources {
		c := f.execute(src)
		ctx, cancel := bg()
		if _, err := f.rec.AwaitNotifications(ctx, i+1); err != nil {
			cancel()
			t.Fatal(err)
		}
		cancel()
		checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)), want{kind: codemode.Terminated, cell: c.CellID})
		f.awaitCellClosed(c.CellID)
	}
}

// A cell that computes for ever once an awaited call was answered is still stopped by a terminate:
// a host that runs the answer's turn where it read the answer reads on elsewhere meanwhile
// (docs/adr/0075-a-round-trip-on-one-thread.md).
func testTerminateStopsComputeAfterAwait(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("echo", Echo())
	c := f.execute(`await tools.echo({n: 1}); notify("started"); while (true) {}`, withTools(functionTool("echo")))
	ctx, cancel := bg()
	defer cancel()
	if _, err := f.rec.AwaitNotifications(ctx, 1); err != nil {
		t.Fatal(err)
	}
	checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)), want{kind: codemode.Terminated, cell: c.CellID})
	f.awaitCellClosed(c.CellID)
}

// An observation whose caller is gone does not take the completion with it: a Wait whose ctx has
// ended fails and leaves the Result for the next observation.
func testCompletionNotLostToGoneObserver(t *testing.T, h *harness) {
	f := h.session()
	id := f.startCompletedUnobserved()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if o, err := f.sess.Wait(gone, codemode.WaitRequest{CellID: id, YieldTimeMs: 0}); err == nil {
		t.Fatalf("Wait with an ended ctx returned %s, want its error", describe(o.Response))
	}
	if n := f.rec.CellClosedCount(id); n != 0 {
		t.Fatalf("the completion was consumed by a Wait whose caller was gone: CellClosed called %d times", n)
	}
	checkResult(t, "next wait", f.waitLive(id, 0), id, texts("done")...)
	f.awaitCellClosed(id)
}

// A zero yield time answers before the script runs: the initial response is empty even though
// the script writes at once, and the text waits for the next observation (here a terminate).
func testZeroYieldPreemptsOutput(t *testing.T, h *harness) {
	f := h.session()
	tools, _ := f.gateTools("gate")
	c := f.execute(`text("queued output"); await tools.gate();`, tools, yieldAfter(0))
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitToolCall("gate", 1)
	checkResponse(t, "terminate", checkLive(t, "terminate", f.terminate(c.CellID)),
		want{kind: codemode.Terminated, cell: c.CellID, items: texts("queued output")})
	f.awaitCellClosed(c.CellID)
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
// Result was delivered.
func testCellClosedFollowsTerminalResponse(t *testing.T, h *harness) {
	f := h.session()
	id := f.startCompletedUnobserved()
	if n := f.rec.CellClosedCount(id); n != 0 {
		t.Fatalf("CellClosed(%q) was called %d times before the completion was observed", id, n)
	}
	checkResult(t, "wait", f.waitLive(id, foreverMs), id, texts("done")...)
	f.awaitCellClosed(id)
}
