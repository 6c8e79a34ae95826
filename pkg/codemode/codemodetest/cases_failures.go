package codemodetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// failureCases cover failures that no response carries (docs/protocol/javascript.md#the-delegate, Codex's task failure
// handler): a delegate callback that panics is contained, the script sees Codex's text where it
// waits for the callback, and the owner is told through Delegate.ReportFailure, which the
// Recorder implements.
func failureCases() []testCase {
	return []testCase{
		{"tool_callback_panic_rejects_the_js_promise_and_reports_failure", testToolCallbackPanic},
		{"notification_callback_panic_reports_failure", testNotificationCallbackPanic},
		{"reports_cell_actor_panics_to_the_owner", testCellClosedPanic},
	}
}

// awaitFailures waits for n reported failures.
func (f *fixture) awaitFailures(n int) []string {
	f.t.Helper()
	ctx, cancel := bg()
	defer cancel()
	reasons, err := f.rec.AwaitFailures(ctx, n)
	if err != nil {
		f.t.Fatalf("%v; events: %v", err, f.rec.Events())
	}
	return reasons
}

func testToolCallbackPanic(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("panic", func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		panic("tool callback panic probe")
	})
	r := f.run(`try { await tools.panic({}); text("resolved"); } catch (e) { text(typeof e + ": " + e); } text("after");`,
		withTools(functionTool("panic")))
	checkResult(t, "result", r, "1", texts("string: code mode tool task panicked", "after")...)
	if got := f.awaitFailures(1); len(got) != 1 || got[0] != "code mode tool task panicked" {
		t.Fatalf("reported failures %q, want exactly [\"code mode tool task panicked\"]", got)
	}
}

// The cell does not depend on the notification; it completes normally.
func testNotificationCallbackPanic(t *testing.T, h *harness) {
	f := h.session()
	f.rec.HandleNotify(func(context.Context, string, codemode.CellID, string) error {
		panic("notification callback panic probe")
	})
	checkResult(t, "result", f.run(`notify("hello"); text("after");`), "1", texts("after")...)
	if got := f.awaitFailures(1); len(got) != 1 || got[0] != "code mode notification task panicked" {
		t.Fatalf("reported failures %q, want exactly [\"code mode notification task panicked\"]", got)
	}
}

// A CellClosed that panics is reported as the cell's task failing; the Result was delivered
// before, and the session still shuts down.
func testCellClosedPanic(t *testing.T, h *harness) {
	f := h.session()
	f.rec.HandleCellClosed(func(codemode.CellID) { panic("cell close panic probe") })
	checkResult(t, "result", f.run(`text("done");`), "1", texts("done")...)
	f.shutdown()
	got := f.awaitFailures(1)
	if len(got) != 1 || !strings.Contains(got[0], "code-mode cell 1 task failed") {
		t.Fatalf("reported failures %q, want one containing \"code-mode cell 1 task failed\"", got)
	}
}
