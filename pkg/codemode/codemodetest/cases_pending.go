package codemodetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// pendingCases cover the pending-frontier API (codemode.PendingSession; docs/protocol/javascript.md#the-pending-frontier:
// ExecuteToPendingOutcome and WaitToPendingOutcome). They are skipped for sessions that do not
// implement it: Codex offers it in process only. Cases that release a tool and then expect the
// next frontier to reflect its result need FakeTime, which tells when the result has reached the
// paused cell.
func pendingCases() []testCase {
	return []testCase{
		{"execute_to_pending_returns_completed_for_synchronous_results", testPendingCompletedSynchronously},
		{"execute_to_pending_returns_once_the_runtime_is_quiescent", testPendingQuiescent},
		{"execute_to_pending_identifies_tool_calls_in_paused_frontier", testPendingIdentifiesToolCalls},
		{"execute_to_pending_excludes_delayed_timeout_tool_calls_until_wait", testPendingExcludesDelayedCalls},
		{"wait_to_pending_returns_after_resumed_runtime_becomes_quiescent_again", testWaitToPendingQuiescentAgain},
		{"wait_to_pending_returns_completed_after_resumed_runtime_finishes", testWaitToPendingCompleted},
		{"returns_and_resumes_from_the_pending_frontier", testReturnsAndResumesFromFrontier},
		{"pending_mode_freezes_runtime_commands_until_resume", testPendingModeFreezes},
		{"wait_resumes_a_paused_cell_for_good", testWaitLeavesPendingMode},
		{"wait_to_pending_reports_missing_cell", testWaitToPendingMissingCell},
		{"dropped_pending_observer_preserves_the_frontier_for_the_next_observation", testDroppedPendingObserverKeepsFrontier},
		{"pending_observer_merges_initial_yield_and_completion_output", testPendingObserverMergesInitialYield},
		{"dropped_pending_observation_preserves_the_initial_yield_boundary", testDroppedPendingObservationKeepsBoundary},
		{"buffered_initial_yield_precedes_buffered_completion_for_yield_observer", testInitialYieldPrecedesCompletion},
	}
}

// pendingSession returns the session's pending-frontier API or skips the case.
func (f *fixture) pendingSession() codemode.PendingSession {
	f.t.Helper()
	ps, ok := f.sess.(codemode.PendingSession)
	if !ok {
		f.t.Skip("the session does not implement codemode.PendingSession (Codex offers it in process only)")
	}
	return ps
}

// executeToPending runs a cell to its first frontier or its end.
func (f *fixture) executeToPending(source string, opts ...execOption) codemode.ExecuteToPendingOutcome {
	f.t.Helper()
	ps := f.pendingSession()
	ctx, cancel := bg()
	defer cancel()
	o, err := ps.ExecuteToPending(ctx, f.request(source, opts...))
	if err != nil {
		f.t.Fatalf("ExecuteToPending: %v", err)
	}
	f.admit(o.CellID())
	return o
}

// startUnobserved admits a cell through ExecuteToPending with a ctx that has already ended: the
// first observation is dropped before it began, so the cell runs with no observer at all.
func (f *fixture) startUnobserved(source string, opts ...execOption) codemode.CellID {
	f.t.Helper()
	ps := f.pendingSession()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := ps.ExecuteToPending(ctx, f.request(source, opts...))
	var unobserved *codemode.UnobservedCellError
	if !errors.As(err, &unobserved) || !errors.Is(err, context.Canceled) {
		f.t.Fatalf("ExecuteToPending with an ended ctx: %+v, %v; want an UnobservedCellError wrapping context.Canceled", o, err)
	}
	f.admit(unobserved.CellID)
	return unobserved.CellID
}

// waitToPending observes a live cell until its next frontier or its end.
func (f *fixture) waitToPending(id codemode.CellID) codemode.ExecuteToPendingOutcome {
	f.t.Helper()
	ctx, cancel := bg()
	defer cancel()
	o, err := f.pendingSession().WaitToPending(ctx, codemode.WaitToPendingRequest{CellID: id})
	if err != nil {
		f.t.Fatalf("WaitToPending(%q): %v", id, err)
	}
	if o.Missing {
		f.t.Fatalf("WaitToPending(%q) reported a missing cell: %s", id, describe(o.Outcome.Response))
	}
	return o.Outcome
}

// checkFrontier fails the test unless o is a frontier of cell with exactly items and call IDs.
func checkFrontier(t *testing.T, label string, o codemode.ExecuteToPendingOutcome, cell codemode.CellID, items []codemode.ContentItem, ids ...string) {
	t.Helper()
	if ids == nil {
		ids = []string{}
	}
	fr := o.Frontier
	if o.Completed || fr.CellID != cell || !sameItems(fr.ContentItems, items) || fr.PendingToolCallIDs == nil || !reflect.DeepEqual(fr.PendingToolCallIDs, ids) {
		t.Fatalf("%s:\n got %s\nwant Pending{cell=%q items=%s tool calls %q}", label, describeOutcome(o), cell,
			describe(codemode.RuntimeResponse{ContentItems: items}), ids)
	}
}

