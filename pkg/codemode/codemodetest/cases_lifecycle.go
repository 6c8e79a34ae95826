package codemodetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// lifecycleCases cover admission, cell IDs, results and script errors (docs/protocol/javascript.md#sessions-and-cells, docs/protocol/javascript.md#evaluation).
func lifecycleCases() []testCase {
	return []testCase{
		{"availability_reports_ready", testAvailability},
		{"execute_returns_sequential_cell_ids_per_session", testSequentialCellIDs},
		{"text_output_is_returned_in_the_result", testTextOutput},
		{"cell_without_output_returns_an_empty_result", testEmptyResult},
		{"script_error_reports_the_error_stack", testScriptErrorStack},
		{"script_error_reports_the_string_conversion_of_other_values", testScriptErrorValues},
		{"syntax_error_fails_the_cell", testSyntaxError},
		{"synchronous_exit_returns_successfully", testSynchronousExit},
		{"exit_after_await_returns_successfully", testExitAfterAwait},
		{"exit_cannot_be_caught", testExitCannotBeCaught},
		{"exit_inside_a_timer_ends_the_cell_successfully", testExitInTimer},
		{"exit_inside_a_callback_runs_no_later_code", testExitInCallback},
		{"timer_callback_errors_fail_the_cell", testTimerCallbackError},
		{"max_output_tokens_is_not_applied_by_the_session", testMaxOutputTokensIgnored},
		{"many_sequential_cells", testManySequentialCells},
		{"concurrent_cells_in_one_session", testConcurrentCells},
	}
}

func testAvailability(t *testing.T, h *harness) {
	if err := h.providerOnce().Availability(); err != nil {
		t.Fatalf("Availability: %v", err)
	}
}

// The cell ID is known as soon as Execute returns, before the initial response is read, and
// counts from "1" in every session.
func testSequentialCellIDs(t *testing.T, h *harness) {
	f := h.session()
	var cells []*codemode.StartedCell
	for i := 1; i <= 3; i++ {
		c := f.execute(fmt.Sprintf("text(%q)", fmt.Sprint("cell ", i)))
		if want := codemode.CellID(fmt.Sprint(i)); c.CellID != want {
			t.Fatalf("cell %d: CellID %q, want %q", i, c.CellID, want)
		}
		cells = append(cells, c)
	}
	for i, c := range cells {
		checkResult(t, "initial response", f.initial(c), c.CellID, texts(fmt.Sprint("cell ", i+1))...)
	}
	other := h.session()
	if c := other.execute(`text("other")`); c.CellID != "1" {
		t.Fatalf("first cell of a second session: CellID %q, want \"1\"", c.CellID)
	} else {
		checkResult(t, "second session", other.initial(c), "1", texts("other")...)
	}
}

func testTextOutput(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "result", f.run(`text("hello"); text("world")`), "1", texts("hello", "world")...)
}

func testEmptyResult(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "result", f.run(`const x = 1 + 1;`), "1")
}

// An uncaught Error reports its stack (docs/protocol/javascript.md#evaluation). In V8, whose behaviour Codex pins, an Error's
// stack begins with its "Name: message" line; engines whose stacks lack that line must still report
// it, so the suite asks for the header followed by the frames the script itself saw in e.stack.
func testScriptErrorStack(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("before"); const e = new Error("boom"); text(e.stack); throw e;`)
	got := textsOf(t, r)
	if len(got) != 2 || r.Kind != codemode.Result || r.ErrorText == nil {
		t.Fatalf("want a failed Result with the text before the error and the stack, got %s", describe(r))
	}
	frames := strings.TrimSuffix(strings.TrimPrefix(got[1], "Error: boom"), "\n")
	if errText := *r.ErrorText; !strings.HasPrefix(errText, "Error: boom") || !strings.Contains(errText, frames) {
		t.Fatalf("error text %q, want \"Error: boom\" followed by the stack frames %q", errText, frames)
	}
	checkResponse(t, "result", r, want{kind: codemode.Result, cell: "1", items: texts("before", got[1]), errorText: r.ErrorText})
}

// Thrown values without a string stack report String(value) (docs/protocol/javascript.md#evaluation).
func testScriptErrorValues(t *testing.T, h *harness) {
	f := h.session()
	cases := []struct{ source, errorText string }{
		{`throw "plain message";`, "plain message"},
		{`throw 42;`, "42"},
		{`throw null;`, "null"},
		{`throw { stack: 7, toString() { return "custom value"; } };`, "custom value"},
		{`await Promise.reject("rejected later");`, "rejected later"},
		{`text("kept"); await null; throw "after await";`, "after await"},
	}
	for i, c := range cases {
		r := f.run(c.source)
		var items []codemode.ContentItem
		if strings.HasPrefix(c.source, `text("kept")`) {
			items = texts("kept")
		}
		checkResponse(t, c.source, r, want{kind: codemode.Result, cell: codemode.CellID(fmt.Sprint(i + 1)),
			items: items, errorText: strp(c.errorText)})
	}
}

func testSyntaxError(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("never" ;`)
	if r.Kind != codemode.Result || r.CellID != "1" || r.ErrorText == nil || *r.ErrorText == "" || len(r.ContentItems) != 0 {
		t.Fatalf("want a failed Result without output, got %s", describe(r))
	}
}

