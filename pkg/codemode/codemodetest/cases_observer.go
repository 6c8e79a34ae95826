package codemodetest

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// observerCases cover yielding, resuming and the one-observer rule (docs/protocol/javascript.md#observers, docs/protocol/javascript.md#yield_control).
func observerCases() []testCase {
	return []testCase{
		{"yields_and_resumes", testYieldsAndResumes},
		{"yield_control_delivers_to_the_initial_observer", testYieldControlInitialObserver},
		{"yield_control_delivers_to_a_waiting_observer", testYieldControlWaitingObserver},
		{"yield_control_without_an_observer_keeps_output_buffered", testYieldControlWithoutObserver},
		{"yielded_cell_keeps_running", testYieldedCellKeepsRunning},
		{"second_observer_is_rejected_without_displacing_the_first", testSecondObserverRejected},
		{"wait_during_the_initial_observation_is_rejected", testWaitDuringInitialObservation},
		{"observation_dropped_before_dequeue_does_not_consume_output", testDroppedBeforeDequeue},
		{"dropped_yield_observer_preserves_output_for_the_next_observation", testDroppedYieldObserver},
	}
}

// gateTools enables one function tool per name and scripts each as a gate; the gates are returned
// in the same order.
func (f *fixture) gateTools(names ...string) (execOption, []*Gate) {
	var defs []codemode.ToolDefinition
	var gates []*Gate
	for _, n := range names {
		g := NewGate()
		f.rec.Handle(n, g.Tool(`"`+n+` released"`))
		defs = append(defs, functionTool(n))
		gates = append(gates, g)
	}
	return withTools(defs...), gates
}

// yield_control() answers the initial response with the output so far; the cell runs on and the
// next wait returns only what came after, with the Result.
func testYieldsAndResumes(t *testing.T, h *harness) {
	f := h.session()
	c := f.execute(`text("before"); yield_control(); text("after");`)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("before")})
	checkResult(t, "wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("after")...)
}

// yield_control() answers the pending observer at once with exactly the output so far.
func testYieldControlInitialObserver(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`text("a"); yield_control(); text("b"); await tools.gate(); text("c");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	f.awaitToolCall("gate", 1)
	checkResponse(t, "wait", f.waitLive(c.CellID, 0), want{kind: codemode.Yielded, cell: c.CellID, items: texts("b")})
	gates[0].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("c")...)
}

// A Wait is "the current observer" just like the initial response: yield_control() answers it with
// the output since the previous observation, and text printed after the call stays buffered.
func testYieldControlWaitingObserver(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate", "later")
	c := f.execute(`text("a"); yield_control(); await tools.gate(); text("b"); yield_control(); text("b2"); await tools.later(); text("c");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	f.awaitToolCall("gate", 1)
	pending := f.startObservedWait(c.CellID)
	gates[0].Release()
	checkResponse(t, "observed wait", pending.live(f), want{kind: codemode.Yielded, cell: c.CellID, items: texts("b")})
	f.awaitToolCall("later", 1)
	checkResponse(t, "wait", f.waitLive(c.CellID, 0), want{kind: codemode.Yielded, cell: c.CellID, items: texts("b2")})
	gates[1].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("c")...)
}

// Without an observer yield_control() is a no-op: output keeps accumulating for the next wait.
func testYieldControlWithoutObserver(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`text("a"); yield_control(); text("b"); yield_control(); text("c"); await tools.gate(); text("d");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	f.awaitToolCall("gate", 1)
	checkResponse(t, "wait", f.waitLive(c.CellID, 0), want{kind: codemode.Yielded, cell: c.CellID, items: texts("b", "c")})
	gates[0].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("d")...)
}

// After yielding, nobody observes the cell, yet it goes on to its next tool call.
func testYieldedCellKeepsRunning(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("step", Returns(`{"step":1}`))
	tools, gates := f.gateTools("gate")
	c := f.execute(`text("a"); yield_control(); const s = await tools.step(); text("step " + s.step); await tools.gate(); text("c");`,
		tools, withTools(functionTool("step")))
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	f.awaitToolCall("gate", 1)
	gates[0].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("step 1", "c")...)
}

func testSecondObserverRejected(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`yield_control(); await tools.gate(); text("done");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitToolCall("gate", 1)
	first := f.startObservedWait(c.CellID)
	_, err := f.tryWait(context.Background(), c.CellID, foreverMs)
	checkErrorText(t, "second Wait", err, "exec cell "+string(c.CellID)+" already has an active observer")
	gates[0].Release()
	checkResult(t, "first observer", first.live(f), c.CellID, texts("done")...)
}

// The initial response is the cell's observer from admission until it is answered.
func testWaitDuringInitialObservation(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`await tools.gate(); text("done");`, tools)
	f.awaitToolCall("gate", 1)
	_, err := f.tryWait(context.Background(), c.CellID, 0)
	checkErrorText(t, "Wait before the initial response", err, "exec cell "+string(c.CellID)+" already has an active observer")
	gates[0].Release()
	checkResult(t, "initial response", f.initial(c), c.CellID, texts("done")...)
}

// A Wait whose ctx is already cancelled either fails without taking anything or returns what it
// took; either way no output is lost for the next observation.
func testDroppedBeforeDequeue(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`text("a"); yield_control(); text("b"); await tools.gate(); text("c");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	f.awaitToolCall("gate", 1)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := f.sess.Wait(cancelled, codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: 0})
	if err == nil {
		checkResponse(t, "Wait with a cancelled ctx that still answered", checkLive(t, "cancelled Wait", o),
			want{kind: codemode.Yielded, cell: c.CellID, items: texts("b")})
	} else {
		checkResponse(t, "Wait after a cancelled one", f.waitLive(c.CellID, 0),
			want{kind: codemode.Yielded, cell: c.CellID, items: texts("b")})
	}
	gates[0].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("c")...)
}

// A pending Wait whose caller goes away stops observing: its Wait returns an error, the next Wait
// is accepted at once (no "already has an active observer"), and output is not lost.
func testDroppedYieldObserver(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate", "later")
	c := f.execute(`yield_control(); await tools.gate(); text("b"); await tools.later(); text("c");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitToolCall("gate", 1)
	dropped := f.startObservedWait(c.CellID)
	dropped.cancel()
	if o, err := dropped.result(f); err == nil {
		t.Fatalf("Wait returned %s after its ctx was cancelled while the cell was blocked, want an error", describe(o.Response))
	}
	gates[0].Release()
	f.awaitToolCall("later", 1)
	checkResponse(t, "next wait", f.waitLive(c.CellID, 0), want{kind: codemode.Yielded, cell: c.CellID, items: texts("b")})
	gates[1].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("c")...)
}
