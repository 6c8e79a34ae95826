package jsruntime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codemodehq/codemode/pkg/testenv"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func echoTool(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
	if call.Input == nil {
		return json.RawMessage(`"no input"`), nil
	}
	return call.Input, nil
}

func TestToolCallsReachTheDelegate(t *testing.T) {
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	ns := "mcp__srv__"
	defs := []codemode.ToolDefinition{
		testTool("echo"),
		{Name: "hidden-dynamic-tool", ToolName: codemode.ToolName{Name: "dyn", Namespace: &ns}, Description: "d", Kind: codemode.ToolKindFreeform},
	}
	r := executeCell(t, s, `
text(JSON.stringify(ALL_TOOLS));
text(JSON.stringify(await tools.echo({a: [1, "b"]})));
text(await tools.echo());
text(await tools.echo(undefined));
text(await tools.hidden_dynamic_tool("free text"));
text(JSON.stringify(await tools.echo({f() {}, d: new Date(0)})));`, defs...)
	want := []string{
		`[{"name":"echo","description":"the echo tool"},{"name":"hidden_dynamic_tool","description":"d"}]`,
		`{"a":[1,"b"]}`, "no input", "no input", "free text", `{"d":"1970-01-01T00:00:00.000Z"}`,
	}
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	calls, _, _ := d.snapshot()
	if len(calls) != 5 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls {
		if c.CellID != "1" || c.RuntimeToolCallID != "tool-"+string(rune('1'+i)) {
			t.Errorf("call %d: %+v", i, c)
		}
	}
	if calls[1].Input != nil || calls[2].Input != nil {
		t.Errorf("absent input was sent: %q %q", calls[1].Input, calls[2].Input)
	}
	if calls[3].ToolName.String() != "mcp__srv__dyn" || calls[3].ToolKind != codemode.ToolKindFreeform || string(calls[3].Input) != `"free text"` {
		t.Errorf("freeform call %+v", calls[3])
	}
}

func TestToolErrorsRejectWithStrings(t *testing.T) {
	d := newRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) {
		return nil, errors.New("tool exploded")
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `
try { await tools.echo({}) } catch (e) { text(typeof e + ":" + e) }
try { tools.echo(10n) } catch (e) { text("sync:" + typeof e + ":" + e.split(":")[0]) }
const o = {}; o.o = o;
try { tools.echo(o) } catch (e) { text("sync:" + typeof e + ":" + e.split(":")[0]) }
try { tools.echo(() => 1) } catch (e) { text("sync:" + e) }
try { await tools.exec({}) } catch (e) { text(e) }`, testTool("echo"), testTool("exec"))
	// An input that cannot be serialized throws at once, a string (Codex 0.169).
	want := []string{"string:tool exploded", "sync:string:TypeError", "sync:string:TypeError",
		"sync:failed to serialize JavaScript value: expected value at line 1 column 1", "exec cannot invoke itself"}
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	if calls, _, _ := d.snapshot(); len(calls) != 1 {
		t.Fatalf("delegate saw %d calls, want 1 (exec and bad inputs must not reach it)", len(calls))
	}
}

// The runtime forwards a call's input as the script wrote it, whatever the tool's input_schema
// says (docs/protocol/javascript.md#tools): the owner holds the tool's contract and its errors
// are the ones the model should read, so checking it is the tool owner's work
// (toolprovider.InputCheck).
func TestToolInputIsForwardedWhateverItsSchema(t *testing.T) {
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	def := testTool("typed")
	def.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"],"additionalProperties":false}`)
	r := executeCell(t, s, `
for (const input of [{n: 3}, {n: -1}, {n: "x"}, {}, {n: 1, extra: true}]) text(JSON.stringify(await tools.typed(input)));`, def)
	want := []string{`{"n":3}`, `{"n":-1}`, `{"n":"x"}`, `{}`, `{"n":1,"extra":true}`}
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q, want %q", errorTextOf(r), got, want)
	}
	if calls, _, _ := d.snapshot(); len(calls) != 5 {
		t.Fatalf("delegate saw %d calls, want 5", len(calls))
	}
}

func TestPromiseAllOfManyToolCalls(t *testing.T) {
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `
const xs = await Promise.all(Array.from({length: 100}, (_, i) => tools.echo(i)));
text(xs.reduce((a, b) => a + b, 0));`, testTool("echo"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || got[0] != "4950" {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
	calls, _, _ := d.snapshot()
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c.RuntimeToolCallID] = true
	}
	if len(seen) != 100 || !seen["tool-1"] || !seen["tool-100"] {
		t.Fatalf("ids %v", seen)
	}
}