func testSynchronousExit(t *testing.T, h *harness) {
	f := h.session()
	checkResult(t, "result", f.run(`text("before"); exit(); text("after");`), "1", texts("before")...)
}

func testExitAfterAwait(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("echo", Echo())
	r := f.run(`text("before"); await tools.echo({}); exit(); text("after");`, withTools(functionTool("echo")))
	checkResult(t, "result", r, "1", texts("before")...)
}

// exit() cannot be caught (Codex 0.169): it ends the cell at once and successfully, and no catch,
// finally or later code runs.
func testExitCannotBeCaught(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("before"); try { exit(); } catch (e) { text("caught " + e); } finally { text("finally"); } text("continued");`)
	checkResult(t, "result", r, "1", texts("before")...)
}

// exit() in a timer callback ends the cell successfully, whatever the module awaits.
func testExitInTimer(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("before"); setTimeout(() => { try { exit(); } catch { text("caught"); } }, 0); await new Promise(() => setTimeout(() => {}, 3600000)); text("never");`)
	checkResult(t, "result", r, "1", texts("before")...)
}

// exit() in a promise callback or an unawaited async function stops everything: no rejection
// handler, no other callback and no later code of the module runs.
func testExitInCallback(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("before");
Promise.resolve().then(() => { exit(); }).catch(() => text("caught"));
(async () => { await null; await null; text("other callback"); })();
await null; await null; await null; text("after");`)
	checkResult(t, "result", r, "1", texts("before")...)
}

// A timer callback that throws fails the cell, keeping the output before it.
func testTimerCallbackError(t *testing.T, h *harness) {
	f := h.session()
	r := f.run(`text("before"); setTimeout(() => { throw "timer boom"; }, 0); await new Promise(() => {}); text("never");`)
	checkResponse(t, "result", r, want{kind: codemode.Result, cell: "1", items: texts("before"), errorText: strp("timer boom")})
}

// max_output_tokens is carried for the client's truncation; the session returns everything.
func testMaxOutputTokensIgnored(t *testing.T, h *harness) {
	f := h.session()
	long := strings.Repeat("x", 4096)
	one := 1
	r := f.run(fmt.Sprintf(`text(%q); text(%q);`, long, long), func(r *codemode.ExecuteRequest) { r.MaxOutputTokens = &one })
	checkResult(t, "result", r, "1", texts(long, long)...)
}

// Codex's sessions run cell after cell; stored values carry a counter across all of them.
func testManySequentialCells(t *testing.T, h *harness) {
	f := h.session()
	const n = 30
	for i := 1; i <= n; i++ {
		c := f.execute(`const n = (load("n") ?? 0) + 1; store("n", n); text("cell " + n);`)
		if want := codemode.CellID(fmt.Sprint(i)); c.CellID != want {
			t.Fatalf("cell %d: CellID %q, want %q", i, c.CellID, want)
		}
		checkResult(t, "result", f.initial(c), c.CellID, texts(fmt.Sprint("cell ", i))...)
		f.awaitCellClosed(c.CellID)
	}
}

// Cells of one session run concurrently: each blocks in a tool call until all of them are in
// one, which a session that ran cells one at a time would never reach.
func testConcurrentCells(t *testing.T, h *harness) {
	f := h.session()
	const n = 6
	f.rec.Handle("barrier", NewBarrier(n).Tool())
	var cells []*codemode.StartedCell
	seen := map[codemode.CellID]bool{}
	for i := 0; i < n; i++ {
		c := f.execute(fmt.Sprintf(`const r = await tools.barrier({ index: %d }); text("index " + r.index);`, i),
			withTools(functionTool("barrier")))
		if seen[c.CellID] {
			t.Fatalf("cell ID %q was handed out twice", c.CellID)
		}
		seen[c.CellID] = true
		cells = append(cells, c)
	}
	for i, c := range cells {
		checkResult(t, "result", f.initial(c), c.CellID, texts(fmt.Sprint("index ", i))...)
	}
	for _, call := range f.rec.ToolCalls() {
		if !seen[call.Call.CellID] || call.Call.RuntimeToolCallID != "tool-1" {
			t.Errorf("unexpected call %+v", call.Call)
		}
	}
}

// functionTool is a default-namespace function tool whose JavaScript name is name.
func functionTool(name string) codemode.ToolDefinition {
	return codemode.ToolDefinition{Name: name, ToolName: codemode.ToolName{Name: name},
		Description: "test tool " + name, Kind: codemode.ToolKindFunction}
}
