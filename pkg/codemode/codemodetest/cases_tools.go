package codemodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// toolCases cover nested tool calls through the Delegate (docs/protocol/javascript.md#the-delegate, docs/protocol/javascript.md#tools).
func toolCases() []testCase {
	return []testCase{
		{"nested_tool_call_round_trip", testToolRoundTrip},
		{"tool_call_ids_count_from_one_per_cell", testToolCallIDsPerCell},
		{"tool_input_follows_json_stringify", testToolInputStringify},
		{"tool_results_resolve_with_json_values", testToolResults},
		{"tool_error_rejects_with_the_message_string", testToolError},
		{"parallel_tool_calls", testParallelToolCalls},
		{"natural_completion_cleans_up_callbacks_before_responding", testUnawaitedCallCancelled},
	}
}

// dynamicTool is a freeform tool in an MCP namespace whose raw key needs normalizing.
func dynamicTool() codemode.ToolDefinition {
	ns := "mcp__srv__"
	return codemode.ToolDefinition{Name: "hidden-dynamic-tool", ToolName: codemode.ToolName{Name: "dyn", Namespace: &ns},
		Description: "a dynamic tool", Kind: codemode.ToolKindFreeform}
}

// checkCall fails the test unless call has the given ids, name, kind and input (nil = absent).
func checkCall(t *testing.T, call codemode.NestedToolCall, cell codemode.CellID, id string, name codemode.ToolName, kind codemode.ToolKind, input string) {
	t.Helper()
	ok := call.CellID == cell && call.RuntimeToolCallID == id && call.ToolKind == kind
	if name.IsDefaultNamespace() {
		ok = ok && call.ToolName.Equivalent(name)
	} else {
		ok = ok && call.ToolName.Name == name.Name && call.ToolName.Namespace != nil && *call.ToolName.Namespace == *name.Namespace
	}
	if input == "" {
		ok = ok && call.Input == nil
	} else {
		ok = ok && call.Input != nil && sameJSON(call.Input, []byte(input))
	}
	if !ok {
		t.Fatalf("tool call = {cell %q id %q name %q kind %s input %s}, want {cell %q id %q name %q kind %s input %s}",
			call.CellID, call.RuntimeToolCallID, call.ToolName, call.ToolKind, inputString(call.Input),
			cell, id, name, kind, inputString([]byte(input)))
	}
}

func inputString(b []byte) string {
	if b == nil {
		return "<absent>"
	}
	return string(b)
}

func testToolRoundTrip(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("echo", Echo())
	f.rec.Handle("mcp__srv__dyn", Returns(`{"ok":true}`))
	r := f.run(`
const a = await tools.echo({ msg: "hi", n: [1, 2] });
text(JSON.stringify(a));
const b = await tools.hidden_dynamic_tool("raw input");
text(JSON.stringify(b));
const c = await tools.echo();
text(JSON.stringify(c));
`, withTools(functionTool("echo"), dynamicTool()))
	checkResult(t, "result", r, "1", texts(`{"msg":"hi","n":[1,2]}`, `{"ok":true}`, `null`)...)
	calls := f.rec.ToolCalls()
	if len(calls) != 3 {
		t.Fatalf("recorded %d tool calls, want 3", len(calls))
	}
	checkCall(t, calls[0].Call, "1", "tool-1", codemode.ToolName{Name: "echo"}, codemode.ToolKindFunction, `{"msg":"hi","n":[1,2]}`)
	checkCall(t, calls[1].Call, "1", "tool-2", dynamicTool().ToolName, codemode.ToolKindFreeform, `"raw input"`)
	checkCall(t, calls[2].Call, "1", "tool-3", codemode.ToolName{Name: "echo"}, codemode.ToolKindFunction, "")
}

func testToolCallIDsPerCell(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("echo", Echo())
	for cell := 1; cell <= 2; cell++ {
		id := codemode.CellID(fmt.Sprint(cell))
		r := f.run(`await tools.echo({ call: 1 }); await tools.echo({ call: 2 }); text("ok");`, withTools(functionTool("echo")))
		checkResult(t, "result", r, id, texts("ok")...)
		calls := f.rec.ToolCalls()[2*(cell-1):]
		for i, c := range calls {
			checkCall(t, c.Call, id, fmt.Sprintf("tool-%d", i+1), codemode.ToolName{Name: "echo"}, codemode.ToolKindFunction,
				fmt.Sprintf(`{"call":%d}`, i+1))
		}
	}
}

