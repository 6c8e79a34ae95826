package jsruntime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// TestTerminatedCellsNeverCloseAReusedEngine terminates cell after cell while each awaits a tool
// call: every next cell must still get a working engine and reach the delegate. (It caught the
// late interrupt fixed by interruptOn: about one cell in a few hundred got a closed engine.)
func TestTerminatedCellsNeverCloseAReusedEngine(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	started := make(chan struct{}, 1)
	d := jsruntime.NewRecorder(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	for i := range n {
		c := jsruntime.StartCell(t, s, `await tools.block()`, 0, jsruntime.TestTool("block"))
		if r := jsruntime.InitialResponse(t, c); r.Kind != codemode.Yielded {
			t.Fatalf("cell %d: %+v %s", i, r, jsruntime.ErrorTextOf(r))
		}
		select {
		case <-started:
		case <-time.After(jsruntime.GuardTimeout):
			out := jsruntime.WaitCell(t, s, c.CellID, 1000)
			t.Fatalf("cell %d never called its tool; it ended with %+v %s", i, out.Response, jsruntime.ErrorTextOf(out.Response))
		}
		out, err := s.Terminate(context.Background(), c.CellID)
		if err != nil || out.Response.Kind != codemode.Terminated {
			t.Fatalf("cell %d: terminate %+v %v", i, out, err)
		}
	}
}

// TestOutOfMemoryIsAnErrorNeverAHang runs cells that exhaust a 16 MiB heap in every place a cell
// runs code: the module body, a storm of promise jobs, a timer callback, the continuation of a
// tool call, a bare promise job, the queue Go takes at the end of a turn, and a tool result too
// large to enter the heap. Each ends with the out-of-memory error (before the rewrite, an OOM in a
// promise job was silent and the cell hung), and the session's next cell works.
func TestOutOfMemoryIsAnErrorNeverAHang(t *testing.T) {
	const limit = 16 << 20
	big, _ := json.Marshal(strings.Repeat("x", 20<<20))
	d := jsruntime.NewRecorder(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		if call.ToolName.Name == "big" {
			return big, nil
		}
		return json.RawMessage("1"), nil
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: jsruntime.PtrU64(limit)})
	oom := fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, limit)
	grow := `const a = []; while (true) a.push("x".repeat(1000) + a.length);`
	for name, src := range map[string]string{
		"module body":   grow,
		"promise storm": `let n = 0; for (let i = 0; i < 1e6; i++) Promise.resolve(i).then(x => { n++ }); await null; text(n)`,
		"timer":         `setTimeout(() => { ` + grow + ` }, 0); await new Promise(r => setTimeout(r, 1e9))`,
		"tool result":   `await tools.echo(1); ` + grow,
		"then callback": `tools.echo(1).then(() => { ` + grow + ` }); await new Promise(r => setTimeout(r, 1e9))`,
		"promise job":   `Promise.resolve().then(() => { ` + grow + ` }); await new Promise(() => {})`,
		"queued calls":  `for (let i = 0; ; i++) tools.echo("x".repeat(200))`,
		"caught":        `try { ` + grow + ` } catch (e) { text("caught") } text("after")`,
		"large result":  `await tools.big(); text("fit")`,
	} {
		r := jsruntime.ExecuteCell(t, s, src, jsruntime.TestTool("echo"), jsruntime.TestTool("big"))
		if r.Kind != codemode.Result || jsruntime.ErrorTextOf(r) != oom || len(jsruntime.TextsOf(r.ContentItems)) != 0 {
			t.Errorf("%s: %v %q %q", name, r.Kind, jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
		}
		r = jsruntime.ExecuteCell(t, s, `text(await tools.echo("alive"))`, jsruntime.TestTool("echo"))
		if r.ErrorText != nil || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"1"}) {
			t.Fatalf("after %s: %s %q", name, jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
		}
	}
}