// checkCompleted fails the test unless o is Completed with the response w.
func checkCompleted(t *testing.T, label string, o codemode.ExecuteToPendingOutcome, w want) {
	t.Helper()
	if !o.Completed {
		t.Fatalf("%s: got %s, want Completed", label, describeOutcome(o))
	}
	checkResponse(t, label, o.Response, w)
}

// describeOutcome renders an outcome for failure messages.
func describeOutcome(o codemode.ExecuteToPendingOutcome) string {
	if o.Completed {
		return "Completed(" + describe(o.Response) + ")"
	}
	return "Pending" + describe(codemode.RuntimeResponse{CellID: o.Frontier.CellID, ContentItems: o.Frontier.ContentItems}) +
		" tool calls " + jsStrings(o.Frontier.PendingToolCallIDs)
}

func jsStrings(ss []string) string {
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += jsString(s)
	}
	return out + "]"
}

// blockingEcho scripts "echo" to hold every call until the session cancels it.
func (f *fixture) blockingEcho() execOption {
	f.rec.Handle("echo", BlocksUntilCancelled())
	return withTools(functionTool("echo"))
}

// terminateFrontierCell terminates a cell whose output every frontier took.
func (f *fixture) terminateFrontierCell(id codemode.CellID) {
	f.t.Helper()
	checkResponse(f.t, "terminate", checkLive(f.t, "terminate", f.terminate(id)), want{kind: codemode.Terminated, cell: id})
}

func testPendingCompletedSynchronously(t *testing.T, h *harness) {
	f := h.session()
	o := f.executeToPending(`text("done");`)
	checkCompleted(t, "execute to pending", o, want{kind: codemode.Result, cell: o.CellID(), items: texts("done")})
}

func testPendingQuiescent(t *testing.T, h *harness) {
	f := h.session()
	o := f.executeToPending(`text("before"); await new Promise(() => {});`)
	checkFrontier(t, "execute to pending", o, o.CellID(), texts("before"))
	f.terminateFrontierCell(o.CellID())
}

func testPendingIdentifiesToolCalls(t *testing.T, h *harness) {
	f := h.session()
	o := f.executeToPending(`await Promise.all([tools.echo({ value: "first" }), tools.echo({ value: "second" })]);`, f.blockingEcho())
	checkFrontier(t, "execute to pending", o, o.CellID(), nil, "tool-1", "tool-2")
	f.terminateFrontierCell(o.CellID())
}

// A timer that falls due while the cell is paused does not fire until the cell is resumed, and
// the next frontier lists only the call its callback made.
func testPendingExcludesDelayedCalls(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	o := f.executeToPending(`setTimeout(() => { tools.echo({ value: "delayed" }); }, 1000);
await Promise.all([tools.echo({ value: "second" }), tools.echo({ value: "third" })]);`, f.blockingEcho())
	id := o.CellID()
	checkFrontier(t, "execute to pending", o, id, nil, "tool-1", "tool-2")
	h.advance(2 * time.Second)
	if n := len(f.rec.ToolCalls()); n != 2 {
		t.Fatalf("%d tool calls reached the delegate while the cell was paused, want 2", n)
	}
	checkFrontier(t, "wait to pending", f.waitToPending(id), id, nil, "tool-3")
	f.terminateFrontierCell(id)
}

func testWaitToPendingQuiescentAgain(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("echo")
	o := f.executeToPending(`await tools.echo({}); text("after"); await new Promise(() => {});`, tools)
	id := o.CellID()
	checkFrontier(t, "execute to pending", o, id, nil, "tool-1")
	gates[0].Release()
	h.settle()
	checkFrontier(t, "wait to pending", f.waitToPending(id), id, texts("after"))
	f.terminateFrontierCell(id)
}

func testWaitToPendingCompleted(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("echo")
	o := f.executeToPending(`await tools.echo({}); text("done");`, tools)
	checkFrontier(t, "execute to pending", o, o.CellID(), nil, "tool-1")
	gates[0].Release()
	h.settle()
	checkCompleted(t, "wait to pending", f.waitToPending(o.CellID()), want{kind: codemode.Result, cell: o.CellID(), items: texts("done")})
	f.awaitCellClosed(o.CellID())
}

// The frontier names the call the cell waits for; once the delegate answered it, the next pending
// observation resumes the cell and returns its completion.
func testReturnsAndResumesFromFrontier(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("block")
	o := f.executeToPending(`await tools.block({}); text("after");`, tools)
	checkFrontier(t, "execute to pending", o, o.CellID(), nil, "tool-1")
	call := f.awaitToolCall("block", 1)
	gates[0].Release()
	f.awaitClosed(call.Returned(), "the block call's return")
	h.settle()
	checkCompleted(t, "wait to pending", f.waitToPending(o.CellID()), want{kind: codemode.Result, cell: o.CellID(), items: texts("after")})
}