// The input is JSON.stringify of the argument: undefined means absent, undefined properties
// vanish, and a stringify exception is thrown synchronously without a call.
func testToolInputStringify(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("echo", Echo())
	r := f.run(`
await tools.echo(undefined);
await tools.echo({ a: undefined, b: 1 });
await tools.echo([1, "x", { y: true }]);
await tools.echo("just a string");
await tools.echo(5);
const o = {}; o.self = o;
let threw = "no";
try { tools.echo(o); } catch (e) { threw = "sync"; }
text(threw);
`, withTools(functionTool("echo")))
	checkResult(t, "result", r, "1", texts("sync")...)
	calls := f.rec.ToolCalls()
	inputs := []string{"", `{"b":1}`, `[1,"x",{"y":true}]`, `"just a string"`, `5`}
	if len(calls) != len(inputs) {
		t.Fatalf("recorded %d tool calls, want %d (the circular input must not reach the delegate)", len(calls), len(inputs))
	}
	for i, in := range inputs {
		checkCall(t, calls[i].Call, "1", fmt.Sprintf("tool-%d", i+1), codemode.ToolName{Name: "echo"}, codemode.ToolKindFunction, in)
	}
}

func testToolResults(t *testing.T, h *harness) {
	f := h.session()
	results := []string{`"a string"`, `[1,{"x":null}]`, `42`, `{"nested":{"k":"v"}}`, `true`}
	for i, res := range results {
		f.rec.Handle(fmt.Sprintf("r%d", i), Returns(res))
	}
	var defs []codemode.ToolDefinition
	src := ""
	for i := range results {
		defs = append(defs, functionTool(fmt.Sprintf("r%d", i)))
		src += fmt.Sprintf("text(JSON.stringify(await tools.r%d({})));\n", i)
	}
	r := f.run(src, withTools(defs...))
	got := textsOf(t, r)
	if r.Kind != codemode.Result || r.ErrorText != nil || len(got) != len(results) {
		t.Fatalf("result %s, want %d texts", describe(r), len(results))
	}
	for i, res := range results {
		if !sameJSON([]byte(got[i]), []byte(res)) {
			t.Errorf("tool result %d reached the script as %s, want %s", i, got[i], res)
		}
	}
}

func testToolError(t *testing.T, h *harness) {
	f := h.session()
	const message = "tool said no: permission denied (code 7)"
	f.rec.Handle("deny", Fails(message))
	r := f.run(`try { await tools.deny({}); text("resolved"); } catch (e) { text(typeof e); text(String(e)); }`,
		withTools(functionTool("deny")))
	checkResult(t, "result", r, "1", texts("string", message)...)
	if _, err := f.rec.ToolCalls()[0].Result(); err == nil || err.Error() != message {
		t.Fatalf("recorded delegate error %v", err)
	}
}

// Calls a script starts together reach the delegate together.
func testParallelToolCalls(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("slow", NewBarrier(3).Tool())
	r := f.run(`const rs = await Promise.all([tools.slow({ n: 1 }), tools.slow({ n: 2 }), tools.slow({ n: 3 })]);
text(rs.map((x) => x.n).join(","));`, withTools(functionTool("slow")))
	checkResult(t, "result", r, "1", texts("1,2,3")...)
	ids := map[string]bool{}
	for _, c := range f.rec.ToolCalls() {
		ids[c.Call.RuntimeToolCallID] = true
	}
	if len(ids) != 3 || !ids["tool-1"] || !ids["tool-2"] || !ids["tool-3"] {
		t.Fatalf("runtime tool call ids %v, want tool-1..tool-3", ids)
	}
}

// A call the script did not await is cancelled when the cell completes; the Result is still the
// script's. The "sync" tool answers only once the unawaited call reached the delegate, so the
// cancellation is observable.
func testUnawaitedCallCancelled(t *testing.T, h *harness) {
	f := h.session()
	f.rec.Handle("block", BlocksUntilCancelled())
	f.rec.Handle("sync", func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		if _, err := f.rec.AwaitToolCall(ctx, "block", 1); err != nil {
			return nil, err
		}
		return json.RawMessage(`"synced"`), nil
	})
	r := f.run(`tools.block({}); text(await tools.sync({})); text("done");`, withTools(functionTool("block"), functionTool("sync")))
	checkResult(t, "result", r, "1", texts("synced", "done")...)
	call := f.awaitToolCall("block", 1)
	f.awaitClosed(call.Cancelled(), "cancellation of the unawaited tool call at completion")
}
