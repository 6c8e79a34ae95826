package jsruntime

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// resetVerdict is what observeReset saw of one engine.
type resetVerdict struct {
	reusable bool
	err      error // the image comparison of a reusable engine
	hole     uint64
}

// setObserveReset installs f as the pool's reset hook until the test ends.
func setObserveReset(t *testing.T, f func(e *engine, reusable bool)) {
	t.Helper()
	observeReset.Store(&f)
	t.Cleanup(func() { observeReset.Store(nil) })
}

// resetsLimit is the heap limit of the cells whose resets watchResets records: a limit no other
// test uses, because a cell of an earlier test may still be putting its engine back.
const resetsLimit = DefaultHeapLimitBytes + 8192

// watchResets records the reset of every engine put back after a cell with heap limit
// resetsLimit while the test runs.
func watchResets(t *testing.T) <-chan resetVerdict {
	t.Helper()
	seen := make(chan resetVerdict, 64)
	setObserveReset(t, func(e *engine, ok bool) {
		if e.mem.limit != uint64(e.snap.size)+resetsLimit {
			return
		}
		v := resetVerdict{reusable: ok, hole: e.mem.hole}
		if ok {
			v.err = e.snap.matches(e.mem)
		}
		seen <- v
	})
	return seen
}

// TestResetRestoresTheImage proves the reuse of runtimes: after a cell that changed everything a
// script can reach — globals, intrinsics' prototypes, the heap far beyond its starting size, the
// stack, timers and tool calls left pending — the engine's whole memory equals the image taken
// when it was prepared, byte for byte, and its stack pointer is back at the top. The next cell on
// it sees none of the changes.
func TestResetRestoresTheImage(t *testing.T) {
	seen := watchResets(t)
	d := newRecorder(nil)
	s := newTestSession(t, d, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: ptrU64(resetsLimit)})
	for _, src := range []string{
		`globalThis.leak = 1; Object.prototype.polluted = "yes"; Array.prototype.push = () => 0;
		 JSON.parse = () => "hijacked"; Math.random = () => 4; store("k", {a: 1});
		 function deep(n) { return n === 0 ? 0 : 1 + deep(n - 1) } text(deep(3000));
		 const big = []; for (let i = 0; i < 200; i++) big.push("x".repeat(100000) + i);
		 setTimeout(() => {}, 1e9); tools.slow(); text(big.length);`,
		`function g() { return g() } g()`, // a trap: the stack pointer is left deep
	} {
		r := executeCell(t, s, src, testTool("slow"))
		if r.Kind != codemode.Result {
			t.Fatalf("%s: %+v", src, r)
		}
		v := <-seen
		if !v.reusable || v.err != nil {
			t.Fatalf("after %.40q: reusable=%v image: %v", src, v.reusable, v.err)
		}
	}
	r := executeCell(t, s, `text([typeof leak, ({}).polluted, [].push(1), JSON.parse("1"), typeof Math.random()].join())`)
	if got := strings.Join(textsOf(r.ContentItems), ""); r.ErrorText != nil || got != "undefined,,1,1,number" {
		t.Fatalf("the next cell saw the changes: %s %q", errorTextOf(r), got)
	}
	<-seen
}

// TestMathRandomDiffersBetweenCells checks that Math.random is seeded for each cell: every cell
// starts from the same memory image, QuickJS's own generator state included.
func TestMathRandomDiffersBetweenCells(t *testing.T) {
	s := newTestSession(t, nil, codemode.SessionCellExecutionLimits{})
	seen := map[string]bool{}
	for range 5 {
		r := executeCell(t, s, `text(Math.random() + "," + Math.random())`)
		got := strings.Join(textsOf(r.ContentItems), "")
		if r.ErrorText != nil || seen[got] {
			t.Fatalf("repeated or failed: %s %q", errorTextOf(r), got)
		}
		seen[got] = true
	}
}
