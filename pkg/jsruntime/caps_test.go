package jsruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// Everything a cell can accumulate outside its JavaScript heap is bounded: unobserved output,
// stored values, pending timers and pending tool calls. Each test runs a provider with small
// limits and checks that the limit is hit exactly at its boundary, with its exact text, and that
// the session goes on.

// newCappedProvider starts a provider with opts (one warm runtime) and closes it when the test
// ends.
func newCappedProvider(t *testing.T, opts Options) *Provider {
	t.Helper()
	if opts.PoolSize == 0 {
		opts.PoolSize = 1
	}
	p, err := NewProvider(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// newCappedSession opens a session of p; Provider.Close shuts it down.
func newCappedSession(t *testing.T, p *Provider, d codemode.Delegate) codemode.Session {
	t.Helper()
	if d == nil {
		d = codemode.NoopDelegate{}
	}
	s, err := p.CreateSession(context.Background(), d, codemode.SessionCellExecutionLimits{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkResult fails the test unless r is a Result with the given error text ("" for none) and
// texts.
func checkResult(t *testing.T, what string, r codemode.RuntimeResponse, errText string, texts ...string) {
	t.Helper()
	got := errorTextOf(r)
	if errText == "" {
		errText = "<nil>"
	}
	if texts == nil {
		texts = []string{}
	}
	if r.Kind != codemode.Result || got != errText || !reflect.DeepEqual(textsOf(r.ContentItems), texts) {
		t.Fatalf("%s: %v error %q, texts %.200q; want error %q, texts %.200q", what, r.Kind, got, textsOf(r.ContentItems), errText, texts)
	}
}

func TestUnobservedOutputIsBounded(t *testing.T) {
	const limit = 1000
	p := newCappedProvider(t, Options{MaxOutputBytes: limit})
	d := newRecorder(nil)
	s := newCappedSession(t, p, d)
	limitText := fmt.Sprintf(outputLimitText, limit)
	a, b := strings.Repeat("a", 600), strings.Repeat("b", 400)

	// Exactly the limit is accepted; one byte more is not.
	r := executeCell(t, s, `text("a".repeat(600)); text("b".repeat(400)); text("c")`)
	checkResult(t, "past the limit", r, limitText, a, b)

	// The error can be caught, and smaller output still fits.
	r = executeCell(t, s, `try { text("x".repeat(1001)) } catch (e) { notify(e) } text("small")`)
	checkResult(t, "caught", r, "", "small")
	if _, notes, _ := d.snapshot(); !reflect.DeepEqual(notes, []string{"call-1/2:" + limitText}) {
		t.Fatalf("notes %q", notes)
	}

	// A text longer than the limit in UTF-16 units is refused by its length alone (it is not
	// copied out of QuickJS): the same error, caught or not, and nothing of it in the output.
	r = executeCell(t, s, `text("small"); try { text("é".repeat(1001)) } catch (e) { text(e === `+"`"+limitText+"`"+`) } text("\u{1F600}".repeat(501))`)
	checkResult(t, "longer than the limit", r, limitText, "small", "true")

	// URLs count: a 1,001-byte image URL does not fit, nor does an audio URL past what is left.
	r = executeCell(t, s, `try { image("data:image/png;base64," + "A".repeat(979)) } catch (e) { text(e === `+"`"+limitText+"`"+`) }
		audio("data:audio/wav;base64," + "A".repeat(975))`)
	checkResult(t, "urls", r, limitText, "true")

	// Observed output no longer counts: after a yield the whole limit is free again.
	c := startCell(t, s, `text("a".repeat(600)); yield_control(); text("b".repeat(600))`, 30_000)
	if r := initialResponse(t, c); r.Kind != codemode.Yielded || !reflect.DeepEqual(textsOf(r.ContentItems), []string{a}) {
		t.Fatalf("yield: %+v", r)
	}
	out := followCell(t, s, waitCell(t, s, c.CellID, 30_000).Response)
	checkResult(t, "after observation", out, "", strings.Repeat("b", 600))
}

func TestStoredValuesAreBoundedByCount(t *testing.T) {
	p := newCappedProvider(t, Options{MaxStoredValues: 3})
	s := newCappedSession(t, p, nil)
	countText := fmt.Sprintf(storeCountText, 3)
	// Overwriting a key at the limit is fine; a fourth key is not. The store is a script error,
	// and a cell that fails by a script error still commits what it stored.
	r := executeCell(t, s, `store("a", 1); store("b", 2); store("c", 3); store("c", 4); text("three");
		try { store("d", 5) } catch (e) { text(e) } store("e", 6)`)
	checkResult(t, "fourth key", r, countText, "three", countText)
	r = executeCell(t, s, `text(JSON.stringify([load("a"), load("c"), load("d"), load("e")]))`)
	checkResult(t, "committed", r, "", "[1,4,null,null]")
}

func TestStoredValuesAreBoundedBySize(t *testing.T) {
	// An entry counts its key plus its JSON: "k" and `"` + 60 x + `"` are 63 bytes.
	p := newCappedProvider(t, Options{MaxStoredBytes: 64})
	s := newCappedSession(t, p, nil)
	sizeText := fmt.Sprintf(storeSizeText, 64)
	r := executeCell(t, s, `store("k", "x".repeat(60)); try { store("z", 1) } catch (e) { text(e) }
		store("k", "x".repeat(61)); try { store("k", "x".repeat(62)) } catch (e) { text(e) }
		store("k", 1); store("k2", 1); text(load("k") + load("k2"))`)
	checkResult(t, "size", r, "", sizeText, sizeText, "2")
	r = executeCell(t, s, `store("big", "x".repeat(100))`)
	checkResult(t, "too big alone", r, sizeText)
}

// TestStoredValuesAreCheckedAtCommit runs two cells side by side: each stays within the limit on
// its own view (the session's values when it started plus its writes), but the second to complete
// would take the session past it. Its writes are dropped and its result says so.
func TestStoredValuesAreCheckedAtCommit(t *testing.T) {
	p := newCappedProvider(t, Options{MaxStoredValues: 3, MaxStoredBytes: 1000})
	g := newToolGate()
	s := newCappedSession(t, p, newRecorder(g.invoke))
	checkResult(t, "setup", executeCell(t, s, `store("x", 1); store("y", 2)`), "")

	first := startCell(t, s, `store("a", 1); await tools.block(); text("first")`, 30_000, testTool("block"))
	<-g.started
	checkResult(t, "second", executeCell(t, s, `store("b", 2); text("second")`), "", "second")
	close(g.release)
	r := followCell(t, s, initialResponse(t, first))
	checkResult(t, "first", r, fmt.Sprintf(storeCommitText, 3, 1000), "first")

	r = executeCell(t, s, `text(JSON.stringify([load("x"), load("y"), load("a"), load("b")]))`)
	checkResult(t, "committed", r, "", "[1,2,null,2]")
}

func TestPendingTimersAreBounded(t *testing.T) {
	p := newCappedProvider(t, Options{MaxPendingTimers: 10})
	s := newCappedSession(t, p, nil)
	limitText := "setTimeout: the cell already has its limit of 10 pending timers"
	// Ten pending timers fill the limit; clearing one frees its slot; a fired one frees its slot.
	r := executeCell(t, s, `
const ids = [];
for (let i = 0; i < 10; i++) ids.push(setTimeout(() => {}, 1e9));
try { setTimeout(() => {}, 0) } catch (e) { text(e) }
clearTimeout(ids[0]); clearTimeout(ids[0]);
ids.push(setTimeout(() => {}, 1e9));
try { setTimeout(() => {}, 0) } catch (e) { text(e) }
for (let i = 1; i < 11; i++) clearTimeout(ids[i]);
for (let round = 0; round < 3; round++) {
  await Promise.all(Array.from({length: 10}, () => new Promise(r => setTimeout(r, 0))));
}
text("fired 30");
setTimeout(() => {}, 0)`)
	checkResult(t, "timers", r, "", limitText, limitText, "fired 30")
	// Many more timers than the limit over a cell's life, cleared as they go.
	r = executeCell(t, s, `for (let i = 0; i < 10000; i++) clearTimeout(setTimeout(() => {}, 1e9)); text("ok")`)
	checkResult(t, "set and clear", r, "", "ok")
}

func TestPendingToolCallsAreBounded(t *testing.T) {
	p := newCappedProvider(t, Options{MaxPendingToolCalls: 5})
	g := newToolGate()
	d := newRecorder(g.invoke)
	s := newCappedSession(t, p, d)
	limitText := "tools.block: the cell already has its limit of 5 pending tool calls"
	// The sixth call is rejected (a rejected promise, like any tool error) and never reaches the
	// delegate; once the five settle, new calls go through.
	c := startCell(t, s, `
const calls = Array.from({length: 5}, () => tools.block());
try { await tools.block() } catch (e) { text(e) }
text(JSON.stringify(await Promise.all(calls)));
text(await tools.block());`, 30_000, testTool("block"))
	for range 5 {
		<-g.started
	}
	close(g.release)
	r := followCell(t, s, initialResponse(t, c))
	checkResult(t, "tool calls", r, "", limitText, `["released","released","released","released","released"]`, "released")
	if calls, _, _ := d.snapshot(); len(calls) != 6 {
		t.Fatalf("the delegate saw %d calls, want 6", len(calls))
	}
}

// TestToolResultsAreBounded checks MaxToolResultBytes at its boundary.
func TestToolResultsAreBounded(t *testing.T) {
	p := newCappedProvider(t, Options{MaxToolResultBytes: 100})
	d := newRecorder(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		var n int
		_ = json.Unmarshal(call.Input, &n)
		return json.Marshal(strings.Repeat("x", n-2)) // n bytes of JSON
	})
	s := newCappedSession(t, p, d)
	r := executeCell(t, s, `text((await tools.sized(100)).length); try { await tools.sized(101) } catch (e) { text(e) }`, testTool("sized"))
	checkResult(t, "results", r, "", "98", "tool result of 101 bytes exceeds the limit of 100 bytes")
}

// TestTimerQueueBoundsAndClears checks Go's side of the timer limit and of clearTimeout: the queue
// holds only pending timers (a cleared one leaves at once, wherever it sits in the heap), refuses
// a timer past the limit, and refuses a clear of a timer that is not pending, as forged records.
func TestTimerQueueBoundsAndClears(t *testing.T) {
	q := timerQueue{limit: 3}
	for _, rec := range []string{"1 100000", "2 0", "3 50000"} {
		if err := q.add(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.add("4 0"); err == nil || err.Error() != forgedMessageText+": more than 3 pending timers" {
		t.Fatalf("past the limit: %v", err)
	}
	if err := q.clear("3"); err != nil {
		t.Fatal(err)
	}
	if err := q.add("4 0"); err != nil {
		t.Fatalf("after a clear: %v", err)
	}
	for rec, want := range map[string]string{
		"3":  "cleared timer 3 is not pending",
		"9":  "cleared timer 9 is not pending",
		"x":  `cleared timer id "x"`,
		"":   `cleared timer id ""`,
		"-1": "cleared timer -1 is not pending",
	} {
		if err := q.clear(rec); err == nil || err.Error() != forgedMessageText+": "+want {
			t.Errorf("clear %q: %v", rec, err)
		}
	}
	// Due now: 2 then 4, in creation order; 1 is not due.
	var fired []int64
	for {
		id, ok := q.due()
		if !ok {
			break
		}
		fired = append(fired, id)
	}
	if !reflect.DeepEqual(fired, []int64{2, 4}) || q.heap.Len() != 1 || len(q.heap.byID) != 1 {
		t.Fatalf("fired %v, %d left (%d indexed)", fired, q.heap.Len(), len(q.heap.byID))
	}
}

// memorySample is what the pool's reset saw of an engine after a cell.
type memorySample struct {
	// size is the most memory the cell's module saw, wasmSize the real memory's size (the most
	// any cell of the runtime saw), base the size of the runtime's image, where every cell's heap
	// starts.
	size, wasmSize, base uint64
}

// watchMemory records the memory of every engine p's pool takes back after a cell.
func watchMemory(t *testing.T, p *Provider) <-chan memorySample {
	t.Helper()
	seen := make(chan memorySample, 64)
	t.Cleanup(p.pool.ObserveResets(func(r engine.ResetReport) {
		seen <- memorySample{size: r.MemoryBytes, wasmSize: r.WasmMemoryBytes, base: r.ImageBytes}
	}))
	return seen
}

// residentBytes reads the process's resident set size (Linux only; 0 elsewhere).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(fields[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// peakResident samples the resident set size every millisecond until stop is closed and returns
// the largest sample.
func peakResident(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		peak := residentBytes()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				out <- max(peak, residentBytes())
				return
			case <-tick.C:
				peak = max(peak, residentBytes())
			}
		}
	}()
	return out
}

// settleResident waits (up to ten seconds) until the resident set size is back within slack of
// baseline: the runtime of the previous cell is released just after its result.
func settleResident(baseline, slack uint64) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		runtime.GC()
		if residentBytes() <= baseline+slack {
			return
		}
	}
}

// TestMemoryStaysWithinTheHeapCap runs memory bombs under a 64 MiB cap on one runtime, reset after
// each (running out of memory stops the script at once, and the reset repairs it; the memory a
// bomb grew is zeroed, a little of it kept resident for the next cell, the rest given back to the
// system). A cell's wasm memory never exceeds the image plus the cap, as the module sees it and in
// reality; the bombs that grow step by step get close to the cap;
// and the process's resident set grows by at most 1.2 times the cap. Before the rewrite the memory grew by copying and a
// cell peaked at 1.7 to 2.4 times its cap; before Reallocate stopped the script on a refusal, a
// refused allocation larger than the cap was granted behind the allocator's back (a refused
// 256 MiB ArrayBuffer made the resident set grow by 256 MiB).
func TestMemoryStaysWithinTheHeapCap(t *testing.T) {
	const heapCap = 64 << 20
	p := newCappedProvider(t, Options{PoolSize: -1, DefaultMaxHeapSizeBytes: heapCap})
	seen := watchMemory(t, p)
	s := newCappedSession(t, p, nil)
	oom := fmt.Sprintf(outOfMemoryTextFormat, heapCap)
	runtime.GC()
	baseline := residentBytes()
	for _, bomb := range []struct {
		src      string
		stepwise bool // grows in small steps, so it must reach close to the cap
	}{
		{`const a = []; while (true) a.push("x".repeat(4096) + a.length)`, true},
		{`const a = []; while (true) a.push(new Float64Array(1 << 16).fill(1))`, true},
		{`const a = []; while (true) a.push({i: a.length, s: "y" + a.length})`, false},
		{`const a = [new ArrayBuffer(48 << 20)]; while (true) a.push(new ArrayBuffer(1 << 20))`, true},
		{`new ArrayBuffer(80 << 20)`, false},
		{`new ArrayBuffer(256 << 20)`, false},
		{`"x".repeat(256 << 20)`, false},
		{`try { new ArrayBuffer(256 << 20) } catch { } while (true) { try { new ArrayBuffer(256 << 20) } catch { } }`, false},
	} {
		settleResident(baseline, 16<<20)
		before := residentBytes()
		stop := make(chan struct{})
		peak := peakResident(stop)
		r := executeCell(t, s, bomb.src)
		close(stop)
		if errorTextOf(r) != oom {
			t.Fatalf("%s: %q", bomb.src, errorTextOf(r))
		}
		m := <-seen
		start := m.base                       // where this cell's heap began
		grown := max(<-peak, before) - before // the resident set may also shrink meanwhile
		t.Logf("%.50s: wasm memory %.1f MiB (module: %.1f MiB; start %.1f MiB + %.1f MiB of heap, cap 64), peak RSS +%.1f MiB",
			bomb.src, mib(m.size), mib(m.wasmSize), mib(start), mib(m.size-start), mib(grown))
		if m.size > start+heapCap || m.wasmSize > start+heapCap {
			t.Errorf("%s: the memory grew to %d bytes (module: %d), more than its start %d + cap %d", bomb.src, m.size, m.wasmSize, start, heapCap)
		}
		if bomb.stepwise && m.size < start+heapCap*9/10 {
			t.Errorf("%s: the cell stopped at %d bytes, far below its start %d + cap %d", bomb.src, m.size, start, heapCap)
		}
		if !raceEnabled && grown > heapCap*6/5 {
			t.Errorf("%s: the resident set grew by %d bytes, more than 1.2 times the cap", bomb.src, grown)
		}
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// TestUndeliveredNotificationsAreBounded checks the notifier's backpressure: with 100 bytes
// allowed, a third 40-byte text waits until the delegate has delivered the first, and a waiting
// reserve gives up when the cell ends. Before, the queue grew without limit under a slow delegate.
func TestUndeliveredNotificationsAreBounded(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	done := make(chan struct{})
	n := &notifier{limit: 100, done: done}
	const size = 40
	for range 2 { // a and b: 80 bytes undelivered
		if !n.reserve(size) {
			t.Fatal("a reserve within the limit gave up")
		}
	}
	reserved := make(chan struct{})
	go func() {
		defer close(reserved)
		if n.reserve(size) { // 120 bytes would be undelivered: waits for a
			record("reserved c")
		}
	}()
	// Room for a broken reserve that does not wait to record first. A correct one waits for the
	// delivery below however long this sleep is, so a slow machine can only make the test less
	// sensitive, never fail it; no event marks "the goroutine is blocked in reserve".
	time.Sleep(10 * time.Millisecond)
	record("delivered a")
	n.delivered1(size)
	<-reserved
	n.delivered1(size)
	n.delivered1(size)
	n.wait()
	if want := []string{"delivered a", "reserved c"}; !reflect.DeepEqual(events, want) {
		t.Fatalf("events %q: the third reserve did not wait for the first delivery", events)
	}
	// A reserve that waits gives up when the cell ends, and takes no room.
	for range 2 {
		if !n.reserve(size) {
			t.Fatal("a reserve within the limit gave up")
		}
	}
	returned := make(chan bool)
	go func() { returned <- n.reserve(size) }()
	close(done)
	if <-returned {
		t.Fatal("a waiting reserve went on after the cell ended")
	}
	n.delivered1(size)
	n.delivered1(size)
	n.wait()
}
