package jsruntime

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
	d := newRecorder(func(ctx context.Context, _ codemode.NestedToolCall) (json.RawMessage, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{})
	for i := range n {
		c := startCell(t, s, `await tools.block()`, 0, testTool("block"))
		if r := initialResponse(t, c); r.Kind != codemode.Yielded {
			t.Fatalf("cell %d: %+v %s", i, r, errorTextOf(r))
		}
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			out := waitCell(t, s, c.CellID, 1000)
			t.Fatalf("cell %d never called its tool; it ended with %+v %s", i, out.Response, errorTextOf(out.Response))
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
	d := newRecorder(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		if call.ToolName.Name == "big" {
			return big, nil
		}
		return json.RawMessage("1"), nil
	})
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: ptrU64(limit)})
	oom := fmt.Sprintf(outOfMemoryTextFormat, limit)
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
		r := executeCell(t, s, src, testTool("echo"), testTool("big"))
		if r.Kind != codemode.Result || errorTextOf(r) != oom || len(textsOf(r.ContentItems)) != 0 {
			t.Errorf("%s: %v %q %q", name, r.Kind, errorTextOf(r), textsOf(r.ContentItems))
		}
		r = executeCell(t, s, `text(await tools.echo("alive"))`, testTool("echo"))
		if r.ErrorText != nil || !reflect.DeepEqual(textsOf(r.ContentItems), []string{"1"}) {
			t.Fatalf("after %s: %s %q", name, errorTextOf(r), textsOf(r.ContentItems))
		}
	}
}

// recurse is a cell that recurses depth frames deep and outputs the depth.
func recurse(depth int) string {
	return `function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } text(f(` + strconv.Itoa(depth) + `))`
}

// TestDeepRecursion checks that plain recursion 2,000 and 5,000 frames deep succeeds (before the
// rewrite it stopped at about 235), measures the deepest that does (a binary search across
// cells), and checks that one frame deeper fails only its cell, with stackOverflowText.
func TestDeepRecursion(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	ok := func(depth int) bool {
		r := executeCell(t, s, recurse(depth))
		switch {
		case r.ErrorText == nil && reflect.DeepEqual(textsOf(r.ContentItems), []string{strconv.Itoa(depth)}):
			return true
		case errorTextOf(r) == stackOverflowText && len(r.ContentItems) == 0:
			return false
		}
		t.Fatalf("depth %d: %s %q", depth, errorTextOf(r), textsOf(r.ContentItems))
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
	// The limit is a fixed stack: the same depth succeeds again, one more fails again, and the
	// session goes on.
	if !ok(lo) || ok(lo+1) || !ok(100) {
		t.Fatalf("the limit at %d frames is not stable", lo)
	}
}
