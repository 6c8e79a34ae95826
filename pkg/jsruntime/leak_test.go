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