func TestUnawaitedToolCallsAreCancelledAtCompletion(t *testing.T) {
	cancelled := make(chan string, 1)
	d := newRecorder(func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		<-ctx.Done()
		cancelled <- call.RuntimeToolCallID
		return nil, ctx.Err()
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `tools.slow(); text("finished");`, testTool("slow"))
	if r.Kind != codemode.Result || r.ErrorText != nil {
		t.Fatalf("%+v", r)
	}
	select {
	case id := <-cancelled:
		if id != "tool-1" {
			t.Fatalf("cancelled %s", id)
		}
	default:
		t.Fatal("the unawaited call was not cancelled before the result")
	}
}

func TestDeepOrHugeToolResultsAreRejected(t *testing.T) {
	deep := strings.Repeat("[", MaxToolResultDepth+1) + strings.Repeat("]", MaxToolResultDepth+1)
	d := newRecorder(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		switch call.ToolName.Name {
		case "deep":
			return json.RawMessage(deep), nil
		case "invalid":
			return json.RawMessage(`{"a":`), nil
		default:
			return json.RawMessage(strings.Repeat("[", MaxToolResultDepth) + strings.Repeat("]", MaxToolResultDepth)), nil
		}
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `
try { await tools.deep() } catch (e) { text(e) }
try { await tools.invalid() } catch (e) { text(e) }
let v = await tools.ok(), n = 0; while (Array.isArray(v)) { v = v[0]; n++ } text(n);`, testTool("deep"), testTool("invalid"), testTool("ok"))
	want := []string{"tool result is nested deeper than 256 levels", "tool result is not valid JSON", "256"}
	if got := textsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
}

// The rejection is Codex's text (tool_callback_panic_rejects_the_js_promise_and_reports_failure in
// the conformance suite also checks the report to the owner).
func TestToolCallPanicRejectsThePromise(t *testing.T) {
	d := newRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { panic("oops") })
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `try { await tools.p() } catch (e) { text(e) }`, testTool("p"))
	if got := textsOf(r.ContentItems); len(got) != 1 || got[0] != "code mode tool task panicked" {
		t.Fatalf("%q", got)
	}
}

var _ = time.Second

func TestToolCallsCrossInBatches(t *testing.T) {
	stats := make(chan loopStats, 1)
	observeLoopStats = func(s loopStats) { stats <- s }
	defer func() { observeLoopStats = nil }()
	d := newRecorder(echoTool)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := executeCell(t, s, `await Promise.all(Array.from({length: 100}, (_, i) => tools.echo(i))); text("ok")`, testTool("echo"))
	if r.ErrorText != nil {
		t.Fatal(errorTextOf(r))
	}
	got := <-stats
	t.Logf("100 calls: %+v", got)
	// The calls crossed in groups (the last one with the turn's take); results arrive in batches.
	if got.takes != 1 || got.deliveries >= 100 {
		t.Fatalf("100 calls took %d turns and %d deliveries", got.turns, got.deliveries)
	}
}

// A burst of calls reaches the delegate while the turn that makes it still runs: a script that
// makes RECORDS_PER_CROSSING calls and then computes forever has its calls started all the same.
func TestABurstOfCallsStartsBeforeItsTurnEnds(t *testing.T) {
	const burst = 8 // prelude.js's RECORDS_PER_CROSSING
	started := make(chan string, burst)
	d := newRecorder(func(ctx context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		started <- call.RuntimeToolCallID
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	c := startCell(t, s, fmt.Sprintf(`for (let i = 0; i < %d; i++) tools.echo(i); for (;;) {}`, burst), 600_000, testTool("echo"))
	seen := map[string]bool{}
	for range burst {
		seen[<-started] = true
	}
	if !seen["tool-1"] || !seen[fmt.Sprintf("tool-%d", burst)] {
		t.Fatalf("started %v", seen)
	}
	out, err := s.Terminate(context.Background(), c.CellID)
	if err != nil || out.Response.Kind != codemode.Terminated {
		t.Fatalf("%+v %v", out, err)
	}
}

// TestToolResultsDoNotAccumulate delivers 32 MiB of tool results to a cell whose heap is capped
// at 16 MiB: every string that crosses into or out of QuickJS must be released again.
func TestToolResultsDoNotAccumulate(t *testing.T) {
	testenv.Long(t, "32 tool results of 1 MiB")
	big, _ := json.Marshal(strings.Repeat("x", 1<<20))
	d := newRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { return big, nil })
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: ptrU64(16 << 20)})
	r := executeCell(t, s, `let n = 0; for (let i = 0; i < 32; i++) n += (await tools.big()).length; text(n)`, testTool("big"))
	if got := textsOf(r.ContentItems); r.ErrorText != nil || len(got) != 1 || got[0] != "33554432" {
		t.Fatalf("%s %q", errorTextOf(r), got)
	}
}
