package codemodetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// timeCases steer the clock (FakeTime): yield deadlines, the 1 s grace of long yields (docs/protocol/javascript.md#yield-deadlines),
// and the termination of a cell whose callback ignores cancellation. Codex runs them on tokio's
// paused clock; on the real clock they would race it, so they are skipped there.
func timeCases() []testCase {
	return []testCase{
		{"yield_deadline_returns_the_output_so_far_and_the_cell_keeps_running", testYieldDeadline},
		{"execute_waits_for_nested_tool_during_yield_grace", testExecuteWaitsDuringGrace},
		{"wait_waits_for_nested_tool_during_yield_grace", testWaitWaitsDuringGrace},
		{"execute_and_wait_clamp_yield_grace_without_stopping_the_cell", testGraceClampedBySessionLimit},
		{"repeated_termination_is_rejected_while_callback_cleanup_is_pending", testRepeatedTermination},
	}
}

// The deadline counts from the start of the cell's runtime and passes while the cell waits for its
// first tool: the Yielded holds exactly the text before it, and later observations return only
// what came after.
func testYieldDeadline(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("first", "second")
	c := f.execute(`text("a"); await tools.first(); text("b"); await tools.second(); text("c");`, tools, yieldAfter(200))
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	gates[0].Release()
	f.awaitToolCall("second", 1)
	checkResponse(t, "wait", f.waitLive(c.CellID, 0), want{kind: codemode.Yielded, cell: c.CellID, items: texts("b")})
	gates[1].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("c")...)
}

// A yield time of 10 s becomes 11 s: a tool that answers at 10.5 s still makes it into the
// initial response, which is then the Result.
func testExecuteWaitsDuringGrace(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("echo")
	c := f.execute(`await tools.echo({}); text("done");`, tools, yieldAfter(10_000))
	initial := startInitial(c)
	f.awaitToolCall("echo", 1)
	h.advance(10_500 * time.Millisecond)
	gates[0].Release()
	f.awaitClosed(initial.done, "the initial response")
	if initial.err != nil {
		t.Fatalf("initial response: %v", initial.err)
	}
	checkResult(t, "initial response", initial.response, c.CellID, texts("done")...)
}

// The grace applies to wait as it does to execute.
func testWaitWaitsDuringGrace(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	tools, gates := f.gateTools("echo")
	c := f.execute(`await tools.echo({}); text("done");`, tools, yieldAfter(0))
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitToolCall("echo", 1)
	w := f.startWait(c.CellID, 10_000)
	h.advance(10_500 * time.Millisecond)
	gates[0].Release()
	checkResult(t, "wait", w.live(f), c.CellID, texts("done")...)
}

// The session limit caps the yield after the grace: with a 10 s limit the default 10 s exec
// yields at exactly 10 s (not 11), a 10 s wait likewise, and the cell keeps running throughout.
func testGraceClampedBySessionLimit(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.sessionWithLimits(yieldLimit(10_000))
	tools, gates := f.gateTools("echo")
	c := f.execute(`await tools.echo({}); text("done");`, tools, defaultYield())
	initial := startInitial(c)
	f.awaitToolCall("echo", 1)
	h.advance(9_999 * time.Millisecond)
	if h.isDone(initial.done) {
		t.Fatalf("initial response after 9 999 ms under a 10 s limit: %s, %v", describe(initial.response), initial.err)
	}
	h.advance(time.Millisecond)
	if !h.isDone(initial.done) {
		t.Fatal("no initial response after 10 s under a 10 s limit")
	}
	checkResponse(t, "initial response", initial.response, want{kind: codemode.Yielded, cell: c.CellID})

	w := f.startWait(c.CellID, 10_000)
	h.advance(10 * time.Second)
	if !h.isDone(w.done) {
		t.Fatal("a 10 s wait under a 10 s limit did not yield after 10 s")
	}
	checkResponse(t, "wait", w.live(f), want{kind: codemode.Yielded, cell: c.CellID})

	gates[0].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, 10_000), c.CellID, texts("done")...)
}

// While a terminate waits for a callback that ignores cancellation, a second terminate fails with
// Codex's text. (A session may give up on such a callback after a grace period; only a clock the
// test controls guarantees the second terminate comes within it.)
func testRepeatedTermination(t *testing.T, h *harness) {
	h.requireFakeTime()
	f := h.session()
	release := make(chan struct{})
	f.rec.Handle("stubborn", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		<-release
		return nil, context.Canceled
	})
	c := f.execute(`await tools.stubborn({});`, withTools(functionTool("stubborn")))
	call := f.awaitToolCall("stubborn", 1)
	ctx, cancel := bg()
	defer cancel()
	first := startTerminate(ctx, f.sess, c.CellID)
	f.awaitClosed(call.Cancelled(), "cancellation of the callback by the first terminate")
	_, err := f.sess.Terminate(ctx, c.CellID)
	checkErrorText(t, "second terminate", err, "exec cell "+string(c.CellID)+" is already terminating")
	close(release)
	f.awaitClosed(first.done, "the first terminate's return")
	if first.err != nil {
		t.Fatalf("first terminate: %v", first.err)
	}
	checkResponse(t, "first terminate", checkLive(t, "first terminate", first.outcome), want{kind: codemode.Terminated, cell: c.CellID})
	f.awaitCellClosed(c.CellID)
}

// pendingTerminate is a Terminate running in the background.
type pendingTerminate struct {
	done    chan struct{}
	outcome codemode.WaitOutcome
	err     error
}

func startTerminate(ctx context.Context, s codemode.Session, id codemode.CellID) *pendingTerminate {
	p := &pendingTerminate{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.outcome, p.err = s.Terminate(ctx, id)
	}()
	return p
}
