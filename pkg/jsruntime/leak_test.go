//go:build !race

package jsruntime

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// These tests run many cells or many host calls and compare Go heap samples. The race detector
// multiplies both time and memory, so they run only without it.

// goHeap returns the live Go heap after two collections (the second frees what the first's
// finalizers released).
func goHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestClearedTimersDoNotAccumulate sets and clears a million timers in one cell (a timeout raced
// against each call does that) and measures Go's heap while the cell still runs: cleared timers
// must leave Go's queue. Before they did, the million took 43 MB until the cell ended.
func TestClearedTimersDoNotAccumulate(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 20
	}
	g := newToolGate()
	s := newTestSession(t, newRecorder(g.invoke), codemode.SessionCellExecutionLimits{})
	executeCell(t, s, `for (let i = 0; i < 1e4; i++) clearTimeout(setTimeout(() => {}, 1e9))`) // warm up
	before := goHeap()
	c := startCell(t, s, `
for (let j = 0; j < `+strconv.Itoa(rounds)+`; j++) {
  for (let i = 0; i < 1e4; i++) clearTimeout(setTimeout(() => {}, 1e9));
  await new Promise(r => setTimeout(r, 0)); // a turn: Go takes the records
}
await tools.block()`, 60_000, testTool("block"))
	<-g.started
	during := goHeap()
	close(g.release)
	if r := initialResponse(t, c); r.Kind != codemode.Result || r.ErrorText != nil {
		t.Fatalf("%+v %s", r, errorTextOf(r))
	}
	t.Logf("%d set+clear: Go heap %d -> %d bytes", rounds*10000, before, during)
	if during > before+4<<20 {
		t.Fatalf("%d cleared timers grew the Go heap by %d bytes", rounds*10000, during-before)
	}
}

// TestDeepRecursionDoesNotGrowTheGoHeap runs cells that recurse 5,000 frames deep. wazero grows
// the native stack of the call that runs them to about 50 MB and never shrinks it; an engine that
// kept its resolved exports would hold that for as long as it is reused. Before engines shed them
// after a deep cell, twenty such cells left the Go heap 157 MiB larger (four engines).
func TestDeepRecursionDoesNotGrowTheGoHeap(t *testing.T) {
	p := newCappedProvider(t, Options{PoolSize: 2})
	s := newCappedSession(t, p, nil)
	for range 4 {
		checkResult(t, "warm up", executeCell(t, s, `text("warm")`), "", "warm")
	}
	waitIdle(t, p)
	before := goHeap()
	for range 20 {
		checkResult(t, "deep", executeCell(t, s, recurse(5000)), "", "5000")
	}
	waitIdle(t, p)
	after := goHeap()
	t.Logf("20 cells 5,000 frames deep: Go heap %.1f -> %.1f MiB", mib(before), mib(after))
	if after > before+16<<20 {
		t.Fatalf("deep recursion grew the Go heap by %.1f MiB", mib(after-before))
	}
}