// While paused, nothing of the cell runs: its timer falls due without firing, and only the resume
// lets its callback run.
func testPendingModeFreezes(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	o := f.executeToPending(`await new Promise((resolve) => setTimeout(resolve, 60_000));
notify("fired"); text("after"); await new Promise(() => {});`)
	id := o.CellID()
	checkFrontier(t, "execute to pending", o, id, nil)
	h.advance(61 * time.Second)
	if n := len(f.rec.Notifications()); n != 0 {
		t.Fatalf("the paused cell ran: %d notifications", n)
	}
	checkFrontier(t, "wait to pending", f.waitToPending(id), id, texts("after"))
	ctx, cancel := bg()
	defer cancel()
	if _, err := f.rec.AwaitNotifications(ctx, 1); err != nil {
		t.Fatal(err)
	}
	f.terminateFrontierCell(id)
}

// A Wait takes a cell out of pending mode: it no longer pauses when it is quiescent, so the
// second call's result reaches it without another pending observation.
func testWaitLeavesPendingMode(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("first", "second")
	o := f.executeToPending(`await tools.first({}); await tools.second({}); text("done");`, tools)
	id := o.CellID()
	checkFrontier(t, "execute to pending", o, id, nil, "tool-1")
	w := f.startObservedWait(id)
	gates[0].Release()
	f.awaitToolCall("second", 1)
	gates[1].Release()
	checkResult(t, "wait", w.live(f), id, texts("done")...)
}

func testWaitToPendingMissingCell(t *testing.T, h *harness) {
	f := h.session()
	ps := f.pendingSession()
	ctx, cancel := bg()
	defer cancel()
	o, err := ps.WaitToPending(ctx, codemode.WaitToPendingRequest{CellID: "missing"})
	if err != nil || !o.Missing {
		t.Fatalf("WaitToPending of a never-admitted cell: %+v, %v; want a Missing outcome", o, err)
	}
	checkCompleted(t, "missing cell", o.Outcome, want{kind: codemode.Result, cell: "missing", errorText: strp("exec cell missing not found")})
}

// A cell whose pending observation was dropped stays in pending mode: it pauses at its frontier
// with nobody to hand it to, holds the result that arrives, and the next pending observation gets
// that frontier at once, without resuming the cell.
func testDroppedPendingObserverKeepsFrontier(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("echo")
	id := f.startUnobserved(`await tools.echo({}); notify("resumed"); text("after"); await new Promise(() => {});`, tools)
	f.awaitToolCall("echo", 1)
	h.settle()
	gates[0].Release()
	h.settle()
	checkFrontier(t, "first pending observation", f.waitToPending(id), id, nil, "tool-1")
	h.settle()
	if n := len(f.rec.Notifications()); n != 0 {
		t.Fatal("handing over the kept frontier resumed the cell")
	}
	checkFrontier(t, "second pending observation", f.waitToPending(id), id, texts("after"))
	f.terminateFrontierCell(id)
}

// initialYieldSource writes, yields before anybody observes the cell, writes again and completes;
// its last act commits "finished".
const initialYieldSource = `text("before"); yield_control(); text("after"); store("finished", true);`

// A pending observer takes a completed cell's output whole: the initial yield and the completion.
func testPendingObserverMergesInitialYield(t *testing.T, h *harness) {
	f := h.session()
	id := f.startUnobserved(initialYieldSource)
	f.awaitCommitted("finished")
	checkCompleted(t, "wait to pending", f.waitToPending(id), want{kind: codemode.Result, cell: id, items: texts("before", "after")})
}

// A pending observation that is dropped before it began consumes nothing: the initial yield
// still answers the next yielding observation, the completion the one after.
func testDroppedPendingObservationKeepsBoundary(t *testing.T, h *harness) {
	f := h.session()
	id := f.startUnobserved(initialYieldSource)
	f.awaitCommitted("finished")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if o, err := f.pendingSession().WaitToPending(ctx, codemode.WaitToPendingRequest{CellID: id}); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitToPending with an ended ctx: %s, %v; want context.Canceled", describeOutcome(o.Outcome), err)
	}
	checkResponse(t, "first wait", f.waitLive(id, 0), want{kind: codemode.Yielded, cell: id, items: texts("before")})
	checkResult(t, "second wait", f.waitLive(id, 0), id, texts("after")...)
}

// The initial yield comes first even when the cell completed before anybody looked, and even for
// a wait that would never yield by deadline.
func testInitialYieldPrecedesCompletion(t *testing.T, h *harness) {
	f := h.session()
	id := f.startUnobserved(initialYieldSource)
	f.awaitCommitted("finished")
	checkResponse(t, "first wait", f.waitLive(id, foreverMs), want{kind: codemode.Yielded, cell: id, items: texts("before")})
	checkResult(t, "second wait", f.waitLive(id, foreverMs), id, texts("after")...)
}
