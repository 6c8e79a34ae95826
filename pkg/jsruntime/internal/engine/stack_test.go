package engine

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/gen/go/qjswasm"
)

// countingBudget is a host memory budget (as pkg/internal/membudget implements it) that records
// the most it held.
type countingBudget struct{ limit, used, peak int64 }

func (b *countingBudget) Take(n int64) bool {
	if b.used+n > b.limit {
		return false
	}
	b.Charge(n)
	return true
}

func (b *countingBudget) Charge(n int64) {
	b.used += n
	b.peak = max(b.peak, b.used)
}

func (b *countingBudget) Give(n int64) { b.used -= n }

// stackProbe answers the bridge message "heap" with the live Go heap after a collection, "used"
// with what the budget holds for native stacks (beside the heap's growth), and "stop" by
// interrupting the engine.
type stackProbe struct {
	e      *Engine
	budget *countingBudget
}

func (p stackProbe) Serve(msg string) Reply {
	switch msg {
	case "heap":
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return String(strconv.FormatUint(m.HeapAlloc, 10))
	case "used":
		return String(strconv.FormatInt(p.budget.used-int64(p.e.mem.charged), 10))
	case "stop":
		p.e.interrupt()
	}
	return Undefined()
}

func (stackProbe) Fault(error) {}

// nestedHeld is what the budget holds for nested native stacks: neither the heap's growth nor the
// outer stack, which it pays for until a reset.
func nestedHeld(e *Engine, b *countingBudget) int64 {
	return b.used - int64(e.mem.charged) - int64(e.mem.outerStack)
}

// stackEngine returns an engine whose budget is b, attached to a stackProbe.
func stackEngine(t *testing.T, b *countingBudget) *Engine {
	t.Helper()
	e := newTestEngine(t)
	e.mem.budget = b
	e.Attach(stackProbe{e, b}, 64<<20)
	t.Cleanup(e.Detach)
	return e
}

// runDeep calls the script src, a function of (host, depth), with depth and returns the string it
// returns or the error it ends with.
func runDeep(t *testing.T, e *Engine, src string, depth int) (string, error) {
	t.Helper()
	fn, err := e.evalSource("deep.js", src)
	if err != nil {
		t.Fatal(err)
	}
	defer e.free(fn)
	v, err := e.callValue(fn, jsUndefined, strconv.Itoa(depth))
	if err != nil {
		return "", err
	}
	defer e.free(v)
	return e.readString(v)
}

// plainRecursion recurses depth frames and returns what the bridge answers at the bottom.
const plainRecursion = `(function (host, d) { function f(n) { return n === 0 ? bridge(what) : f(n - 1) } return f(+d) })`

