package codemodetest

import (
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// limitCases cover the session's MaxYieldTimeMs (docs/protocol/javascript.md#yield-deadlines). Yield times
// that would never elapse prove the cap: without it the operation would outlive opTimeout.
func limitCases() []testCase {
	return []testCase{
		{"zero_yield_limit_is_immediate_and_scoped_to_its_session", testZeroYieldLimit},
		{"execute_and_wait_clamp_yield_to_the_session_limit_without_stopping_the_cell", testYieldLimitClamps},
		{"zero_requested_yield_time_yields_at_once", testZeroRequestedYield},
		{"heap_limit_fails_the_cell_that_exceeds_it", testHeapLimit},
		{"a_result_too_large_for_the_wire_keeps_what_fits", testResultTooLargeForTheWire},
	}
}

// 12 MiB of a control character is within a cell's 64 MiB of output but takes 72 MiB as JSON,
// more than a V1 frame carries. The result must not be lost: it keeps its first and last items,
// and the large one is either carried whole (gRPC's protobuf does not escape it) or replaced by a
// text that says it was dropped (V1); the session then serves the next cell. Codex's V1 host
// answers with an error instead (an expected difference).
func testResultTooLargeForTheWire(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("important"); text("\u0001".repeat(12 << 20)); text("after");`)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(r.ContentItems) != 3 {
		t.Fatalf("a result too large for a frame: %.300s, want a Result of three items", describe(r))
	}
	first, _ := r.ContentItems[0].(codemode.InputText)
	large, _ := r.ContentItems[1].(codemode.InputText)
	last, _ := r.ContentItems[2].(codemode.InputText)
	whole := len(large.Text) == 12<<20 && last.Text == "after"
	dropped := large.Text == "after" && strings.HasPrefix(last.Text, "[codemode dropped 1 of 3 output items")
	if first.Text != "important" || !(whole || dropped) {
		t.Fatalf("items: %.80q, %.80q (%d bytes), %.120q; want the large one whole or dropped with a note", first.Text, large.Text[:min(len(large.Text), 80)], len(large.Text), last.Text)
	}
	checkResult(t, "next cell", f.run(`text("alive")`), "2", texts("alive")...)
}

// Without a session limit a requested yield time of 0 stays 0: the initial response yields at once.
func testZeroRequestedYield(t *testing.T, h *harness) {
	f := h.session()
	tools, gates := f.gateTools("gate")
	c := f.execute(`await tools.gate(); text("done");`, tools, yieldAfter(0))
	r := f.initial(c)
	if r.Kind != codemode.Yielded || r.ErrorText != nil || len(r.ContentItems) != 0 {
		t.Fatalf("initial response %s, want an empty Yielded", describe(r))
	}
	f.awaitToolCall("gate", 1)
	gates[0].Release()
	checkResult(t, "wait", f.waitLive(c.CellID, foreverMs), c.CellID, texts("done")...)
}

// Codex ignores MaxHeapSizeBytes; codemode enforces it (see codemode.SessionCellExecutionLimits):
// a cell that allocates past the limit fails, and the session goes on serving cells.
func testHeapLimit(t *testing.T, h *harness) {
	limit := uint64(32 << 20)
	f := h.sessionWithLimits(codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: &limit})
	r := f.run(`text("before"); const big = new ArrayBuffer(256 * 1024 * 1024); text("allocated " + big.byteLength);`)
	if r.Kind != codemode.Result || r.ErrorText == nil || !sameItems(r.ContentItems, texts("before")) {
		t.Fatalf("allocating 256 MiB under a 32 MiB heap limit: %s, want a failed Result with only the text before", describe(r))
	}
	checkResult(t, "next cell", f.run(`text("alive")`), "2", texts("alive")...)
}

func yieldLimit(ms uint64) codemode.SessionCellExecutionLimits {
	return codemode.SessionCellExecutionLimits{MaxYieldTimeMs: &ms}
}

// A zero limit answers every observation at once; a 10 ms limit in another session of the same
// provider is its own (it yields at 10 ms, not before), and a session without a limit keeps the
// requested yield time.
func testZeroYieldLimit(t *testing.T, h *harness) {
	zero := h.sessionWithLimits(yieldLimit(0))
	tools, gates := zero.gateTools("gate")
	c := zero.execute(`await tools.gate(); text("done");`, tools, yieldAfter(60_000))
	checkResponse(t, "initial response under a zero limit", zero.initial(c), want{kind: codemode.Yielded, cell: c.CellID})
	zero.awaitToolCall("gate", 1)
	checkResponse(t, "wait under a zero limit", zero.waitLive(c.CellID, 60_000), want{kind: codemode.Yielded, cell: c.CellID})

	limited := h.sessionWithLimits(yieldLimit(10))
	limitedTools, limitedGates := limited.gateTools("gate")
	lc := limited.execute(`await tools.gate();`, limitedTools, yieldAfter(60_000))
	limitedInitial := startInitial(lc)
	limited.awaitToolCall("gate", 1)
	if h.fakeTime {
		if h.isDone(limitedInitial.done) {
			t.Fatalf("a 10 ms limit answered before 10 ms: %s", describe(limitedInitial.response))
		}
		h.advance(10 * time.Millisecond)
	}
	limited.awaitClosed(limitedInitial.done, "the initial response under a 10 ms limit")
	checkResponse(t, "initial response under a 10 ms limit", limitedInitial.response, want{kind: codemode.Yielded, cell: lc.CellID})
	limitedGates[0].Release()

	free := h.session()
	freeTools, freeGates := free.gateTools("gate")
	fc := free.execute(`await tools.gate(); text("free");`, freeTools, yieldAfter(foreverMs))
	free.awaitToolCall("gate", 1)
	freeGates[0].Release()
	checkResult(t, "unlimited session", free.initial(fc), fc.CellID, texts("free")...)

	gates[0].Release()
	checkResult(t, "zero-limit session after release", waitUntilTerminal(zero, c.CellID), c.CellID, texts("done")...)
}

// A session limit of 1 ms bounds both execute and wait, and the cell keeps running across the
// yields until it completes.
func testYieldLimitClamps(t *testing.T, h *harness) {
	f := h.sessionWithLimits(yieldLimit(1))
	tools, gates := f.gateTools("gate")
	c := f.execute(`text("a"); await tools.gate(); text("b");`, tools, yieldAfter(foreverMs))
	first := f.initial(c)
	if first.Kind != codemode.Yielded || first.ErrorText != nil {
		t.Fatalf("initial response %s, want Yielded", describe(first))
	}
	f.awaitToolCall("gate", 1)
	second := f.waitLive(c.CellID, foreverMs)
	if second.Kind != codemode.Yielded || second.ErrorText != nil {
		t.Fatalf("wait response %s, want Yielded", describe(second))
	}
	gates[0].Release()
	final := waitUntilTerminal(f, c.CellID)
	if final.Kind != codemode.Result || final.ErrorText != nil {
		t.Fatalf("final response %s, want a successful Result", describe(final))
	}
	all := append(append(textsOf(t, first), textsOf(t, second)...), textsOf(t, final)...)
	if len(all) != 2 || all[0] != "a" || all[1] != "b" {
		t.Fatalf("texts across the observations = %q, want [a b]", all)
	}
}

// waitUntilTerminal waits on a cell until it reports a terminal response and returns it with the
// content of the Yielded responses before it prepended. Under a tiny yield limit every wait yields
// at once, so this loops.
func waitUntilTerminal(f *fixture, id codemode.CellID) codemode.RuntimeResponse {
	f.t.Helper()
	var carried []codemode.ContentItem
	deadline := time.Now().Add(opTimeout)
	for time.Now().Before(deadline) {
		r := f.waitLive(id, foreverMs)
		if r.IsTerminal() {
			r.ContentItems = append(carried, r.ContentItems...)
			return r
		}
		carried = append(carried, r.ContentItems...)
	}
	f.t.Fatalf("cell %q did not finish within %s", id, opTimeout)
	return codemode.RuntimeResponse{}
}
