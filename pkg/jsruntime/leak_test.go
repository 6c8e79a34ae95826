//go:build !race

package jsruntime

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
	"github.com/codemodehq/codemode/pkg/testenv"
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
	testenv.Long(t, "a leak soak of 100 rounds of timers")
	rounds := 100
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
	if r := followCell(t, s, initialResponse(t, c)); r.Kind != codemode.Result || r.ErrorText != nil {
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

// representativeCell is a cell that does a bit of everything: a tool call, a store and a load,
// text output, a notification and a timer.
const representativeCell = `const v = await tools.echo({n: 1});
store("k", v); text(load("k").n + 1); notify("tick");
await new Promise(r => setTimeout(r, 0));`

// heapSample is the state of the process at one point of a long run.
type heapSample struct {
	cells      int
	heap       uint64 // live Go heap after collection
	goroutines int
	rss        uint64
	pool       engine.PoolStats
}

func sampleHeap(t *testing.T, p *Provider, cells int) heapSample {
	waitIdle(t, p)
	h := heapSample{cells: cells, heap: goHeap(), goroutines: runtime.NumGoroutine(), rss: residentBytes()}
	h.pool = p.pool.Stats()
	return h
}

// settledGoroutines waits (up to five seconds) for the goroutine count to drop to want: those of
// a cell that just ended (its notifier, its tool calls) may still be returning.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}

// TestManyCellsKeepTheHeapFlat runs 100,000 representative cells one after another in one session
// (none with -short) and samples the Go heap, the goroutines and the resident set after a
// tenth of them and at the end: neither may grow. Before the rewrite every cell left about 26 KB
// of Go heap behind (10,000 cells: 19 -> 276 MB).
func TestManyCellsKeepTheHeapFlat(t *testing.T) {
	testenv.Long(t, "a leak soak of 100,000 cells")
	n := 100_000
	p := newCappedProvider(t, Options{PoolSize: 2})
	s := newCappedSession(t, p, echoDelegate)
	var samples []heapSample
	for i := 1; i <= n; i++ {
		r := executeCell(t, s, representativeCell, testTool("echo"))
		if r.ErrorText != nil || len(r.ContentItems) != 1 {
			t.Fatalf("cell %d: %s %+v", i, errorTextOf(r), r.ContentItems)
		}
		if i == n/10 || i == n/2 || i == n {
			samples = append(samples, sampleHeap(t, p, i))
		}
	}
	for _, h := range samples {
		t.Logf("after %6d cells: Go heap %.2f MiB, %d goroutines, RSS %.1f MiB, engines %+v",
			h.cells, mib(h.heap), h.goroutines, mib(h.rss), h.pool)
	}
	early, late := samples[0], samples[len(samples)-1]
	if float64(late.heap) > float64(early.heap)*1.1 {
		t.Errorf("the Go heap grew from %d to %d bytes between cells %d and %d", early.heap, late.heap, early.cells, late.cells)
	}
	if n := settledGoroutines(early.goroutines); n > early.goroutines {
		t.Errorf("goroutines grew from %d to %d", early.goroutines, n)
	}
	if late.pool.Replaced != 0 || late.pool.Created > early.pool.Created+2 {
		t.Errorf("engines were created or replaced along the way: %+v -> %+v", early.pool, late.pool)
	}
}

// hostCallVariants are the host calls TestHostCallsDoNotGrowMemory makes with the 64 KiB string
// s, one a loop iteration in turn: load's reply crosses, then its argument; store replaces the
// stored value; text crosses and is refused past the output limit; notify is queued, delivered
// and dropped; eval's and Function's source crosses and comes back as code.
var hostCallVariants = []string{
	`if (load("k").length !== 65536) throw "short";`,
	`if (load(s + i) !== undefined) throw "found";`,
	`store("k", s);`,
	`try { text(s) } catch (e) { if (!String(e).startsWith("output exceeded")) throw e }`,
	`notify(s);`,
	`if (eval("1 //" + s) !== 1) throw "eval";`,
	`if (new Function("return 2 //" + s)() !== 2) throw "Function";`,
}

// soak reports whether CODEMODE_SOAK asks for the full-size runs of the long tests.
func soak() bool { return os.Getenv("CODEMODE_SOAK") != "" }

// TestHostCallsDoNotGrowMemory makes host calls of 64 KiB each in one cell, cycling through
// load, store, text, notify, eval and Function, on one runtime: the cell must grow the wasm memory
// and the Go heap no more than a cell of 350 such calls did. Before the rewrite every host call
// leaked its argument (9,000 load("k".repeat(65536)) ran out of memory).
//
// A 64 KiB call costs about 3.5 ms (QuickJS in wasm quotes and parses JSON at about 30 ns a
// byte), so the test makes 7,000 calls (none with -short); CODEMODE_SOAK=1 makes it 50,000.
func TestHostCallsDoNotGrowMemory(t *testing.T) {
	testenv.Long(t, "a leak soak of 7,000 host calls of 64 KiB")
	calls := 7_000
	if soak() {
		calls = 50_000
	}
	const heapCap = 64<<20 + 4096
	// One runtime; output past 1 MiB is refused (text() then throws, after its argument crossed).
	p := newCappedProvider(t, Options{PoolSize: -1, DefaultMaxHeapSizeBytes: heapCap, MaxOutputBytes: 1 << 20})
	seen := watchMemory(t, p)
	s := newCappedSession(t, p, echoDelegate)
	var body strings.Builder
	for i, v := range hostCallVariants {
		fmt.Fprintf(&body, "case %d: %s break;\n", i, v)
	}
	// run runs a cell of n calls and returns how much it grew the wasm memory (which a reset
	// never shrinks) and the Go heap after it.
	last := uint64(0)
	run := func(n int) (grown, heap uint64) {
		src := `const s = "x".repeat(65536); store("k", s);
for (let i = 0; i < ` + strconv.Itoa(n) + `; i++) { switch (i % ` + strconv.Itoa(len(hostCallVariants)) + `) {
` + body.String() + `} }`
		r := executeCell(t, s, src)
		if r.ErrorText != nil {
			t.Fatalf("%d calls: %s", n, errorTextOf(r))
		}
		m := <-seen
		if last == 0 {
			last = m.base
		}
		grown, last = m.size-last, m.size
		waitIdle(t, p)
		return grown, goHeap()
	}
	run(len(hostCallVariants)) // the runtime's first cell: its setup's leftovers
	grown1, heap1 := run(350)
	start := time.Now()
	grown2, heap2 := run(calls)
	t.Logf("350 calls: wasm memory +%.2f MiB, Go heap %.2f MiB; %d calls: wasm memory +%.2f MiB, Go heap %.2f MiB (%.1f ms a call)",
		mib(grown1), mib(heap1), calls, mib(grown2), mib(heap2), float64(time.Since(start).Milliseconds())/float64(calls))
	if grown2 > grown1+1<<20 {
		t.Errorf("%d calls grew the wasm memory by %d bytes, 350 by %d", calls, grown2, grown1)
	}
	if heap2 > heap1+4<<20 {
		t.Errorf("%d calls grew the Go heap from %d to %d bytes", calls, heap1, heap2)
	}
	if stats := p.pool.Stats(); stats.Created != 1 || stats.Replaced != 0 {
		t.Errorf("the runtime was not reused: %+v", stats)
	}
}