// TestSegmentStackIsCharged measures the live Go heap a segment of the stack guard's nested
// native stacks holds (each qjswasm.SegmentFrames frames deeper) and requires segmentStackBytes
// to cover it for plain recursion; and it requires the budget to hold one charge per nested stack
// while they run, and one for the stack they started from, and only that one once the call is
// back, until the reset.
func TestSegmentStackIsCharged(t *testing.T) {
	b := &countingBudget{limit: 1 << 40}
	e := stackEngine(t, b)
	heapAt := func(src string, depth int) float64 {
		s, err := runDeep(t, e, strings.Replace(src, "bridge(what)", `bridge("heap")`, 1), depth)
		if err != nil {
			t.Fatal(err)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const segments = 6
	from := qjswasm.SegmentFrames + 100
	for _, shape := range []struct {
		name, src string
		checked   bool
	}{
		{"plain recursion", plainRecursion, true},
		// Each level is two interpreter calls (f and the arrow function) with map's C frames between.
		{"recursion through map", `(function (host, d) { function f(n) { return n === 0 ? bridge(what) : [n].map(() => f(n - 1))[0] } return f(+d / 2) })`, false},
	} {
		per := (heapAt(shape.src, from+segments*qjswasm.SegmentFrames) - heapAt(shape.src, from)) / segments
		t.Logf("%s: %.1f MiB of live Go heap per nested native stack (charged %d MiB)", shape.name, per/(1<<20), segmentStackBytes>>20)
		if shape.checked && per > segmentStackBytes {
			t.Errorf("%s: a nested native stack holds %.0f bytes, more than the %d charged", shape.name, per, segmentStackBytes)
		}
	}

	for _, depth := range []int{100, 2*qjswasm.SegmentFrames + 100, 10000} {
		s, err := runDeep(t, e, strings.Replace(plainRecursion, "bridge(what)", `bridge("used")`, 1), depth)
		// The bridge's call is the depth+3rd interpreter call: the script's function, f's depth+1
		// frames, then the bridge (a C function, which the guard counts too).
		nested := (depth + 3) / qjswasm.SegmentFrames
		stacks := nested
		if nested > 0 || e.mem.outerStack > 0 {
			stacks++ // the outer stack
		}
		if want := strconv.Itoa(stacks * segmentStackBytes); err != nil || s != want {
			t.Errorf("%d frames deep the budget holds %q (%v), want %s: %d nested stacks and the outer one", depth, s, err, want, nested)
		}
		if held := nestedHeld(e, b); held != 0 {
			t.Fatalf("after %d frames the budget still holds %d bytes for nested stacks", depth, held)
		}
	}
	if e.mem.outerStack != segmentStackBytes {
		t.Fatalf("the budget holds %d bytes for the outer stack, want %d", e.mem.outerStack, segmentStackBytes)
	}
	e.img.restore(e.mem, e.regs) // the pool's reset
	if b.used != 0 {
		t.Fatalf("the budget holds %d bytes after the reset", b.used)
	}
}

// TestRefusedSegmentStackThrowsRangeError: a recursion whose next native stack the budget cannot
// cover throws the stack guard's RangeError, which the script catches, and goes on; every byte
// taken comes back; an uncaught one ends the call with it; and an interrupt deep inside gives
// every stack's charge back as it unwinds.
func TestRefusedSegmentStackThrowsRangeError(t *testing.T) {
	b := &countingBudget{limit: 3 * segmentStackBytes}
	e := stackEngine(t, b)
	caught := `(function (host, d) {
		let deepest = 0;
		function f(n) { if (n > deepest) deepest = n; f(n + 1) }
		const out = [];
		for (let i = 0; i < 3; i++) {
			try { f(1) } catch (e) { out.push(String(e) + " at " + deepest) }
		}
		return out.join("; ") + "; " + bridge("used") })`
	s, err := runDeep(t, e, caught, 0)
	// The budget holds three stacks: the call's own and two nested ones; the third is refused at
	// its first frame, f's 3,071st call (the 3,072nd interpreter call: the script's function is
	// the first).
	at := "RangeError: Maximum call stack size exceeded at " + strconv.Itoa(3*qjswasm.SegmentFrames-2)
	// Afterwards the budget holds the outer stack's charge only.
	if want := strings.Repeat(at+"; ", 3) + strconv.Itoa(segmentStackBytes); err != nil || s != want {
		t.Fatalf("caught: %q (%v), want %q", s, err, want)
	}
	if stacks := nestedHeld(e, b); stacks != 0 || b.peak < 3*segmentStackBytes {
		t.Fatalf("the budget holds %d bytes for stacks and held %d at most, want 0 and 3 stacks' %d", stacks, b.peak, 3*segmentStackBytes)
	}

	_, err = runDeep(t, e, `(function (host, d) { function f() { f() } return f() })`, 0)
	if err == nil || !strings.HasPrefix(err.Error(), "RangeError: "+stackOverflowMessage+"\n") {
		t.Fatalf("uncaught: %v", err)
	}
	if stacks := nestedHeld(e, b); stacks != 0 {
		t.Fatalf("the budget holds %d bytes for stacks after an uncaught overflow", stacks)
	}

	_, err = runDeep(t, e, strings.Replace(plainRecursion, "bridge(what)", `(bridge("stop"), (() => { for (;;) {} })())`, 1), 3000)
	if e.Classify(err) != ErrInterrupted {
		t.Fatalf("interrupted 3,000 frames deep: %v", err)
	}
	if stacks := nestedHeld(e, b); stacks != 0 {
		t.Fatalf("the budget holds %d bytes for stacks after an interrupt", stacks)
	}
}
