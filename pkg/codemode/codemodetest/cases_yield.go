package codemodetest

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// yieldCases cover Codex 0.169's observation controls: YieldNow (operation/yield, the
// YieldObservation RPC) and the buffered time of a Result (result_buffered_for_ns).
func yieldCases() []testCase {
	return []testCase{
		{"yield_now_ends_the_initial_observation_and_the_cell_keeps_running", testYieldNowInitial},
		{"yield_now_closed_before_a_wait_answers_it_at_once", testYieldNowWait},
		{"yield_now_after_the_answer_changes_nothing", testYieldNowLate},
		{"a_result_reports_how_long_it_waited_for_an_observer", testBufferedFor},
	}
}

// withYieldNow makes the execute's initial observation end when now is closed.
func withYieldNow(now <-chan struct{}) execOption {
	return func(r *codemode.ExecuteRequest) { r.YieldNow = now }
}

// YieldNow ends the initial observation with the output so far, as an elapsed yield time would;
// the cell goes on and a later wait gets the rest.
func testYieldNowInitial(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	now := make(chan struct{})
	c := f.execute(`text("a"); await tools.gate(); text("b");`, tools, withYieldNow(now))
	f.awaitToolCall("gate", 1)
	close(now)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	gates[0].Release()
	checkResult(t, "wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("b")...)
}

// A wait whose YieldNow is already closed answers at once with the output so far, however long
// its yield time.
func testYieldNowWait(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`yield_control(); text("a"); await tools.gate(); text("b");`, tools)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitToolCall("gate", 1)
	now := make(chan struct{})
	close(now)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	o, err := f.sess.Wait(ctx, codemode.WaitRequest{CellID: c.CellID, YieldTimeMs: foreverMs, YieldNow: now})
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	checkResponse(t, "yielded wait", checkLive(t, "yielded wait", o), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	gates[0].Release()
	checkResult(t, "final wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("b")...)
}

// Closing YieldNow after the observation was answered affects no later observation.
func testYieldNowLate(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	now := make(chan struct{})
	c := f.execute(`text("a"); yield_control(); await tools.gate(); text("b");`, tools, withYieldNow(now))
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID, items: texts("a")})
	close(now)
	f.awaitToolCall("gate", 1)
	pending := f.startObservedWait(c.CellID)
	gates[0].Release()
	checkResult(t, "wait", pending.live(f), c.CellID, texts("b")...)
}

// A Result handed to the observer that watched the cell finish waited 0; one that finished
// unobserved reports the time until the Wait collected it.
func testBufferedFor(t *testing.T, h *harness) {
	f := h.session()
	live := f.initial(f.execute(`text("x");`))
	if live.BufferedFor == nil || *live.BufferedFor != 0 {
		t.Errorf("a Result observed as it finished reports BufferedFor %v, want 0", live.BufferedFor)
	}
	c := f.execute(`yield_control(); store("done", true);`)
	checkResponse(t, "initial response", f.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	f.awaitCommitted("done")
	r := f.waitLive(c.CellID, foreverMs)
	checkResult(t, "buffered result", r, c.CellID)
	switch {
	case r.BufferedFor == nil:
		t.Errorf("a Result collected after it finished reports no BufferedFor")
	case *r.BufferedFor < 0, !h.fakeTime && *r.BufferedFor == 0:
		t.Errorf("a Result collected after it finished reports BufferedFor %v, want the time since it finished", *r.BufferedFor)
	}
}