// TestDeepRecursion checks that plain recursion 2,000 and 5,000 frames deep succeeds (before the
// rewrite it stopped at about 235), measures the deepest that does (a binary search across
// cells), at least V8's, and checks that one frame deeper fails only its cell, with V8's
// RangeError (the module's stack guard, generators/qjswasm) and its frames.
func TestDeepRecursion(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	ok := func(depth int) bool {
		r := jsruntime.ExecuteCell(t, s, jsruntime.Recurse(depth))
		switch {
		case r.ErrorText == nil && reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{strconv.Itoa(depth)}):
			return true
		case strings.HasPrefix(jsruntime.ErrorTextOf(r), jsruntime.StackOverflowText+"\n    at f (") && len(r.ContentItems) == 0:
			return false
		}
		t.Fatalf("depth %d: %s %q", depth, jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
		return false
	}
	for _, depth := range []int{2000, 5000} {
		if !ok(depth) {
			t.Fatalf("recursion %d frames deep failed", depth)
		}
	}
	lo, hi := 5000, 1<<20 // ok(lo), !ok(hi)
	if ok(hi) {
		t.Fatalf("recursion %d frames deep succeeded", hi)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	t.Logf("deepest plain recursion: %d frames", lo)
	// V8 in Codex's host completes 10,000 frames of this function (11,395 once optimized).
	if lo < 11500 {
		t.Fatalf("the deepest recursion is %d frames, less than V8's", lo)
	}
	// The limit is a fixed stack: the same depth succeeds again, one more fails again, and the
	// session goes on.
	if !ok(lo) || ok(lo+1) || !ok(100) {
		t.Fatalf("the limit at %d frames is not stable", lo)
	}
}

// TestHelpersWorkAcrossNativeStacks runs the helpers thousands of frames deep, where the module's
// stack guard has moved the recursion onto new native stacks (every 1,024 frames, generators/
// qjswasm): the bridge, exit() and an exception thrown at the bottom and caught at the top work
// there as anywhere.
func TestHelpersWorkAcrossNativeStacks(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	for src, want := range map[string][]string{
		`function f(n) { if (n === 0) { text("deep"); exit() } return f(n - 1) + 1 } f(3000); text("not reached")`:                              {"deep"},
		`function f(n) { if (n === 0) { text("bottom"); return 0 } return f(n - 1) + 1 } text(f(5000))`:                                         {"bottom", "5000"},
		`function f(n) { if (n === 0) throw new Error("boom"); return f(n - 1) + 1 } try { f(4000) } catch (e) { text("caught " + e.message) }`: {"caught boom"},
		`function f(n) { if (n === 0) { store("k", 1); return load("k") } return f(n - 1) } text(f(2500))`:                                      {"1"},
	} {
		r := jsruntime.ExecuteCell(t, s, src)
		if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s %q, want %q", src, jsruntime.ErrorTextOf(r), got, want)
		}
	}
}

// A caught stack overflow has V8's stack, a string: the header and the frames, however the
// recursion went (the stack hook runs at the bottom of the full stack, in the guard's slack,
// generators/qjswasm/guard.go); a cell that catches overflows in a loop gets one every time.
func TestCaughtStackOverflowHasAStack(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `
const show = (e) => { const lines = e.stack.split("\n"); text(lines[0] + " / " + lines.length + " / " + lines[1].slice(0, 10)) };
function g() { g() }
try { g() } catch (e) { show(e) }
const f = (n) => [n].map(x => f(x + 1))[0];
try { f(0) } catch (e) { show(e) }
const o = { get x() { return this.x } };
try { o.x } catch (e) { show(e) }
let caught = 0;
for (let i = 0; i < 5; i++) { try { g() } catch (e) { if (typeof e.stack === "string" && e.stack.startsWith("RangeError: Maximum call stack size exceeded\n")) caught++ } }
text(caught)`)
	want := []string{
		jsruntime.StackOverflowText + " / 11 /     at g (",
		jsruntime.StackOverflowText + " / 11 /     at Arr",
		jsruntime.StackOverflowText + " / 11 /     at get",
		"5",
	}
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s %q, want %q", jsruntime.ErrorTextOf(r), got, want)
	}
}

// A script's own errors keep their messages, however much they read like QuickJS's (which the
// stack hook rewrites to V8's): only their frames are V8's.
func TestScriptErrorsKeepTheirMessages(t *testing.T) {
	s := jsruntime.NewTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `
class E extends TypeError {}
const errors = [
  () => new TypeError("not a function"),
  () => TypeError("circular reference"),
  () => Reflect.construct(TypeError, ["empty array"]),
  () => new E("not a function"),
  () => new Error("cannot read property 'b' of undefined"),
  () => new TypeError("BigInt are forbidden in JSON.stringify"),
  () => new RangeError("invalid array length"),
  () => { const m = "value is not iterable"; return new TypeError(m) },
];
for (const make of errors) { const e = make(); text(e.message + " | " + e.stack.split("\n")[0]) }
try { null.x } catch (e) { text(e.message) }`)
	want := []string{
		"not a function | TypeError: not a function",
		"circular reference | TypeError: circular reference",
		"empty array | TypeError: empty array",
		"not a function | TypeError: not a function",
		"cannot read property 'b' of undefined | Error: cannot read property 'b' of undefined",
		"BigInt are forbidden in JSON.stringify | TypeError: BigInt are forbidden in JSON.stringify",
		"invalid array length | RangeError: invalid array length",
		"value is not iterable | TypeError: value is not iterable",
		"Cannot read properties of null (reading 'x')",
	}
	if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s %q, want %q", jsruntime.ErrorTextOf(r), got, want)
	}
}
